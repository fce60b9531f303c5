import Foundation
import TapedeckHTTP

// A HAR message's header fields and the sizes it records, as reading an entry takes them.
extension HARCodec {
    /// A message whose fields name no `Content-Type` takes its HAR `mimeType` as one: a file
    /// written by hand or by a tool that lists only some fields (a form posted with its type in
    /// `postData.mimeType` alone) is then redacted, matched and served by its type. Browsers'
    /// placeholders for "no type" (`x-unknown`) are not types.
    static func typeFromMimeType(_ mimeType: String, into headers: inout [HeaderField]) {
        let type = mimeType.trimmingCharacters(in: .whitespaces)
        guard !type.isEmpty, type.utf8.contains(UInt8(ascii: "/")), !type.lowercased().hasSuffix("x-unknown"),
              headers.value(for: "Content-Type") == nil else { return }
        headers.append(HeaderField("Content-Type", type))
    }

    /// Header fields as a replay sends them: HTTP/2 pseudo-headers (`:authority`, which Chromium
    /// lists) left out, a value holding several lines (Playwright joins repeated `Set-Cookie`
    /// fields with line feeds) split into one field per line, and a value another tool stored one
    /// character per byte read back as the UTF-8 it was (``HARBodyText/headerValue(_:writer:)``).
    static func headerFields(_ list: [HARNameValue], writer: HARWriter) -> [HeaderField] {
        var fields: [HeaderField] = []
        fields.reserveCapacity(list.count)
        for pair in list where !pair.name.hasPrefix(":") {
            let value = HARBodyText.headerValue(pair.value, writer: writer)
            if value.contains(where: \.isNewline) {
                for line in value.split(whereSeparator: \.isNewline) {
                    fields.append(HeaderField(pair.name, String(line)))
                }
            } else {
                fields.append(HeaderField(pair.name, value))
            }
        }
        return fields
    }

    /// The sizes a message's body had as the file records them: `bodySize` (`content.size`, a
    /// request's `bodySize`) when positive, and — when no `Content-Encoding` makes them the size of
    /// other bytes than the text's — a `Content-Length` and a response's own `bodySize`
    /// (`wireSize`), which count the bytes that travelled (``HARBodyText/RecordedSize/travelled``).
    /// They can tell how a text body's characters were decoded (``HARBodyText``, rule 2).
    static func recordedSizes(bodySize: Int, sizeField: String, headers: [HeaderField], wireSize: Int? = nil) -> [HARBodyText.RecordedSize] {
        var sizes: [HARBodyText.RecordedSize] = []
        if bodySize > 0 { sizes.append(.init(bytes: bodySize, source: sizeField)) }
        let codings = (headers.value(for: "Content-Encoding") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
        guard codings.isEmpty else { return sizes }
        if let field = headers.value(for: "Content-Length"), let length = Int(field.trimmingCharacters(in: .whitespaces)), length > 0 {
            sizes.append(.init(bytes: length, source: "the Content-Length header", travelled: true))
        }
        if let wireSize, wireSize > 0 { sizes.append(.init(bytes: wireSize, source: "response.bodySize", travelled: true)) }
        return sizes
    }
}
