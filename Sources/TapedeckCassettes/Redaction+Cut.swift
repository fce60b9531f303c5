import Foundation
import TapedeckHTTP

// Redacting a response that broke off: its body is the start of a document (JSON that does not
// parse, a compressed stream that does not end), so the usual parse-and-rewrite cannot work.

extension Redactor {
    /// `response` (which broke off) with the secrets in what arrived of its body replaced: the
    /// string values of secret JSON fields, found by their `"name": "value` shape (the last may
    /// be cut inside its value), the secret-looking tokens, and the request's echoed secrets. A
    /// compressed body is decoded as far as it goes (as the client read it) and, when something
    /// was replaced, kept decoded (`bodyForm` `.decoded`: a cut stream cannot be compressed again
    /// as the same cut). The announced `Content-Length` of a plain body moves by what the
    /// replacements changed, so the replay still stops short of it. A body that decodes past
    /// ``inspectionLimit`` is stored as it is, as a whole one is.
    func redactCut(_ response: RecordedResponse, echoes: [String]) -> RecordedResponse {
        var response = response
        guard let (content, plain) = Self.cutContent(of: response, limit: Self.inspectionLimit + 1),
              content.count <= Self.inspectionLimit else { return response }
        // A cut inside a multi-byte character leaves up to 3 bytes that are no UTF-8: the checks
        // read the text before them, and the bytes stay as they were.
        let (text, tail) = Self.splitCutCharacter(content)
        let redacted = redactTokens(Self.replacingEchoes(echoes, in: redactCutJSON(text).body)) + tail
        guard redacted != content else { return response }
        if plain {
            if response.bodyForm == .wire, let field = response.headers.value(for: "Content-Length"),
               let length = Int(field.trimmingCharacters(in: .whitespaces)) {
                Self.setContentLength(&response.headers, max(redacted.count + 1, length + redacted.count - response.body.count))
            }
        } else {
            response.bodyForm = .decoded
        }
        response.body = redacted
        response.chunks = nil
        return response
    }

    /// What a client read of `response`'s cut body (at most `limit` bytes), and whether that is
    /// the body as stored (`plain`: no coding, or kept decoded); nil under a coding this side does
    /// not decode as far as it goes (a list of codings, an unknown one).
    static func cutContent(of response: RecordedResponse, limit: Int) -> (content: Data, plain: Bool)? {
        let coding = response.headers.value(for: "Content-Encoding")
        if response.bodyForm == .decoded || BodyCodings.codings(coding).isEmpty { return (response.body, true) }
        guard ContentCoding.isDecodable(coding) else { return nil }
        return (ContentCoding.decodePrefix(response.body, contentEncoding: coding, limit: limit), false)
    }

    /// `body` split before a multi-byte character its end cuts: the UTF-8 text, and the 1–3
    /// bytes after it (empty when it ends on a character, or is no UTF-8 at all).
    static func splitCutCharacter(_ body: Data) -> (text: Data, tail: Data) {
        for tail in 0...min(3, body.count) where String(data: body.prefix(body.count - tail), encoding: .utf8) != nil {
            return (body.prefix(body.count - tail), body.suffix(tail))
        }
        return (body, Data())
    }

    /// `body` with the string values of secret JSON fields replaced, found without parsing (the
    /// document may be cut anywhere, even inside a value), and the names of the fields replaced.
    /// One pass over the bytes: each string is read once, and a string followed by `:` is a name.
    func redactCutJSON(_ body: Data) -> (body: Data, fields: [String]) {
        let bytes = [UInt8](body)
        var replacements: [(range: Range<Int>, name: String)] = []
        var position = 0
        var lastName: (text: String, end: Int)?
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "\"") else {
                if bytes[position] == UInt8(ascii: ":"), let name = lastName {
                    // A name, then its value: a string value may be a secret.
                    var start = position + 1
                    while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
                    if start < bytes.count, bytes[start] == UInt8(ascii: "\"") {
                        let end = Self.stringEnd(bytes, from: start + 1)
                        let value = String(decoding: bytes[(start + 1)..<min(end, bytes.count)], as: UTF8.self)
                        if !value.isEmpty, !Self.looksRedacted(value), isSecretJSONField(name.text, value: value) {
                            replacements.append((start + 1..<min(end, bytes.count), name.text))
                        }
                        position = end + 1
                        lastName = nil
                        continue
                    }
                }
                if ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { lastName = nil }
                position += 1
                continue
            }
            let end = Self.stringEnd(bytes, from: position + 1)
            // Names are short; a longer string is a value, never looked at as a name.
            lastName = end - position <= 200 ? (String(decoding: bytes[(position + 1)..<min(end, bytes.count)], as: UTF8.self), end) : nil
            position = end + 1
        }
        guard !replacements.isEmpty else { return (body, []) }
        var result = bytes
        for replacement in replacements.reversed() {
            result.replaceSubrange(replacement.range, with: Array(Self.placeholder.utf8))
        }
        return (Data(result), replacements.map(\.name))
    }

    /// Where the JSON string whose text starts at `start` ends (the index of its closing quote;
    /// the body's length when it is cut before one).
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index
            default: index += 1
            }
        }
        return bytes.count
    }
}
