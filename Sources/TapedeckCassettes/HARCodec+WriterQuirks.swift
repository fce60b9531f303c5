import Foundation

// Habits of single writers that reading an entry must know about (docs/cassettes.md, "Interop";
// fixtures/interop/README.md, "More tools"): bodies their writer says it left out, Insomnia's
// unmarked base64 file bodies, Polly.JS's hex and base64 chunk lists, and binary bodies stored as lossy text.

extension HARCodec {
    /// Why a response body cannot be replayed when its writer says it left the body out
    /// (HTTP Toolkit: no `text`, and a `comment` "Body discarded during HAR generation: longer than
    /// limit of 500000 bytes"); nil for every other content. Such an entry is skipped: replayed, it
    /// would hand the client an empty body with a status and headers that promise a whole one, a
    /// silent error in the app under test; skipped, the request misses and the miss names this
    /// entry and this reason.
    static func discardedBody(_ content: HARContent, writer: HARWriter) -> String? {
        guard content.text == nil, content.file == nil, content.wire == nil, let comment = content.comment,
              comment.lowercased().contains("discarded") else { return nil }
        let size = content.size > 0 ? " (\(content.size) bytes)" : ""
        let who = writer.name.isEmpty ? "the writer" : writer.name
        return "the response body\(size) is not in the file: \(who) left it out ('\(comment.prefix(160))'). Replayed, the client "
            + "would get an empty body, so the entry is skipped; export the file again with a larger body limit, or record the "
            + "exchange with tapedeck record"
    }

    /// Insomnia's file body: a `postData.text` holding a file's bytes as base64 with no
    /// `encoding`, under the file's (non-text) type. Nil for every other body, other writers' included.
    static func insomniaFileBody(_ postData: HARPostData, contentType: String, writer: HARWriter) -> Data? {
        guard writer.name.lowercased().hasPrefix("insomnia"), postData.encoding == nil, (postData.params ?? []).isEmpty,
              let text = postData.text, !text.isEmpty else { return nil }
        let type = HARBodyText.essence(contentType)
        guard !type.isEmpty, !HARBodyText.isTextual(type) else { return nil }
        return Data(base64Encoded: text)
    }

    /// Polly.JS 1.x's binary body: the bytes as hex, with no `_isBinary` to say so (2.0 added
    /// it). Read as hex only when everything agrees: Polly.JS wrote the file, the type is not
    /// text, the text is hex digits only, and a size the file records (`content.size`, the
    /// `Content-Length`) is exactly half its length. Nil for every other body.
    static func unmarkedPollyHex(_ text: String, contentType: String, writer: HARWriter, sizes: [HARBodyText.RecordedSize]) -> Data? {
        guard writer.name.lowercased().hasPrefix("polly"), !text.isEmpty, text.utf8.count % 2 == 0,
              sizes.contains(where: { $0.bytes * 2 == text.utf8.count }) else { return nil }
        let type = HARBodyText.essence(contentType)
        guard !type.isEmpty, !HARBodyText.isTextual(type), text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        return pollyHex(text)
    }

    /// A note when a binary body's text holds U+FFFD: its writer decoded bytes that were not UTF-8
    /// as UTF-8 text (Insomnia, node-fetch-har, older HTTP Toolkit), which replaces each with
    /// U+FFFD, so the bytes the server sent are gone and the body replays as that text. Nil for
    /// text types, where U+FFFD may be the real content.
    static func lostBytesNote(_ text: String, contentType: String) -> String? {
        let type = HARBodyText.essence(contentType)
        guard !type.isEmpty, !HARBodyText.isTextual(type), text.unicodeScalars.contains("\u{FFFD}") else { return nil }
        return "this '\(type)' body was stored as text with U+FFFD in place of bytes that are not UTF-8: the writer lost them, "
            + "so it replays as that text, not as the bytes the server sent; export with a tool that stores binary bodies as base64"
    }

    /// A JSON list of base64 strings (Polly.JS's chunks of a content-encoded body), joined; nil
    /// for anything else.
    static func base64Chunks(_ text: String) -> Data? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("["), let chunks = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String] else { return nil }
        var joined = Data()
        for chunk in chunks {
            guard let bytes = base64Bytes(chunk) else { return nil }
            joined.append(bytes)
        }
        return joined
    }

    /// Polly.JS 2–5 binary bodies: the bytes as hex, in one string or a JSON list of hex chunks
    /// (one per chunk the adapter received). Nil when it is neither.
    static func pollyHex(_ text: String) -> Data? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var hex = trimmed
        if trimmed.hasPrefix("[") {
            guard let chunks = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String] else { return nil }
            hex = chunks.joined()
        }
        var bytes = Data()
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for character in hex.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? bytes : nil
    }
}
