import Foundation

/// One part of a `multipart/*` body: where its content lies in the body, and what its headers
/// say of it.
struct MultipartPart: Equatable {
    /// The part's bytes in the body: its headers, the blank line and its content.
    var whole: Range<Data.Index>
    /// The content's bytes in the body (headers and the line break before the next delimiter excluded).
    var content: Range<Data.Index>
    /// The `name` of its `Content-Disposition` (a form field's name), if any.
    var name: String?
    /// Whether its `Content-Disposition` has a `filename` (an uploaded file, not a field).
    var isFile: Bool
    /// Its `Content-Type`, if any.
    var contentType: String?
}

/// Redaction inside `multipart/form-data` bodies (a login or token form posted as an upload):
/// a field named like a secret has its value replaced, a JSON part has its secret fields
/// replaced, and everything else — uploaded files above all — stays byte for byte.
extension Redactor {
    /// `body` with the secrets of its parts replaced, when `contentType` is a multipart type with a
    /// boundary; nil when it is not one (the caller tries the other kinds of body).
    func redactMultipart(_ body: Data, contentType: String?) -> Data? {
        // No part at all (a JSON document labelled multipart): read as any other body.
        guard let parts = Self.multipartParts(body, contentType: contentType), !parts.isEmpty else { return nil }
        let kind = FormKind(names: parts.compactMap { $0.isFile ? nil : $0.name })
        var result = Data()
        var copied = body.startIndex
        for part in parts {
            let content = body[part.content]
            let replacement: Data?
            if !part.isFile, let name = part.name, isSecretFormName(name, in: kind) {
                replacement = content.elementsEqual(Self.placeholder.utf8) ? nil : Data(Self.placeholder.utf8)
            } else if !part.isFile {
                // A field's JSON, by its type or its look (lines of it too); an uploaded file stays.
                let redacted = redactJSON(Data(content), contentType: part.contentType)
                replacement = redacted == content ? nil : redacted
            } else {
                replacement = nil
            }
            guard let replacement else { continue }
            result.append(body[copied..<part.content.lowerBound])
            result.append(replacement)
            copied = part.content.upperBound
        }
        guard copied != body.startIndex else { return body }
        result.append(body[copied...])
        return result
    }

    /// The parts of a multipart body in order, or nil when `contentType` is not `multipart/…` with a
    /// boundary. A part whose headers do not end (no blank line) is left out; a body cut short
    /// gives the parts before the cut.
    static func multipartParts(_ body: Data, contentType: String?) -> [MultipartPart]? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/"),
              let boundary = HARPostBody.boundary(in: contentType) else { return nil }
        let delimiter = Array("--\(boundary)".utf8)
        // One pass over the bytes, by offset (searching `Data` by range copied the rest of the
        // body at every part: 80,000 parts took 24 s of a connection's thread).
        let ranges: [(whole: Range<Int>, headerEnd: Range<Int>)] = body.withUnsafeBytes { bytes in
            var found: [(whole: Range<Int>, headerEnd: Range<Int>)] = []
            // The first delimiter may open the body; every later one follows a line break.
            var line = bytes.starts(with: delimiter) ? delimiterLine(bytes, at: 0, delimiter) : nil
            if line == nil { line = nextDelimiterLine(bytes, from: 0, delimiter) }
            while let current = line, !current.closes {
                let next = nextDelimiterLine(bytes, from: current.end, delimiter)
                let partEnd = next.map { $0.start - $0.lineBreakBefore } ?? bytes.count
                if current.end <= partEnd, let headerEnd = headerEnd(bytes, current.end..<partEnd) {
                    found.append((current.end..<partEnd, headerEnd))
                }
                line = next
            }
            return found
        }
        let base = body.startIndex
        return ranges.map { whole, headerEnd in
            part(body, whole: base + whole.lowerBound..<base + whole.upperBound,
                 headerEnd: base + headerEnd.lowerBound..<base + headerEnd.upperBound)
        }
    }

    /// A delimiter line: where its `--boundary` starts, where the part after it starts (past the
    /// line's end), and whether it is the closing one (`--boundary--`).
    private struct DelimiterLine {
        var start: Int
        var end: Int
        var closes: Bool
        /// The bytes of the line break before it (CRLF 2, a bare LF 1; 0 at the body's start),
        /// which belong to the delimiter, not to the part before.
        var lineBreakBefore = 0
    }

    /// The next delimiter line after a line break from `position`: `--boundary` followed by `--`,
    /// or by optional spaces and a line break. The same bytes followed by anything else are content
    /// (RFC 2046), as a server's parser reads them. Line breaks are CRLF, or a bare LF (Go's
    /// parser takes those too; a body written so would otherwise have no parts to redact).
    private static func nextDelimiterLine(_ bytes: UnsafeRawBufferPointer, from position: Int, _ delimiter: [UInt8]) -> DelimiterLine? {
        let needle = [0x0A] + delimiter
        var from = position
        while let found = find(needle, in: bytes, from: from, to: bytes.count) {
            if var line = delimiterLine(bytes, at: found + 1, delimiter) {
                line.lineBreakBefore = found > position && bytes[found - 1] == 0x0D ? 2 : 1   // a CR of the part itself, never of the line before it
                return line
            }
            from = found + 1
        }
        return nil
    }

    /// The delimiter line whose `--boundary` starts at `start`, nil when what follows makes it content.
    private static func delimiterLine(_ bytes: UnsafeRawBufferPointer, at start: Int, _ delimiter: [UInt8]) -> DelimiterLine? {
        var index = start + delimiter.count
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "-") {
            return DelimiterLine(start: start, end: index + 2, closes: true)
        }
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        if index + 1 < bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A { return DelimiterLine(start: start, end: index + 2, closes: false) }
        if index < bytes.count, bytes[index] == 0x0A { return DelimiterLine(start: start, end: index + 1, closes: false) }
        return nil
    }

    /// Where a part's header block ends (its blank line, CRLF or LF), nil without one.
    private static func headerEnd(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int>? {
        if range.count >= 2, bytes[range.lowerBound] == 0x0D, bytes[range.lowerBound + 1] == 0x0A {
            return range.lowerBound..<range.lowerBound + 2   // no headers at all
        }
        if range.count >= 1, bytes[range.lowerBound] == 0x0A { return range.lowerBound..<range.lowerBound + 1 }
        let crlf = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: range.lowerBound, to: range.upperBound).map { $0..<$0 + 4 }
        let lf = find([0x0A, 0x0A], in: bytes, from: range.lowerBound, to: crlf?.lowerBound ?? range.upperBound).map { $0..<$0 + 2 }
        return lf ?? crlf
    }

    /// The first offset in `from..<to` where `needle` starts.
    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard let first = needle.first, to - from >= needle.count, let base = bytes.baseAddress else { return nil }
        var position = from
        let last = to - needle.count
        while position <= last {
            guard let hit = memchr(base + position, Int32(first), last - position + 1) else { return nil }
            let offset = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + offset, needle, needle.count) == 0 { return offset }
            position = offset + 1
        }
        return nil
    }

    /// One part from where its bytes lie and where its header block ends.
    private static func part(_ body: Data, whole range: Range<Data.Index>, headerEnd: Range<Data.Index>) -> MultipartPart {
        var part = MultipartPart(whole: range, content: headerEnd.upperBound..<range.upperBound, name: nil, isFile: false, contentType: nil)
        // Header lines are ASCII by the standard; Latin-1 reads any byte without failing.
        let text = String(body[range.lowerBound..<headerEnd.lowerBound].map { Character(Unicode.Scalar($0)) })
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-type" { part.contentType = value }
            guard name == "content-disposition" else { continue }
            for parameter in Self.dispositionParameters(value) {
                if parameter.name == "name" { part.name = parameter.value }
                if parameter.name == "filename" || parameter.name == "filename*" { part.isFile = true }
            }
        }
        return part
    }

    /// The `name=value` parameters of a `Content-Disposition` value (`form-data; name="a;b"`),
    /// names lowercased, quoted values unquoted (a `;` inside quotes is part of the value).
    static func dispositionParameters(_ value: String) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        var rest = Substring(value)
        // The disposition type comes first.
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var parameterValue = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    if character == "\\", rest.dropFirst().first != nil {
                        rest = rest.dropFirst()
                    }
                    parameterValue.append(rest.first!)
                    rest = rest.dropFirst()
                }
                rest = rest.dropFirst()   // the closing quote
                if let semicolon = rest.firstIndex(of: ";") { rest = rest[rest.index(after: semicolon)...] } else { rest = "" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parameterValue = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
            }
            parameters.append((name, parameterValue))
        }
        return parameters
    }
}
