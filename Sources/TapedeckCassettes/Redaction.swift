public import Foundation
import TapedeckHTTP

/// Replaces secrets in interactions before they are stored: header values, query items and JSON
/// body fields, matched by name (case-insensitive). On by default when recording; replay applies
/// the same rules to live requests before matching, so a redacted value never causes a mismatch.
///
/// ```swift
/// let redactor = Redactor(extraHeaders: ["X-Session"], extraJSONFields: ["pin"])
/// let clean = redactor.redact(interaction)        // "X-Session: REDACTED", "pin": "REDACTED"
/// let options = CassetteRecorder.Options(mode: .once, redactor: redactor)
/// ```
public struct Redactor: Hashable, Sendable {
    /// What a secret is replaced with.
    public static let placeholder = "REDACTED"

    /// Header names whose values are replaced (lowercased).
    public var headers: Set<String>
    /// Query item names whose values are replaced (lowercased).
    public var queryItems: Set<String>
    /// JSON field names, at any depth, whose values are replaced (lowercased).
    public var jsonFields: Set<String>

    /// Credential headers: authorization, cookies, API keys, CSRF tokens.
    public static let defaultHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token", "x-csrf-token",
    ]
    /// Common token and key parameters.
    public static let defaultQueryItems: Set<String> = [
        "access_token", "api_key", "apikey", "auth", "client_secret", "key", "password", "secret", "sig", "signature", "token",
    ]
    /// Common token, secret and password fields.
    public static let defaultJSONFields: Set<String> = [
        "access_token", "accesstoken", "api_key", "apikey", "authorization", "client_secret", "id_token", "password",
        "proxy-authorization", "refresh_token", "refreshtoken", "secret", "token",
    ]

    /// The default rules, plus `extraHeaders`, `extraQueryItems` and `extraJSONFields`.
    public init(extraHeaders: Set<String> = [], extraQueryItems: Set<String> = [], extraJSONFields: Set<String> = []) {
        headers = Self.defaultHeaders.union(extraHeaders.map { $0.lowercased() })
        queryItems = Self.defaultQueryItems.union(extraQueryItems.map { $0.lowercased() })
        jsonFields = Self.defaultJSONFields.union(extraJSONFields.map { $0.lowercased() })
    }

    /// Rules that redact nothing (for recordings that must keep every byte).
    public static let none = Redactor(headers: [], queryItems: [], jsonFields: [])

    /// Exactly these rules, without the defaults.
    public init(headers: Set<String>, queryItems: Set<String>, jsonFields: Set<String>) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
        self.jsonFields = Set(jsonFields.map { $0.lowercased() })
    }

    /// The interaction with secrets replaced in the request and the response (headers, query, JSON
    /// bodies — inside compressed wire bodies too, with `Content-Length` kept right).
    public func redact(_ interaction: Interaction) -> Interaction {
        var copy = interaction
        copy.request = redact(copy.request)
        if case var .response(response) = copy.outcome {
            response.headers = redact(response.headers)
            let contentType = response.headers.value(for: "Content-Type")
            let coding = response.headers.value(for: "Content-Encoding")
            if response.bodyForm == .decoded || coding == nil {
                let body = redactJSON(response.body, contentType: contentType)
                if body != response.body {
                    // A wire body's length header follows the body (a decoded one keeps the wire's).
                    if response.bodyForm == .wire { Self.setContentLength(&response.headers, body.count) }
                    response.body = body
                }
            } else if let plain = try? ContentCoding.decode(response.body, contentEncoding: coding) {
                // Compressed wire bytes: redact inside, compress again only if something changed.
                let redacted = redactJSON(plain, contentType: contentType)
                if redacted != plain, let encoded = try? ContentCoding.encode(redacted, contentEncoding: coding) {
                    Self.setContentLength(&response.headers, encoded.count)
                    response.body = encoded
                }
            }
            copy.outcome = .response(response)
        }
        return copy
    }

    /// The request with secrets replaced in its headers, URL and JSON body.
    public func redact(_ request: RecordedRequest) -> RecordedRequest {
        var copy = request
        copy.url = redact(request.url)
        copy.headers = redact(request.headers)
        copy.body = request.body.map { redactJSON($0, contentType: request.headers.value(for: "Content-Type")) }
        if let body = copy.body, body != request.body { Self.setContentLength(&copy.headers, body.count) }
        return copy
    }

    private static func setContentLength(_ headers: inout [HeaderField], _ length: Int) {
        for position in headers.indices where headers[position].name.caseInsensitiveCompare("Content-Length") == .orderedSame {
            headers[position].value = String(length)
        }
    }

    /// Header fields whose value is a URL: a redirect's target, a body's own address, the page a
    /// request came from. Their secret query items are replaced as the request URL's are, so a
    /// redirect to `/home?token=…` does not keep the token on disk.
    public static let urlHeaders: Set<String> = ["location", "content-location", "referer"]

    /// The fields with secret values replaced (names and order kept); in a URL-valued field
    /// (``urlHeaders``) the secret query items.
    public func redact(_ headers: [HeaderField]) -> [HeaderField] {
        headers.map { field in
            let name = field.name.lowercased()
            if self.headers.contains(name) { return HeaderField(field.name, Self.placeholder) }
            if Self.urlHeaders.contains(name) { return HeaderField(field.name, redactURLText(field.value)) }
            return field
        }
    }

    /// A URL written as text — absolute or relative, as a `Location` field or a JSON link holds
    /// it — with secret query item values replaced; anything else unchanged. Only the secret
    /// items change: the rest of the text keeps its spelling and escapes.
    public func redactURLText(_ text: String) -> String {
        guard !queryItems.isEmpty, text.contains("?"), var components = URLComponents(string: text),
              let items = components.percentEncodedQueryItems,
              items.contains(where: { isSecretQueryItem($0.name) }) else { return text }
        components.percentEncodedQueryItems = items.map { item in
            isSecretQueryItem(item.name) ? URLQueryItem(name: item.name, value: Self.placeholder) : item
        }
        return components.string ?? text
    }

    private func isSecretQueryItem(_ encodedName: String) -> Bool {
        queryItems.contains((encodedName.removingPercentEncoding ?? encodedName).lowercased())
    }

    /// The URL with secret query item values replaced; a query value that is itself a link
    /// (`?next=/account?token=…`, a return address) has its own secret items replaced.
    public func redact(_ url: URL) -> URL {
        guard !queryItems.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.queryItems else {
            return url
        }
        let redacted = items.map { item in
            if queryItems.contains(item.name.lowercased()) { return URLQueryItem(name: item.name, value: Self.placeholder) }
            if let value = item.value, Self.looksLikeLink(value) { return URLQueryItem(name: item.name, value: redactURLText(value)) }
            return item
        }
        guard redacted != items else { return url }
        components.queryItems = redacted
        return components.url ?? url
    }

    /// A JSON body with secret fields replaced (anywhere in the document); other bodies unchanged.
    /// A body is taken as JSON when its type says so or when it looks like JSON (servers that echo
    /// a login as `application/octet-stream` must not leak it). The output keeps key order stable
    /// (sorted), so it is deterministic.
    public func redactJSON(_ body: Data, contentType: String?) -> Data {
        guard !jsonFields.isEmpty, !body.isEmpty, contentType?.lowercased().contains("json") == true || looksLikeJSON(body),
              let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return body
        }
        var changed = false
        let redacted = redactValue(object, changed: &changed)
        guard changed, let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return body
        }
        return data
    }

    private func redactValue(_ value: Any, changed: inout Bool) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, inner) in dictionary {
                if jsonFields.contains(key.lowercased()), !(inner is [String: Any]), !(inner is [Any]) {
                    result[key] = Self.placeholder
                    changed = true
                } else {
                    result[key] = redactValue(inner, changed: &changed)
                }
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactValue($0, changed: &changed) }
        }
        if let text = value as? String, Self.looksLikeLink(text) {
            // A link to another page or resource (`"next": "/items?page=2&access_token=…"`).
            let redacted = redactURLText(text)
            if redacted != text {
                changed = true
                return redacted
            }
        }
        return value
    }

    /// A JSON string that is a link with a query: absolute http(s), or starting with `/`.
    static func looksLikeLink(_ text: String) -> Bool {
        guard text.contains("?") else { return false }
        let lowered = text.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || text.hasPrefix("/")
    }

    private func looksLikeJSON(_ body: Data) -> Bool {
        guard let first = body.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}

/// Looks through a cassette for anything that still looks like a secret.
public enum SecretScanner {
    /// Something that looks like a secret.
    public struct Finding: Hashable, Sendable, CustomStringConvertible {
        /// The entry's position.
        public var entry: Int
        /// Where in the entry (a header, a query item, a JSON path).
        public var place: String
        /// Why it looks like a secret.
        public var reason: String

        /// `entry N (place): reason`.
        public var description: String { "entry \(entry) (\(place)): \(reason)" }
    }

    /// Header names that carry credentials whatever they are called.
    private static let suspiciousNameParts = ["auth", "token", "secret", "password", "api-key", "apikey", "cookie", "session"]

    /// Everything in `cassette` that `rules` (or the defaults) would redact and is stored unredacted,
    /// headers whose names suggest a secret, and any header, query item or body whose value is
    /// shaped like a token.
    public static func scan(_ cassette: Cassette, rules: Redactor = Redactor()) -> [Finding] {
        var findings: [Finding] = []
        for (position, interaction) in cassette.interactions.enumerated() {
            func report(_ place: String, _ reason: String) {
                findings.append(Finding(entry: position, place: place, reason: reason))
            }
            func checkHeaders(_ headers: [HeaderField], _ side: String) {
                for field in headers where field.value != Redactor.placeholder && !field.value.isEmpty {
                    let name = field.name.lowercased()
                    if Redactor.urlHeaders.contains(name), let item = secretQueryItem(inLink: field.value, rules: rules) {
                        report("\(side).headers.\(field.name)", "the URL's query item '\(item)' is a credential stored unredacted")
                    } else if rules.headers.contains(name) || Redactor.defaultHeaders.contains(name) {
                        report("\(side).headers.\(field.name)", "a credential header is stored unredacted")
                    } else if suspiciousNameParts.contains(where: { name.contains($0) }) {
                        report("\(side).headers.\(field.name)", "the header's name suggests a secret")
                    } else if let kind = secretShape(field.value) {
                        report("\(side).headers.\(field.name)", "the value looks like \(kind)")
                    }
                }
            }
            checkHeaders(interaction.request.headers, "request")
            for item in URLComponents(url: interaction.request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
                guard let value = item.value, value != Redactor.placeholder, !value.isEmpty else { continue }
                if rules.queryItems.contains(item.name.lowercased()) || Redactor.defaultQueryItems.contains(item.name.lowercased()) {
                    report("request.url query '\(item.name)'", "a credential query item is stored unredacted")
                } else if Redactor.looksLikeLink(value), let inner = secretQueryItem(inLink: value, rules: rules) {
                    report("request.url query '\(item.name)'", "the link it holds has the credential query item '\(inner)' unredacted")
                } else if let kind = secretShape(value) {
                    report("request.url query '\(item.name)'", "the value looks like \(kind)")
                }
            }
            var bodies: [(String, Data)] = interaction.request.body.map { [("request.body", $0)] } ?? []
            if let response = interaction.response {
                checkHeaders(response.headers, "response")
                let coding = response.headers.value(for: "Content-Encoding")
                if response.bodyForm == .decoded || coding == nil {
                    bodies.append(("response.body", response.body))
                } else if let plain = try? ContentCoding.decode(response.body, contentEncoding: coding) {
                    bodies.append(("response.body (decoded \(coding ?? ""))", plain))
                }
            }
            for (place, body) in bodies {
                guard let text = String(data: body, encoding: .utf8) else { continue }
                let fields = rules.jsonFields.union(Redactor.defaultJSONFields)
                if let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
                    for key in secretFields(in: object, names: fields) {
                        report("\(place) field '\(key)'", "a credential field is stored unredacted")
                    }
                    for item in secretLinkItems(in: object, rules: rules) {
                        report("\(place) link", "a link's query item '\(item)' is a credential stored unredacted")
                    }
                }
                if let kind = secretShape(text) {
                    report(place, "contains what looks like \(kind)")
                }
            }
        }
        return findings
    }

    private static func secretFields(in value: Any, names: Set<String>) -> [String] {
        if let dictionary = value as? [String: Any] {
            return dictionary.keys.sorted().flatMap { key -> [String] in
                let inner = dictionary[key]!
                if names.contains(key.lowercased()), let string = inner as? String, string != Redactor.placeholder, !string.isEmpty {
                    return [key]
                }
                return secretFields(in: inner, names: names)
            }
        }
        if let array = value as? [Any] {
            return array.flatMap { secretFields(in: $0, names: names) }
        }
        return []
    }

    /// The first credential query item of a link (a `Location` value, a JSON link) whose value is
    /// stored unredacted, by the default rules or `rules`.
    private static func secretQueryItem(inLink text: String, rules: Redactor) -> String? {
        guard text.contains("?"), let items = URLComponents(string: text)?.queryItems else { return nil }
        return items.first { item in
            let name = item.name.lowercased()
            guard let value = item.value, !value.isEmpty, value != Redactor.placeholder else { return false }
            return rules.queryItems.contains(name) || Redactor.defaultQueryItems.contains(name)
        }?.name
    }

    private static func secretLinkItems(in value: Any, rules: Redactor) -> [String] {
        if let dictionary = value as? [String: Any] {
            return dictionary.keys.sorted().flatMap { secretLinkItems(in: dictionary[$0]!, rules: rules) }
        }
        if let array = value as? [Any] {
            return array.flatMap { secretLinkItems(in: $0, rules: rules) }
        }
        if let text = value as? String, Redactor.looksLikeLink(text), let item = secretQueryItem(inLink: text, rules: rules) {
            return [item]
        }
        return []
    }

    /// Recognisable secret formats inside a value.
    static func secretShape(_ text: String) -> String? {
        let patterns: [(String, String)] = [
            (#"(?i)bearer\s+[A-Za-z0-9\-._~+/]{8,}=*"#, "a bearer token"),
            (#"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"#, "a JSON Web Token"),
            (#"AKIA[0-9A-Z]{16}"#, "an AWS access key id"),
            (#"gh[pousr]_[A-Za-z0-9]{30,}"#, "a GitHub token"),
            (#"-----BEGIN [A-Z ]*PRIVATE KEY-----"#, "a private key"),
        ]
        for (pattern, kind) in patterns where text.range(of: pattern, options: .regularExpression) != nil {
            return kind
        }
        return nil
    }
}
