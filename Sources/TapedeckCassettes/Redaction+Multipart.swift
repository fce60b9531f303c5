import Foundation

/// One part of a `multipart/*` body: where its content lies in the body, and what its headers
/// say of it.
struct MultipartPart: Equatable {
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
        guard let parts = Self.multipartParts(body, contentType: contentType) else { return nil }
        var result = Data()
        var copied = body.startIndex
        for part in parts {
            let content = body[part.content]
            let replacement: Data?
            if !part.isFile, let name = part.name, isSecretQueryName(name) {
                replacement = content.elementsEqual(Self.placeholder.utf8) ? nil : Data(Self.placeholder.utf8)
            } else if part.contentType?.lowercased().contains("json") == true {
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
        let delimiter = Data("--\(boundary)".utf8)
        let lineBreak = Data("\r\n".utf8)
        var parts: [MultipartPart] = []
        // The first delimiter may open the body; every later one follows a line break.
        var found = body.starts(with: delimiter) ? delimiterLine(body, at: body.startIndex, delimiter) : nil
        if found == nil { found = nextDelimiterLine(body, from: body.startIndex, delimiter) }
        while let line = found, !line.closes {
            let next = nextDelimiterLine(body, from: line.end, delimiter)
            let partEnd = next.map { $0.start - lineBreak.count } ?? body.endIndex
            if line.end <= partEnd, let part = part(body, line.end..<partEnd) { parts.append(part) }
            found = next
        }
        return parts
    }

    /// A delimiter line: where its `--boundary` starts, where the part after it starts (past the
    /// line's end), and whether it is the closing one (`--boundary--`).
    private struct DelimiterLine {
        var start: Data.Index
        var end: Data.Index
        var closes: Bool
    }

    /// The next delimiter line after a line break from `position`: `--boundary` followed by `--`,
    /// or by optional spaces and a line break. The same bytes followed by anything else are content
    /// (RFC 2046), as a server's parser reads them.
    private static func nextDelimiterLine(_ body: Data, from position: Data.Index, _ delimiter: Data) -> DelimiterLine? {
        var from = position
        while let found = body.range(of: Data("\r\n".utf8) + delimiter, in: from..<body.endIndex) {
            if let line = delimiterLine(body, at: found.lowerBound + 2, delimiter) { return line }
            from = found.lowerBound + 1
        }
        return nil
    }

    /// The delimiter line whose `--boundary` starts at `start`, nil when what follows makes it content.
    private static func delimiterLine(_ body: Data, at start: Data.Index, _ delimiter: Data) -> DelimiterLine? {
        var index = start + delimiter.count
        if body[index...].starts(with: Data("--".utf8)) { return DelimiterLine(start: start, end: index + 2, closes: true) }
        while index < body.endIndex, body[index] == UInt8(ascii: " ") || body[index] == UInt8(ascii: "\t") { index += 1 }
        guard body[index...].starts(with: Data("\r\n".utf8)) else { return nil }
        return DelimiterLine(start: start, end: index + 2, closes: false)
    }

    /// One part from its bytes (headers, a blank line, the content), nil without the blank line.
    private static func part(_ body: Data, _ range: Range<Data.Index>) -> MultipartPart? {
        let headerEnd: Range<Data.Index>
        if body[range].starts(with: Data("\r\n".utf8)) {
            headerEnd = range.lowerBound..<range.lowerBound + 2   // no headers at all
        } else if let end = body.range(of: Data("\r\n\r\n".utf8), in: range) {
            headerEnd = end
        } else {
            return nil
        }
        var part = MultipartPart(content: headerEnd.upperBound..<range.upperBound, name: nil, isFile: false, contentType: nil)
        // Header lines are ASCII by the standard; Latin-1 reads any byte without failing.
        let text = String(body[range.lowerBound..<headerEnd.lowerBound].map { Character(Unicode.Scalar($0)) })
        for line in text.split(separator: "\r\n") {
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
                    if character == "\\", rest.count > 1 {
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
