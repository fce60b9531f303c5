import Foundation
import Synchronization

/// Which names are secrets: the exact lists, and under ``Redactor/secretLookingNames`` the names
/// that read like a secret.
extension Redactor {
    /// Whether a header's value is a secret under these rules.
    public func isSecretHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if headers.contains(lowered) { return true }
        guard secretLookingNames, !Self.notSecretHeaders.contains(lowered) else { return false }
        return Self.readsLikeSecret(name) || normalizedJSONFields.contains(Self.normalized(name))
    }

    /// Whether a query item's (or form field's) value is a secret under these rules.
    public func isSecretQueryName(_ name: String) -> Bool {
        if queryItems.contains(name.lowercased()) { return true }
        guard secretLookingNames else { return false }
        return Self.readsLikeSecret(name) || normalizedHeaders.contains(Self.normalized(name))
    }

    /// Whether a JSON field's value is a secret under these rules: by its exact name (any value
    /// that is not an object or array), or — for a string value — by a name that reads like one.
    ///
    /// A string public by its shape stays under a field named exactly `secret`, `cookie` or
    /// `signature` (not `client_secret`, `password`, a token's or a key's name): GitHub's emoji
    /// list maps `cookie` and `secret` to image links, and a commit's `signature` is a PGP
    /// signature block (see `isPublicByShape(_:)`).
    public func isSecretJSONField(_ name: String, value: Any? = nil) -> Bool {
        let facts = Self.facts(of: name)
        if !jsonFields.contains(facts.lowered) {
            guard secretLookingNames, value == nil || value is String,
                  facts.readsLikeSecret || normalizedHeaders.contains(facts.plain) || normalizedJSONFields.contains(facts.plain) else { return false }
        }
        if let text = value as? String, Self.shapeExemptNames.contains(facts.lowered), secretLookingNames, Self.isPublicByShape(text) { return false }
        return true
    }

    /// The names under which a value public by its shape is kept.
    private static let shapeExemptNames: Set<String> = ["secret", "cookie", "signature"]

    /// Whether a string is public whatever the field holding it is called: one signature block and
    /// nothing else (`-----BEGIN PGP SIGNATURE-----` … `-----END PGP SIGNATURE-----`, or SSH's:
    /// a signature proves, it unlocks nothing), or a link to a static file (an image, a
    /// stylesheet, a font, …) with no user part, no fragment, no query but a version (`v=3`,
    /// GitHub's bare `v8`), and no path segment that could be a token (20 characters or more of letters and
    /// digits both, or one with a `:`, as a bot's token in a file link has).
    static func isPublicByShape(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for kind in ["PGP", "SSH"] where trimmed.hasPrefix("-----BEGIN \(kind) SIGNATURE-----") {
            return trimmed.hasSuffix("-----END \(kind) SIGNATURE-----") && trimmed.components(separatedBy: "-----BEGIN").count == 2
                && trimmed.components(separatedBy: "-----END").count == 2
        }
        let head = text.prefix(8).lowercased()
        guard head.hasPrefix("http://") || head.hasPrefix("https://"), !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "#" }),
              let parts = URLComponents(string: text), parts.user == nil, parts.password == nil, parts.fragment == nil,
              (parts.queryItems ?? []).allSatisfy({ item in
                  // A version: `v=3`, or GitHub's bare `v8`.
                  item.name == "v" && (item.value ?? "").count <= 16 || item.value == nil && item.name.count <= 6 && item.name.hasPrefix("v")
                      && item.name.dropFirst().allSatisfy(\.isNumber)
              }),
              let dot = parts.path.lastIndex(of: "."), !parts.path[dot...].contains("/"),
              staticFileExtensions.contains(parts.path[parts.path.index(after: dot)...].lowercased()) else { return false }
        return !parts.path.split(separator: "/").contains { segment in
            segment.contains(":") || segment.count >= 20 && segment.contains(where: \.isLetter) && segment.contains(where: \.isNumber)
        }
    }

    /// Extensions of files a site serves to anyone: images, styles, scripts, fonts, media.
    private static let staticFileExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "ico", "bmp", "css", "js", "woff", "woff2", "ttf", "otf",
        "mp3", "mp4", "webm", "ogg", "wav",
    ]

    /// What the rules need of a JSON field's name, worked out from the name alone.
    struct NameFacts: Sendable {
        var lowered: String
        var plain: String
        var readsLikeSecret: Bool
    }

    /// Names seen lately and their facts: a JSON-lines body or a list of objects repeats its keys
    /// on every line, and working them out again was most of redacting one (750,000 lines of two
    /// keys: seconds). Bounded, and only short names are kept.
    private static let knownNames = Mutex<[String: NameFacts]>([:])

    /// ``NameFacts`` of `name`, from ``knownNames`` when it was seen.
    static func facts(of name: String) -> NameFacts {
        if let known = knownNames.withLock({ $0[name] }) { return known }
        let facts = NameFacts(lowered: name.lowercased(), plain: normalized(name), readsLikeSecret: readsLikeSecret(name))
        if name.utf8.count <= 64 {
            knownNames.withLock { names in
                if names.count >= 4_096 { names.removeAll(keepingCapacity: true) }
                names[name] = facts
            }
        }
        return facts
    }

    /// Headers a name rule would catch that carry no secret and that clients read (an auth
    /// challenge must reach URLSession as sent).
    static let notSecretHeaders: Set<String> = ["www-authenticate", "proxy-authenticate", "authentication-info"]

    /// Whether a name says its value is a position in a list — a page, a cursor — rather than a
    /// credential: a word of ``notSecretTokens`` or `cursor`, `after`, `before`, `marker`,
    /// `offset` among its words (`cursor`, `page_token`, `nextPageToken`, `after`).
    static func namesPosition(_ name: String) -> Bool {
        words(of: name).contains { notSecretTokens.contains($0) || positionWords.contains($0) }
    }

    private static let positionWords: Set<String> = ["cursor", "after", "before", "marker", "offset", "pagination"]

    /// Words before `token` that make it a position, not a credential.
    private static let notSecretTokens: Set<String> = ["page", "next", "prev", "previous", "continuation", "cursor", "sync", "resume", "max"]
    /// Words before `key` that make it a credential.
    private static let secretKeys: Set<String> = ["api", "auth", "access", "secret", "private", "subscription", "session"]
    private static let secretLastWords: Set<String> = [
        "secret", "password", "passwd", "pass", "pwd", "passphrase", "signature", "credential", "apikey", "jwt",
        // OAuth's proofs: PKCE's `code_verifier`, OAuth 1's `oauth_verifier`.
        "verifier",
        // Frameworks' own spellings: Django's `X-CSRFToken`, Java's and PHP's session cookies' names.
        "csrftoken", "xsrftoken", "sessionid", "jsessionid", "phpsessid",
    ]
    /// What a secret-looking name contains somewhere (a cheap first test).
    private static let secretNeedles = ["secret", "pass", "pwd", "signature", "credential", "key", "token", "jwt", "sessid", "session", "verifier"]

    /// Whether a name's words say it holds a secret (see ``secretLookingNames``).
    static func readsLikeSecret(_ name: String) -> Bool {
        // Most names (Content-Type, Date, id, items) hold none of the words: say so before
        // splitting, which runs for every header and JSON key of every recorded exchange.
        guard secretNeedles.contains(where: { name.containsBytes(of: $0, foldingCase: true) }) else { return false }
        let words = words(of: name)
        guard let last = words.last else { return false }
        let previous = words.count > 1 ? words[words.count - 2] : ""
        if secretLastWords.contains(last) { return true }
        if last == "token" { return !notSecretTokens.contains(previous) }
        if last == "key" { return secretKeys.contains(previous) }
        if last == "id" { return previous == "session" }   // `session_id`, `X-Session-Id`
        return false
    }

    /// A name's words, lowercased: split at `-`, `_`, `.`, spaces, brackets and camelCase humps
    /// (`nextPageToken` → next, page, token; `APIKey` → api, key; `user[password]` → user, password).
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        let bytes = Array(name.utf8)
        func isUpper(_ byte: UInt8) -> Bool { byte >= 65 && byte <= 90 }
        func isLower(_ byte: UInt8) -> Bool { (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) }
        func flush() {
            if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll(keepingCapacity: true)
        }
        for (position, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: " ")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") {
                flush()
                continue
            }
            if isUpper(byte), position > 0 {
                let before = bytes[position - 1]
                let after = position + 1 < bytes.count ? bytes[position + 1] : 0
                if isLower(before) || (isUpper(before) && isLower(after) && !(after >= 48 && after <= 57)) { flush() }
            }
            current.append(isUpper(byte) ? byte + 32 : byte)
        }
        flush()
        return words
    }

    /// A name with case, `-`, `_` and `.` set aside (`X-Api-Key` and `x_api_key` are `xapikey`).
    static func normalized(_ name: String) -> String {
        // On bytes (names are ASCII; anything else passes through): this runs for every header
        // and JSON key of every recorded exchange.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for byte in name.utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: "_") && byte != UInt8(ascii: ".") {
            bytes.append(byte >= 65 && byte <= 90 ? byte + 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func normalizedSet(_ names: Set<String>) -> Set<String> { Set(names.map(normalized)) }
}
