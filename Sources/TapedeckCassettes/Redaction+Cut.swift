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
    /// replacements changed, so the replay still stops short of it.
    func redactCut(_ response: RecordedResponse, echoes: [String]) -> RecordedResponse {
        var response = response
        let coding = response.headers.value(for: "Content-Encoding")
        let plain = response.bodyForm == .decoded || BodyCodings.codings(coding).isEmpty
        // One coding this side decodes piece by piece, or none (a list of codings stays as it is).
        guard plain || ContentCoding.isDecodable(coding) else { return response }
        let content = plain ? response.body : ContentCoding.decodePrefix(response.body, contentEncoding: coding, limit: Self.inspectionLimit)
        guard content.count <= Self.inspectionLimit else { return response }
        let redacted = redactTokens(Self.replacingEchoes(echoes, in: redactCutJSON(content).body))
        guard redacted != content else { return response }
        if plain {
            if response.bodyForm == .wire, let field = response.headers.value(for: "Content-Length"),
               let length = Int(field.trimmingCharacters(in: .whitespaces)) {
                Self.setContentLength(&response.headers, max(redacted.count, length + redacted.count - response.body.count))
            }
        } else {
            response.bodyForm = .decoded
        }
        response.body = redacted
        response.chunks = nil
        return response
    }

    /// `body` with the string values of secret JSON fields replaced, found without parsing (the
    /// document may be cut anywhere), and the names of the fields replaced.
    func redactCutJSON(_ body: Data) -> (body: Data, fields: [String]) {
        // A cut inside a multi-byte character leaves up to 3 bytes that are no UTF-8: kept as they are.
        var tail = 0
        var text: String?
        while tail <= min(3, body.count), text == nil {
            text = String(data: body.prefix(body.count - tail), encoding: .utf8)
            if text == nil { tail += 1 }
        }
        guard let text, text.contains("\"") else { return (body, []) }
        var result = text
        var fields: [String] = []
        let whole = NSRange(text.startIndex..., in: text)
        for match in Self.cutJSONPair.matches(in: text, range: whole).reversed() {
            guard let nameRange = Range(match.range(at: 1), in: text), let valueRange = Range(match.range(at: 2), in: text) else { continue }
            let name = String(text[nameRange]), value = String(text[valueRange])
            guard !value.isEmpty, !Self.looksRedacted(value), isSecretJSONField(name, value: value) else { continue }
            fields.append(name)
            result.replaceSubrange(valueRange, with: Self.placeholder)
        }
        guard !fields.isEmpty else { return (body, []) }
        return (Data(result.utf8) + body.suffix(tail), fields.reversed())
    }

    /// `"name" : "value"`, the value possibly cut short at the end of the text.
    private static let cutJSONPair = try! NSRegularExpression(pattern: #""((?:[^"\\]|\\.){1,200})"\s*:\s*"((?:[^"\\]|\\.)*)(?:"|\z)"#)
}
