import Foundation

/// How text meant for people — a miss explanation, a skipped entry's line, a load note — shows
/// URLs and match reasons: secret query items (and a password in the URL) as REDACTED, a secret
/// header's values not at all, as `tapedeck cassette inspect` shows its table. Such text goes to
/// terminals, 404 bodies, miss logs and CI logs; a file another tool wrote may hold live keys.
struct SecretFreeText {
    private let redactor: Redactor

    /// Shows as secrets the default names and those `redactor` adds (a player's own).
    init(adding redactor: Redactor? = nil) {
        guard let redactor else {
            self.redactor = Redactor()
            return
        }
        self.redactor = Redactor(extraHeaders: redactor.headers, extraQueryItems: redactor.queryItems, extraJSONFields: redactor.jsonFields)
    }

    /// `url` with its secrets as REDACTED.
    func url(_ url: URL) -> String {
        redactor.redact(url).absoluteString
    }

    /// A URL as a file gives it, with its secrets as REDACTED (kept as it is when it does not parse).
    func url(_ text: String) -> String {
        guard text.contains("?") || text.contains("@"), let parsed = URL(string: text) else { return text }
        return url(parsed)
    }

    /// `METHOD URL` of an entry as a line about it shows it (the URL cut at 120 characters, its
    /// secrets as REDACTED unless `showingSecrets`); empty parts left out.
    static func requestLabel(method: String, url: String, showingSecrets: Bool) -> String {
        let shown = showingSecrets ? url : SecretFreeText().url(url)
        return [method, String(shown.prefix(120))].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// A reason of ``MatchRules/mismatches(_:_:)`` as shown: a query difference with the secret
    /// values as REDACTED (saying so when only they differ), a secret header's values left out.
    func reason(_ reason: String, live: URL, recorded: URL) -> String {
        if reason.hasPrefix("query ") {
            let left = query(live), right = query(recorded)
            let order = reason.hasSuffix(" (in this order)") ? " (in this order)" : ""
            let text = "query \(left) ≠ \(right)\(order)"
            return left == right ? text + " (they differ in a secret value, shown as REDACTED)" : text
        }
        let prefix = "header "
        if reason.hasPrefix(prefix), let colon = reason.firstIndex(of: ":") {
            let name = String(reason[reason.index(reason.startIndex, offsetBy: prefix.count)..<colon])
            guard redactor.isSecretHeader(name) else { return reason }
            let rest = reason[reason.index(after: colon)...]
            let left = rest.hasPrefix(" absent ≠") ? "absent" : "a secret value"
            let right = rest.hasSuffix("≠ absent") ? "absent" : (left == "absent" ? "a secret value" : "another secret value")
            return "header \(name): \(left) ≠ \(right) (not shown)"
        }
        return reason
    }

    private func query(_ url: URL) -> String {
        let query = URLComponents(url: redactor.redact(url), resolvingAgainstBaseURL: false)?.percentEncodedQuery
        return query.flatMap { $0.isEmpty ? nil : $0 } ?? "(none)"
    }
}
