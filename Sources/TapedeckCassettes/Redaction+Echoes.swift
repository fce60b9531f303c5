import Foundation
import TapedeckHTTP

/// Secrets a response repeats: an echo server (httpbin's `/anything`, a debugging endpoint, an
/// error page quoting the request) hands back the request's token inside a JSON string, under a
/// field name no rule lists, or as a query item turned into a JSON field. Whatever the request's
/// rules redacted is redacted wherever the response body repeats it, as it was sent.
extension Redactor {
    /// The shortest value taken as a secret to look for (shorter ones — `1`, `yes` — would
    /// replace innocent bytes everywhere).
    static let shortestEcho = 6

    /// The values `request`'s rules redact: credential headers (and the credential after an
    /// `Authorization` scheme), cookie values, secret query items (as sent and decoded), and the
    /// string values of secret JSON and form fields (urlencoded or multipart). Longest first.
    func echoedSecrets(of request: RecordedRequest) -> [String] {
        var secrets: Set<String> = []
        func keep(_ value: some StringProtocol) {
            let text = String(value)
            if text.utf8.count >= Self.shortestEcho, text != Self.placeholder { secrets.insert(text) }
        }
        for field in request.headers {
            let name = field.name.lowercased()
            let secret = isSecretHeader(name)
            // Or a credential redacted for its shape (`X-Amzn-Oidc-Data: eyJ…`, `X-Authorization: Bearer …`).
            guard secret || redactsByShape(headerName: name, value: field.value) else { continue }
            if secret, name == "cookie" || name == "set-cookie" {
                // Every cookie's value is redacted in the header, but most are settings
                // (`consent=accepted`, `theme=dark`) whose words a body may well use: only values
                // shaped like an id or a token are looked for.
                for pair in field.value.split(separator: ";") {
                    guard let equals = pair.firstIndex(of: "="), !keptCookies.contains(Self.cookieName(pair)) else { continue }
                    let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                    if Self.looksLikeToken(value) { keep(value) }
                }
            } else {
                keep(field.value)
                if let space = field.value.firstIndex(of: " ") { keep(field.value[field.value.index(after: space)...]) }
            }
        }
        if request.url.absoluteString.utf8.contains(UInt8(ascii: "?")),
           let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery {
            for field in Self.formFields(query) {
                guard let value = field.value,
                      isSecretQueryName(field.name) || redactsByShape(queryName: field.name, value: String(value)) else { continue }
                keep(value)
                keep(MatchRules.formDecoded(String(value)))
            }
        }
        if let body = request.content, !body.isEmpty, body.count <= Self.inspectionLimit {
            let contentType = request.headers.value(for: "Content-Type")
            // Read as redaction reads it (a JSON document sent as a form is JSON; lines of JSON,
            // a prefixed document, a JSONP call are found wherever validate finds them).
            if Self.isForm(contentType), !Self.looksLikeJSON(body), let text = String(data: body, encoding: .utf8) {
                let fields = Self.formFields(text)
                let kind = FormKind(names: fields.map(\.name))
                for field in fields where isSecretFormName(field.name, in: kind) {
                    guard let value = field.value else { continue }
                    keep(value)
                    keep(MatchRules.formDecoded(String(value)))
                }
            } else if let parts = Self.multipartParts(body, contentType: contentType), !parts.isEmpty {
                // A form posted as multipart: its secret fields, and the secret fields of its fields' JSON.
                let kind = FormKind(names: parts.compactMap { $0.isFile ? nil : $0.name })
                for part in parts where !part.isFile {
                    if let name = part.name, isSecretFormName(name, in: kind) {
                        if let value = String(data: body[part.content], encoding: .utf8) { keep(value) }
                    } else {
                        for object in SecretScanner.jsonDocuments(in: Data(body[part.content])) { collectJSONSecrets(object, into: keep) }
                    }
                }
            } else {
                for object in SecretScanner.jsonDocuments(in: body) { collectJSONSecrets(object, into: keep) }
            }
        }
        return secrets.sorted { $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1 }
    }

    /// A value shaped like an id or a token rather than a word: 12 bytes or more, with letters
    /// and digits both.
    static func looksLikeToken(_ value: String) -> Bool {
        value.utf8.count >= 12 && value.utf8.contains { $0 >= 0x30 && $0 <= 0x39 }
            && value.utf8.contains { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a }
    }

    private func collectJSONSecrets(_ value: Any, into keep: (String) -> Void) {
        if let dictionary = value as? [String: Any] {
            for (key, inner) in dictionary {
                if let text = inner as? String, isSecretJSONField(key, value: inner) {
                    keep(text)
                } else {
                    collectJSONSecrets(inner, into: keep)
                }
            }
        } else if let array = value as? [Any] {
            for element in array { collectJSONSecrets(element, into: keep) }
        }
    }

    /// `body` with every occurrence of each secret replaced by the placeholder — as sent, and as
    /// a JSON string spells it (`/` as `\/`, `"` as `\"`), since an echo is usually quoted in JSON.
    static func replacingEchoes(_ secrets: [String], in body: Data) -> Data {
        guard !secrets.isEmpty, !body.isEmpty, body.count <= inspectionLimit else { return body }
        var result = body
        let placeholder = Data(Self.placeholder.utf8)
        for secret in secrets {
            var spellings = [secret]
            let escaped = secret.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            spellings.append(escaped)
            spellings.append(escaped.replacingOccurrences(of: "/", with: "\\/"))
            for spelling in Set(spellings) {
                // One pass: the pieces between occurrences, joined by the placeholder.
                let needle = Data(spelling.utf8)
                guard var found = result.range(of: needle) else { continue }
                var rebuilt = Data(capacity: result.count)
                var from = result.startIndex
                while true {
                    rebuilt.append(result[from..<found.lowerBound])
                    rebuilt.append(placeholder)
                    from = found.upperBound
                    guard let next = result.range(of: needle, in: from..<result.endIndex) else { break }
                    found = next
                }
                rebuilt.append(result[from...])
                result = rebuilt
            }
        }
        return result
    }

    /// ``replacingBearerTokens(in:)`` under rules that redact `Authorization` (not ``none``).
    func redactTokens(_ body: Data) -> Data {
        isSecretHeader("authorization") ? Self.replacingBearerTokens(in: body) : body
    }

    /// `body` with every `Bearer <token>` in its text replaced by `Bearer REDACTED` — a token in
    /// the one syntax that says what it is, wherever it sits (a quoted header in an error page, a
    /// JSON string under an innocent name). Bodies that are not UTF-8 text are left as they are.
    static func replacingBearerTokens(in body: Data) -> Data {
        guard !body.isEmpty, body.count <= inspectionLimit, body.containsBytes(of: "bearer", foldingCase: true),
              let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let replaced = text.replacing(bearerToken) { match in
            guard isBearerCredential(match.output.2) else { return match.output.0 }
            changed = true
            return match.output.1 + Self.placeholder
        }
        return changed ? Data(replaced.utf8) : body
    }

    /// Whether `text` holds `Bearer <token>` (``isBearerCredential(_:)``): what the secrets
    /// check reports and ``replacingBearerTokens(in:)`` replaces.
    static func containsBearerToken(_ text: String) -> Bool {
        text.matches(of: bearerToken).contains { isBearerCredential($0.output.2) }
    }

    /// A token after `Bearer` that is a credential, not a word ("Bearer authentication required"):
    /// not a placeholder (``looksRedacted(_:)``), and either 16 characters or more or holding a digit or one of the
    /// token punctuation marks.
    private static func isBearerCredential(_ token: Substring) -> Bool {
        guard !looksRedacted(String(token)) else { return false }
        return token.utf8.count >= 16 || token.utf8.contains { ($0 >= 0x30 && $0 <= 0x39) || "-._~+/=".utf8.contains($0) }
    }

    /// The word `Bearer` (any case, not inside another word), spaces or tabs on one line, then 8
    /// or more token characters.
    nonisolated(unsafe) private static let bearerToken = #/(?i)\b(bearer[ \t]+)([A-Za-z0-9\-._~+/]{8,}=*)/#

    /// Whether `value` is a placeholder some tool left where a secret was: Tapedeck's `REDACTED`,
    /// the usual `[REDACTED]`, `<REDACTED>`, `[FILTERED]` (Rails), `[Filtered]` (Sentry) or `***`,
    /// har-capture's `AUTH_`/`COOKIE_`/`FIELD_` plus eight hex digits, or `***FIELD***` (unsalted) — also after an
    /// authorization scheme (`Bearer AUTH_a290547a`).
    public static func looksRedacted(_ value: String) -> Bool {
        var text = Substring(value.trimmingCharacters(in: .whitespaces))
        if let space = text.firstIndex(of: " "), ["bearer", "basic", "token", "digest"].contains(text[..<space].lowercased()) {
            text = text[text.index(after: space)...].drop(while: { $0 == " " })
        }
        if text == placeholder || ["[REDACTED]", "<REDACTED>", "[FILTERED]", "[Filtered]", "<redacted>"].contains(text) { return true }
        if text.count >= 3, text.allSatisfy({ $0 == "*" }) { return true }
        // har-capture's sanitizer without a salt (`--no-salt`): ***FIELD***, ***COOKIE***, ***TOKEN***.
        if text.count > 6, text.hasPrefix("***"), text.hasSuffix("***") {
            let kind = text.dropFirst(3).dropLast(3)
            if kind.first?.isLetter == true, kind.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }) { return true }
        }
        // har-capture's sanitizer: KIND_ and the first eight hex digits of a hash.
        guard let underscore = text.lastIndex(of: "_"), underscore > text.startIndex else { return false }
        let kind = text[..<underscore], digits = text[text.index(after: underscore)...]
        return digits.count == 8 && digits.allSatisfy(\.isHexDigit) && digits.allSatisfy({ !$0.isUppercase })
            && kind.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }) && kind.first?.isLetter == true
    }
}
