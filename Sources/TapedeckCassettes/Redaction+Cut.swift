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
        // Numbers and literals are replaced only in what is JSON: in a script (`{"Authorization":e}`)
        // the same shape is code.
        let json = response.headers.value(for: "Content-Type")?.containsBytes(of: "json", foldingCase: true) == true
            || text.first(where: { !Self.isJSONSpace($0) }).map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } == true
        let redacted = redactTokens(Self.replacingEchoes(echoes, in: redactCutJSON(text, scalars: json).body)) + tail
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

    /// `body` with the values of secret JSON fields replaced, found without parsing (the document
    /// may be cut anywhere, even inside a value), and the names of the fields replaced. As for a
    /// whole document: a string value under a secret name, a number, `true`/`false` or `null` under
    /// a name the rules list, and the values of a list under a secret name (in nested lists too;
    /// objects in it by their own fields' names). One pass over the bytes, with a stack of the
    /// containers open at each point; a string followed by `:` is a name. `scalars` false: strings
    /// only (the body may be code, not JSON). The fields returned are those whose strings were
    /// replaced (what the secrets check reports).
    func redactCutJSON(_ body: Data, scalars: Bool = true) -> (body: Data, fields: [String]) {
        let bytes = [UInt8](body)
        // `scalar`: a number's place (it becomes 0); false: a string's contents (the placeholder).
        var replacements: [(range: Range<Int>, name: String, scalar: Bool)] = []
        // Each open container; an array under a secret name carries that name.
        var open: [CutContainer] = []
        var position = 0
        var lastName: String?
        // The name whose value comes next (after its `:`).
        var pendingName: String?
        func secretList() -> String? {
            if case .list(let name)? = open.last { return name }
            return nil
        }
        while position < bytes.count {
            let byte = bytes[position]
            if Self.isJSONSpace(byte) {
                position += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                let end = Self.stringEnd(bytes, from: position + 1)
                let range = (position + 1)..<min(end, bytes.count)
                let owner = pendingName ?? secretList()
                pendingName = nil
                lastName = nil
                if let owner {
                    let value = String(decoding: bytes[range], as: UTF8.self)
                    if !value.isEmpty, !Self.looksRedacted(value), isSecretJSONField(owner, value: value) {
                        replacements.append((range, owner, false))
                    }
                } else if end - position <= 200 {
                    // Names are short; a longer string is a value, never looked at as a name.
                    lastName = String(decoding: bytes[range], as: UTF8.self)
                }
                position = end + 1
                continue
            }
            switch byte {
            case UInt8(ascii: ":"):
                pendingName = lastName
                lastName = nil
                position += 1
                // A value that is not a string is read below, by the next turn of the loop.
                if let name = pendingName {
                    var start = position
                    while start < bytes.count, Self.isJSONSpace(bytes[start]) { start += 1 }
                    guard start < bytes.count else { break }
                    if bytes[start] == UInt8(ascii: "[") {
                        open.append(.list(isSecretJSONField(name) ? name : nil))
                        pendingName = nil
                        position = start + 1
                    } else if bytes[start] != UInt8(ascii: "\""), bytes[start] != UInt8(ascii: "{") {
                        let end = Self.scalarEnd(bytes, from: start)
                        if scalars, end > start, jsonFields.contains(name.lowercased()), Self.isJSONNumber(bytes[start..<end]) {
                            replacements.append((start..<end, name, true))
                        }
                        pendingName = nil
                        position = end
                    }
                }
            case UInt8(ascii: "{"):
                open.append(.object)
                pendingName = nil
                position += 1
            case UInt8(ascii: "["):
                // A list in a secret list is the field's values too.
                open.append(.list(secretList()))
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !open.isEmpty { open.removeLast() }
                lastName = nil
                position += 1
            case UInt8(ascii: ","):
                lastName = nil
                position += 1
            default:
                // A number, `true`, `false` or `null` in a list (replaced, as in a whole document, under a
                // name the rules list).
                let end = Self.scalarEnd(bytes, from: position)
                if scalars, end > position, let owner = secretList(), jsonFields.contains(owner.lowercased()), Self.isJSONNumber(bytes[position..<end]) {
                    replacements.append((position..<end, owner, true))
                }
                lastName = nil
                position = max(end, position + 1)
            }
        }
        guard !replacements.isEmpty else { return (body, []) }
        var result = bytes
        for replacement in replacements.reversed() {
            let text = replacement.scalar ? "0" : Self.placeholder
            result.replaceSubrange(replacement.range, with: Array(text.utf8))
        }
        // Only strings are reported as found secrets (as for a whole document: a `null` or a
        // number under a secret name is replaced, but is no stored credential).
        return (Data(result), replacements.filter { !$0.scalar }.map(\.name))
    }

    /// A container open at a point of a cut JSON document: an object, or a list (with the
    /// secret name whose values it holds, if any).
    private enum CutContainer {
        case object
        case list(String?)
    }

    /// Whether `bytes` spell a JSON number (not `null`, `true` or `false`, which hold no secret
    /// and stay as they are).
    static func isJSONNumber(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        return first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Where the number or literal that starts at `start` ends (the first byte that cannot be in
    /// one; the body's length when it is cut inside it).
    private static func scalarEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), UInt8(ascii: "\""):
                return index
            default: index += 1
            }
        }
        return index
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
