public import Foundation
import TapedeckHTTP

/// Replaces secrets in interactions before they are stored: header values, query items and JSON
/// body fields, matched by name (case-insensitive) — and, under the default rules, by what a
/// name's words say and by a value's recognisable shape (a JWT, a GitHub token, a bearer token).
/// On by default when recording; replay applies the same rules to live requests before matching,
/// so a redacted value never causes a mismatch.
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
    public var headers: Set<String> { didSet { normalizedHeaders = Self.normalizedSet(headers) } }
    /// Query item names whose values are replaced (lowercased).
    public var queryItems: Set<String>
    /// JSON field names, at any depth, whose values are replaced (lowercased).
    public var jsonFields: Set<String> { didSet { normalizedJSONFields = Self.normalizedSet(jsonFields) } }
    var normalizedHeaders: Set<String>
    var normalizedJSONFields: Set<String>
    /// Also treat as secret a name that reads like one, however it is spelt (case, `-`, `_`, `.`,
    /// brackets and camelCase aside): one whose last word is `secret`, `password`, `passwd`,
    /// `pass`, `pwd`, `passphrase`, `signature`, `credential`, `apikey`, `jwt`, `verifier`, `csrftoken`,
    /// `xsrftoken`, `sessionid`, `jsessionid` or `phpsessid`, `token` (not a page, next, cursor
    /// or continuation token, which replay needs to tell pages apart), `key` after `api`, `auth`,
    /// `access`, `secret`, `private`, `subscription` or `session`, or `id` after `session` —
    /// `X-Session-Token`, `sessionToken`, `X-CSRFToken`, `user[password]`, `session_id`,
    /// `X-Amz-Signature`, `Ocp-Apim-Subscription-Key`, `SecretAccessKey`; and a JSON or form field
    /// named like a secret header (a server echoing `X-Api-Key` in a body), a header named like a
    /// secret JSON field (`access_token`). A JSON field it catches is redacted only when its value
    /// is a string. On for the default rules, off for rules given exactly
    /// (``init(headers:queryItems:jsonFields:)``) and for ``none``.
    public var secretLookingNames: Bool
    /// Cookies whose values are kept in clear in `Cookie` and `Set-Cookie` fields (names compared
    /// exactly): settings a replayed page reads back (`theme`, `lang`, an A/B bucket). Every other
    /// cookie's value is replaced. Empty by default.
    ///
    /// ```swift
    /// var redactor = Redactor()
    /// redactor.keptCookies = ["theme"]   // "theme=dark; sid=REDACTED"
    /// ```
    public var keptCookies: Set<String> = []

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
        secretLookingNames = true
        normalizedHeaders = Self.normalizedSet(headers)
        normalizedJSONFields = Self.normalizedSet(jsonFields)
    }

    /// Rules that redact nothing (for recordings that must keep every byte).
    public static let none = Redactor(headers: [], queryItems: [], jsonFields: [])

    /// The default rules, made once (the secrets check consults them for every name it reads).
    static let standard = Redactor()

    /// The most bytes a compressed body is decoded to, and a JSON body parsed at, to look for
    /// secrets inside: a few kilobytes of gzip can decode to a gigabyte, and parsing that took a
    /// recording proxy to 3 GB of memory. A larger body is stored as it is.
    public static let inspectionLimit = 64 * 1_048_576

    /// Exactly these rules, without the defaults.
    public init(headers: Set<String>, queryItems: Set<String>, jsonFields: Set<String>) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
        self.jsonFields = Set(jsonFields.map { $0.lowercased() })
        secretLookingNames = false
        normalizedHeaders = Self.normalizedSet(self.headers)
        normalizedJSONFields = Self.normalizedSet(self.jsonFields)
    }

    /// The interaction with secrets replaced in the request and the response (headers, query, JSON
    /// bodies — inside compressed wire bodies too, with `Content-Length` kept right), and the
    /// request's redacted values wherever the response body repeats them (docs/cassettes.md, "Echoes").
    public func redact(_ interaction: Interaction) -> Interaction {
        var copy = interaction
        // What the request's rules redact, looked for where the response repeats it.
        let echoes = echoedSecrets(of: interaction.request)
        copy.request = redact(copy.request)
        if case var .response(response) = copy.outcome, response.interruption != nil {
            // A body that broke off: the start of a document (Redaction+Cut.swift).
            response.headers = redact(response.headers)
            copy.outcome = .response(redactCut(response, echoes: echoes))
        } else if case var .response(response) = copy.outcome {
            response.headers = redact(response.headers)
            let contentType = response.headers.value(for: "Content-Type")
            let coding = response.headers.value(for: "Content-Encoding")
            // `identity` (alone or in a list) is no coding: such a body is its own content.
            let plain = response.bodyForm == .decoded || BodyCodings.codings(coding).isEmpty
            if plain, let chunks = response.chunks, BodyChunk.isStreamed(contentType: contentType) {
                // A stream's pieces follow its redacted lines.
                if let (body, refitted) = linePieces(chunks, of: response.body) {
                    if response.bodyForm == .wire { Self.setContentLength(&response.headers, body.count) }
                    response.body = body
                    response.chunks = refitted
                }
            } else if plain {
                let body = redactTokens(Self.replacingEchoes(echoes, in: redactingEscapedStrings(redactBody(response.body, contentType: contentType), echoes: echoes)))
                if body != response.body {
                    // A wire body's length header follows the body (a decoded one keeps the wire's).
                    if response.bodyForm == .wire { Self.setContentLength(&response.headers, body.count) }
                    response.chunks = nil   // only a stream's pieces follow its redaction (above)
                    response.body = body
                }
            } else if let chunks = response.chunks, BodyChunk.isStreamed(contentType: contentType),
                      let (body, refitted) = gzipLinePieces(chunks, of: response.body, coding: coding) {
                // A gzip stream's pieces follow its redacted lines, each compressed to where it ends.
                Self.setContentLength(&response.headers, body.count)
                response.body = body
                response.chunks = refitted
            } else {
                // Compressed wire bytes (one coding or a list of them): redact inside, compress
                // again only if something changed.
                let body = BodyCodings.transforming(response.body, contentEncoding: coding) { content in
                    redactTokens(Self.replacingEchoes(echoes, in: redactingEscapedStrings(redactBody(content, contentType: contentType), echoes: echoes)))
                }
                if body != response.body {
                    Self.setContentLength(&response.headers, body.count)
                    response.body = body
                    // Compressed again in one piece: the recorded wire pieces no longer exist.
                    response.chunks = nil
                }
            }
            copy.outcome = .response(response)
        }
        return copy
    }

    /// The request with secrets replaced in its headers, URL and body. A body the client
    /// compressed (`Content-Encoding: gzip`, `deflate`, `br`, `zstd` or a list of them) is
    /// decoded, redacted and compressed again with the same codings when something changed.
    public func redact(_ request: RecordedRequest) -> RecordedRequest {
        var copy = request
        copy.url = redact(request.url)
        copy.headers = redact(request.headers)
        let contentType = request.headers.value(for: "Content-Type")
        copy.body = request.body.map { body in
            BodyCodings.transforming(body, contentEncoding: request.headers.value(for: "Content-Encoding")) {
                redactBody($0, contentType: contentType)
            }
        }
        if let body = copy.body, body != request.body { Self.setContentLength(&copy.headers, body.count) }
        return copy
    }

    static func setContentLength(_ headers: inout [HeaderField], _ length: Int) {
        for position in headers.indices where headers[position].name.equalsIgnoringASCIICase("Content-Length") {
            headers[position].value = String(length)
        }
    }

    /// Header fields a replay needs as they were, whatever their value looks like: validators and
    /// trace ids (a JWT-shaped ETag still has to come back to `If-None-Match`).
    static let shapeExemptHeaders: Set<String> = [
        "etag", "if-none-match", "if-match", "x-request-id", "x-correlation-id", "traceparent", "tracestate",
    ]

    /// Header fields whose value is a URL: a redirect's target, a body's own address, the page a
    /// request came from. Their secret query items are replaced as the request URL's are, so a
    /// redirect to `/home?token=…` does not keep the token on disk.
    public static let urlHeaders: Set<String> = ["location", "content-location", "referer"]

    /// The fields with secret values replaced (names and order kept); in a URL-valued field
    /// (``urlHeaders``) the secret query items.
    public func redact(_ headers: [HeaderField]) -> [HeaderField] {
        headers.map { field in
            let name = field.name.lowercased()
            if name == "cookie" || name == "set-cookie", isSecretHeader(name) {
                return HeaderField(field.name, Self.redactCookies(field.value, setCookie: name == "set-cookie", kept: keptCookies))
            }
            if isSecretHeader(name) { return HeaderField(field.name, Self.placeholder) }
            if Self.urlHeaders.contains(name) { return HeaderField(field.name, redactURLText(field.value)) }
            if name == "link" { return HeaderField(field.name, redactLinkTargets(field.value)) }
            // A credential under a name no rule lists (`X-Authorization: Bearer …`, a proxy's
            // `X-Amzn-Oidc-Data` JWT): the bearer token, or the whole value, by its shape.
            if redactsByShape(headerName: name, value: field.value) {
                let bearer = String(decoding: Self.replacingBearerTokens(in: Data(field.value.utf8)), as: UTF8.self)
                return HeaderField(field.name, bearer != field.value ? bearer : Self.placeholder)
            }
            return field
        }
    }

    /// A `Link` field (RFC 8288: `<https://api.test/items?page=2&access_token=…>; rel="next", …`)
    /// with the secret query items of each `<target>` replaced, as in a `Location` field.
    func redactLinkTargets(_ value: String) -> String {
        var result = ""
        var copied = value.startIndex
        for target in Self.linkTargetRanges(value) {
            result += value[copied..<target.lowerBound] + redactURLText(String(value[target]))
            copied = target.upperBound
        }
        return result + value[copied...]
    }

    /// Where the targets of a `Link` field's `<…>` are (the brackets excluded).
    static func linkTargetRanges(_ value: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var rest = value[...]
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            ranges.append(value.index(after: open)..<close)
            rest = rest[close...]
        }
        return ranges
    }

    /// A URL written as text — absolute or relative, as a `Location` field or a JSON link holds
    /// it — with secret query item values replaced; anything else unchanged. Only the secret
    /// items change: the rest of the text keeps its spelling and escapes.
    public func redactURLText(_ text: String) -> String {
        redactURLText(text, depth: 0)
    }

    /// How deep links inside query values are followed (`?next=/login?return=/account?token=…`).
    private static let linkDepth = 4

    private func redactURLText(_ text: String, depth: Int) -> String {
        let hasQuery = text.utf8.contains(UInt8(ascii: "?")), hasUser = text.utf8.contains(UInt8(ascii: "@"))
        let hasFragment = text.utf8.contains(UInt8(ascii: "#"))
        guard hasQuery || hasUser || hasFragment, var components = URLComponents(string: text) else { return text }
        var changed = false
        if hasUser, redactUserInfo(&components) { changed = true }
        if hasQuery, !queryItems.isEmpty || secretLookingNames, let items = components.percentEncodedQueryItems,
           let redacted = redactQueryItems(items, depth: depth) {
            components.percentEncodedQueryItems = redacted
            changed = true
        }
        // A fragment spelt as a query: OAuth's implicit flow returns `#access_token=…&state=…`.
        if hasFragment, !queryItems.isEmpty || secretLookingNames, let fragment = components.percentEncodedFragment,
           fragment.utf8.contains(UInt8(ascii: "=")) {
            var parts = URLComponents()
            parts.percentEncodedQuery = fragment
            if let items = parts.percentEncodedQueryItems, let redacted = redactQueryItems(items, depth: depth) {
                parts.percentEncodedQueryItems = redacted
                if let text = parts.percentEncodedQuery {
                    components.percentEncodedFragment = text
                    changed = true
                }
            }
        }
        return changed ? components.string ?? text : text
    }

    /// Replaces the credentials in a URL's user part, saying whether it did: the password of
    /// `http://user:password@host/` (what an Authorization field would carry), and — under the
    /// default rules — a user name that is itself a token (`https://ghp_…@github.com/`, or
    /// `https://ghp_…:x-oauth-basic@…`, as git remotes carry one; ``isTokenUser(_:)``).
    private func redactUserInfo(_ components: inout URLComponents) -> Bool {
        guard isSecretHeader("authorization") else { return false }
        var changed = false
        if let password = components.percentEncodedPassword, !password.isEmpty, password != Self.placeholder {
            components.percentEncodedPassword = Self.placeholder
            changed = true
        }
        if secretLookingNames, let user = components.percentEncodedUser, user != Self.placeholder, Self.isTokenUser(user) {
            components.percentEncodedUser = Self.placeholder
            changed = true
        }
        return changed
    }

    /// Whether a URL's user name is a token rather than a name: a recognisable secret format, or
    /// 20 bytes or more of letters, digits, `_` and `-` only, with letters and digits both
    /// (`first.last%40company.com` is a name: it has `.` and `%`).
    static func isTokenUser(_ user: String) -> Bool {
        if SecretScanner.secretShape(user) != nil { return true }
        let tokenBytes = user.utf8.allSatisfy { byte in
            (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte >= 0x30 && byte <= 0x39 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return tokenBytes && user.utf8.count >= 20 && looksLikeToken(user)
    }

    /// Whether a value under a name no rule lists is still a secret by its shape (a JSON Web
    /// Token, a GitHub token, an AWS access key id, a private key), under the default rules.
    func hasSecretShape(_ value: String) -> Bool {
        secretLookingNames && value.utf8.count >= 16 && SecretScanner.secretShape(value) != nil
    }

    /// Whether a header's value (`name` lowercased) is redacted for its shape: not in a field a
    /// client reads as sent (an auth challenge) nor in a validator or trace id.
    func redactsByShape(headerName name: String, value: String) -> Bool {
        !Self.notSecretHeaders.contains(name) && !Self.shapeExemptHeaders.contains(name) && hasSecretShape(value)
    }

    /// Whether a query item's value is redacted for its shape: not under a name that says it is a
    /// position in a list (`cursor`, `page_token`, `next`, `after`…), which replay needs to tell
    /// pages apart however token-like the cursor (an API may hand out a signed JWT as one).
    func redactsByShape(queryName name: String, value: String) -> Bool {
        hasSecretShape(value) && !Self.namesPosition(MatchRules.formDecoded(name))
    }

    /// `items` (as spelt) with secret values replaced, and the secret items of values that are
    /// links themselves (a return address: `?return=/account?token=…`, escaped or not, links
    /// within links to ``linkDepth``) replaced in place; nil when nothing changes.
    private func redactQueryItems(_ items: [URLQueryItem], depth: Int) -> [URLQueryItem]? {
        var changed = false
        let redacted = items.map { item in
            if isSecretQueryItem(item.name) || item.value.map({ redactsByShape(queryName: item.name, value: $0) }) == true {
                guard item.value != Self.placeholder else { return item }
                changed = true
                return URLQueryItem(name: item.name, value: Self.placeholder)
            }
            if depth < Self.linkDepth, let spelt = item.value, let value = spelt.removingPercentEncoding, Self.looksLikeLink(value) {
                let link = redactURLText(value, depth: depth + 1)
                if link != value {
                    changed = true
                    // Written back as it was spelt: escaped when it came escaped, raw when raw.
                    let escaped = spelt != value
                    return URLQueryItem(name: item.name, value: escaped ? link.addingPercentEncoding(withAllowedCharacters: Self.queryValueCharacters) : link)
                }
            }
            return item
        }
        return changed ? redacted : nil
    }

    /// What a query value may hold unescaped: the unreserved characters and `/`, `:`, `@`, `?`
    /// (RFC 3986 §3.4), not `&`, `=`, `+` or `%`.
    static let queryValueCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:@?")

    private func isSecretQueryItem(_ encodedName: String) -> Bool {
        isSecretQueryName(MatchRules.formDecoded(encodedName))
    }

    /// A body with its secrets replaced: JSON fields (``redactJSON(_:contentType:)``), or the
    /// fields of an HTML form (`application/x-www-form-urlencoded`) named as secret query items
    /// are (`password=…`), the rest of the form's text kept as it was spelt; or, in a
    /// `multipart/form-data` body, the values of such fields and the secrets of its JSON parts,
    /// every other part (an uploaded file) kept byte for byte.
    ///
    /// Whatever the type says, JSON where `tapedeck cassette validate` finds it is redacted too
    /// (what validate calls a credential, redact removes): a JSON body sent as a form (curl's `-d`
    /// labels every body so), lines of JSON under a JSON or text type, a document after an
    /// anti-hijacking first line (`)]}'`), a JSONP call under any type.
    public func redactBody(_ body: Data, contentType: String?) -> Data {
        // A multipart upload's fields, part by part; its files are kept byte for byte.
        if let multipart = redactMultipart(body, contentType: contentType) { return multipart }
        if BodyChunk.isStreamed(contentType: contentType) {
            let lines = redactLines(body)
            // A JSONP call or a prefixed document under a stream's type: the shapes lines do not cover.
            return Self.jsonpArgument(lines) == nil && Self.antiHijackingPrefix(lines) == nil ? lines : redactJSON(lines, contentType: nil)
        }
        // A form's fields, then what validate reads as JSON whatever the type (curl's -d sends
        // JSON as a form).
        if Self.isForm(contentType) { return looksLikeJSON(body) ? redactJSON(body, contentType: "application/json") : redactJSON(redactForm(body), contentType: nil) }
        // JSON by type or by look, a JSONP call, lines of JSON: redactJSON reads every shape.
        return redactJSON(body, contentType: contentType)
    }

    /// The URL with secret query item values replaced; a query value that is itself a link
    /// (`?next=/account?token=…`, a return address) has its own secret items replaced. A password
    /// in the user part (`http://bob:…@host/`) is replaced whenever `Authorization` is redacted.
    public func redact(_ url: URL) -> URL {
        // No query and no user part: nothing to look at (most URLs; this runs for every exchange).
        let text = url.absoluteString.utf8
        guard text.contains(UInt8(ascii: "?")) || text.contains(UInt8(ascii: "@")),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var changed = false
        if redactUserInfo(&components) { changed = true }
        // Items as spelt (`%2B` stays `%2B`: decoded and encoded again it became `+`, a space to
        // a server); only a redacted value is written anew.
        if !queryItems.isEmpty || secretLookingNames, let items = components.percentEncodedQueryItems,
           let redacted = redactQueryItems(items, depth: 0) {
            components.percentEncodedQueryItems = redacted
            changed = true
        }
        return changed ? components.url ?? url : url
    }
}
