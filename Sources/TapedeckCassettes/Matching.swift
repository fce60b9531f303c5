package import Foundation

/// How a live request is matched against recorded ones. Default: method and URL, with the order of
/// query items ignored. Every rule explains a mismatch in words, for "no match" errors.
///
/// ```swift
/// // GraphQL: every request is POST /graphql, so the JSON body tells them apart.
/// let rules = MatchRules(headers: ["X-Tenant"], body: .json)
/// let player = try CassettePlayer(contentsOf: cassetteURL, rules: rules)
/// ```
public struct MatchRules: Sendable {
    /// How URLs are compared.
    public enum URLRule: Hashable, Sendable {
        /// Scheme, host, port, path and the query items as a multiset (order ignored).
        case ignoringQueryOrder
        /// Scheme, host, port and path (normalised as for every rule), and the query items in
        /// their order: `?a=1&b=2` is not `?b=2&a=1`.
        case exact
        /// Scheme, host, port and path; the query is ignored.
        case ignoringQuery
    }

    /// How bodies are compared. Every rule compares contents: a body the client compressed
    /// (`Content-Encoding: gzip`, `deflate`, `br`, `zstd` or a list of them) is decoded first.
    public enum BodyRule: Hashable, Sendable {
        /// Bodies are not compared (the default).
        case ignore
        /// Byte for byte.
        case raw
        /// As JSON values: key order and whitespace ignored.
        case json
        /// As `application/x-www-form-urlencoded` fields: order ignored.
        case form
        /// As multipart parts (headers and contents), whatever the boundary.
        case multipart
    }

    /// Whether the methods must be equal.
    public var method: Bool
    /// How URLs are compared.
    public var url: URLRule
    /// Header names whose values must match (case-insensitive names).
    public var headers: [String]
    /// How bodies are compared.
    public var body: BodyRule
    /// A last word: nil if it matches, else why not.
    public var custom: (@Sendable (RecordedRequest, RecordedRequest) -> String?)?

    /// Rules; by default method and URL (query order ignored), no headers, no bodies.
    public init(method: Bool = true, url: URLRule = .ignoringQueryOrder, headers: [String] = [], body: BodyRule = .ignore,
                custom: (@Sendable (_ live: RecordedRequest, _ recorded: RecordedRequest) -> String?)? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.custom = custom
    }

    /// Why `live` does not match `recorded` (empty: it matches).
    public func mismatches(_ live: RecordedRequest, _ recorded: RecordedRequest) -> [String] {
        var reasons: [String] = []
        if method && live.method.uppercased() != recorded.method.uppercased() {
            reasons.append("method \(live.method) ≠ \(recorded.method)")
        }
        if let reason = urlMismatch(live.url, recorded.url) { reasons.append(reason) }
        for name in headers {
            let liveValue = live.headers.value(for: name)
            let recordedValue = recorded.headers.value(for: name)
            // A redacted value matches any value — but not no value: a request without
            // `Authorization` is not the recorded one that had it.
            if liveValue != nil, recordedValue != nil, recordedValue == Redactor.placeholder || liveValue == Redactor.placeholder { continue }
            if name.lowercased() == "cookie", liveValue != nil, recordedValue != nil {
                // Cookies as the pairs a server reads: from every Cookie field, in any order
                // (curl's jar and requests send the same cookies in different orders), spaces
                // after `;` or not, a redacted value matching any value. Only names are shown:
                // the values are secrets.
                func joined(_ fields: [HeaderField]) -> String {
                    fields.filter { $0.name.lowercased() == "cookie" }.map(\.value).joined(separator: "; ")
                }
                let (liveCookies, recordedCookies) = (Self.cookiePairs(joined(live.headers)), Self.cookiePairs(joined(recorded.headers)))
                if !Self.fieldsMatch(liveCookies, recordedCookies) {
                    let names = { (pairs: [(name: String, value: String)]) in pairs.map(\.name).joined(separator: ", ") }
                    reasons.append(names(liveCookies) == names(recordedCookies)
                        ? "header Cookie: the value of a cookie differs (\(names(liveCookies)); values not shown)"
                        : "header Cookie: cookies \(names(liveCookies)) ≠ \(names(recordedCookies))")
                }
                continue
            }
            if liveValue != recordedValue {
                reasons.append("header \(name): \(liveValue.map { "'\($0)'" } ?? "absent") ≠ \(recordedValue.map { "'\($0)'" } ?? "absent")")
            }
        }
        if let reason = bodyMismatch(live, recorded) { reasons.append(reason) }
        if reasons.isEmpty, let custom, let reason = custom(live, recorded) { reasons.append(reason) }
        return reasons
    }

    private func urlMismatch(_ live: URL, _ recorded: URL) -> String? {
        let a = URLComponents(url: live, resolvingAgainstBaseURL: false)
        let b = URLComponents(url: recorded, resolvingAgainstBaseURL: false)
        if Self.resource(a) != Self.resource(b) {
            return Self.resourceMismatch(a, b)
        }
        guard url != .ignoringQuery else { return nil }
        var liveItems = Self.readQueryItems(a)
        var recordedItems = Self.readQueryItems(b)
        if url == .ignoringQueryOrder {
            liveItems.sort { ($0.name, $0.value) < ($1.name, $1.value) }
            recordedItems.sort { ($0.name, $0.value) < ($1.name, $1.value) }
        }
        guard Self.fieldsMatch(liveItems, recordedItems) else {
            let order = url == .exact && liveItems.count == recordedItems.count ? " (in this order)" : ""
            return "query \(a?.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 } ?? "(none)") ≠ \(b?.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 } ?? "(none)")\(order)"
        }
        return nil
    }

    /// The `name=value` pairs of a `Cookie` field, sorted by name (the order among cookies of one
    /// name kept), spaces around them dropped.
    static func cookiePairs(_ field: String) -> [(name: String, value: String)] {
        field.split(separator: ";").compactMap { part -> (name: String, value: String)? in
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard !pair.isEmpty else { return nil }
            guard let equals = pair.firstIndex(of: "=") else { return (pair, "") }
            return (String(pair[..<equals]).trimmingCharacters(in: .whitespaces), String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
        }.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
    }

    /// Two lists of decoded fields (query items, form fields) are equal name for name and value for
    /// value, a redacted value (``Redactor/placeholder``) on either side matching any value.
    static func fieldsMatch(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && ($0.value == $1.value || $0.value == Redactor.placeholder || $1.value == Redactor.placeholder) }
    }

    /// The query items a server reads, decoded (``queryItems(_:)``), without empty pairs: `?a=1&`
    /// and `?&a=1` are `?a=1`.
    package static func readQueryItems(_ components: URLComponents?) -> [(name: String, value: String)] {
        queryItems(components).filter { !$0.name.isEmpty || !$0.value.isEmpty }
    }

    /// The fields of an `application/x-www-form-urlencoded` body, decoded as a server reads them
    /// (`%xx` escapes, `+` as a space), without empty pairs, sorted.
    static func formFields(_ body: Data) -> [(name: String, value: String)] {
        String(decoding: body, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: true).compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = formDecoded(String(parts[0]))
            let value = parts.count > 1 ? formDecoded(String(parts[1])) : ""
            return name.isEmpty && value.isEmpty ? nil : (name, value)
        }.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
    }

    /// A URL's query items, decoded as servers read a query: `%xx` escapes, and `+` as a space
    /// (`q=hello+world` and `q=hello%20world` are one query; a literal plus is `%2B`).
    static func queryItems(_ components: URLComponents?) -> [(name: String, value: String)] {
        (components?.percentEncodedQueryItems ?? []).map { item in
            (formDecoded(item.name), formDecoded(item.value ?? ""))
        }
    }

    /// `text` as a form or query spells it, decoded: `%xx` escapes, and `+` as a space.
    static func formDecoded(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "+")) || text.utf8.contains(UInt8(ascii: "%")) else { return text }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        // Escapes that are not UTF-8 (`caf%E9`, a Latin-1 form; a binary value) stay escaped,
        // spelt one way: `%e9` is `%E9`.
        return spaced.removingPercentEncoding ?? upperCasingEscapes(spaced)
    }

    /// Scheme, host, port and path, normalised: what every URL rule requires to be equal. The
    /// scheme and host are lower-cased, a scheme's default port (80, 443) is left out, an empty
    /// path is `/` (a recorded `https://host` is what a client asks for as `https://host/`), and
    /// `%xx` escapes are upper-cased (`%2f` is `%2F`).
    static func resource(_ components: URLComponents?) -> String {
        let path = components?.percentEncodedPath ?? ""
        return origin(components) + (path.isEmpty ? "/" : upperCasingEscapes(path))
    }

    /// One spelling of `url` for every spelling the URL rules take as the same request: the
    /// normalised resource (``resource(_:)``), then the query items as a server reads them,
    /// decoded and sorted (`?b=2&a=caf%c3%a9` and `?a=caf%C3%A9&b=2` are one). A URL already so
    /// spelt, without a query, is its own key.
    package static func canonicalURL(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let items = readQueryItems(components).sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        // Decoded text escaped again where it would read as a separator (`x=1%26y%3D2` is one item).
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "&", with: "%26").replacingOccurrences(of: "=", with: "%3D")
        }
        return resource(components) + (items.isEmpty ? "" : "?" + items.map { escaped($0.name) + "=" + escaped($0.value) }.joined(separator: "&"))
    }

    /// Scheme, host and port normalised as ``resource(_:)`` has them: `https://api.test` for
    /// `HTTPS://API.test:443`.
    package static func origin(_ components: URLComponents?) -> String {
        let scheme = components?.scheme?.lowercased() ?? ""
        var port = components?.port.map { ":\($0)" } ?? ""
        if (scheme == "http" && port == ":80") || (scheme == "https" && port == ":443") { port = "" }
        return "\(scheme)://\(components?.host?.lowercased() ?? "")\(port)"
    }

    /// Which part of two resources differs, the first that does: `scheme https ≠ http`,
    /// `host localhost ≠ 127.0.0.1`, `port 8081 ≠ 8080`, else `path /a ≠ /b`, each with both URLs.
    private static func resourceMismatch(_ a: URLComponents?, _ b: URLComponents?) -> String {
        let schemes = (a?.scheme?.lowercased() ?? "", b?.scheme?.lowercased() ?? "")
        if schemes.0 != schemes.1 { return "scheme \(schemes.0) ≠ \(schemes.1) (URL \(display(a)) ≠ \(display(b)))" }
        let hosts = (a?.host?.lowercased() ?? "", b?.host?.lowercased() ?? "")
        if hosts.0 != hosts.1 { return "host \(hosts.0) ≠ \(hosts.1) (URL \(display(a)) ≠ \(display(b)))" }
        func port(_ components: URLComponents?) -> Int? {
            let scheme = components?.scheme?.lowercased()
            return components?.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
        if port(a) != port(b) { return "port \(port(a).map(String.init) ?? "none") ≠ \(port(b).map(String.init) ?? "none") (URL \(display(a)) ≠ \(display(b)))" }
        let paths = (a?.percentEncodedPath ?? "", b?.percentEncodedPath ?? "")
        return "path \(paths.0.isEmpty ? "/" : paths.0) ≠ \(paths.1.isEmpty ? "/" : paths.1) (URL \(display(a)) ≠ \(display(b)))"
    }

    /// What a "no match" reason shows of a URL's resource: scheme, host, port when it is not the
    /// default, and path.
    private static func display(_ components: URLComponents?) -> String {
        let scheme = components?.scheme?.lowercased() ?? ""
        let port = components?.port.map { (scheme == "http" && $0 == 80) || (scheme == "https" && $0 == 443) ? "" : ":\($0)" } ?? ""
        let path = components?.percentEncodedPath ?? ""
        return "\(scheme)://\(components?.host ?? "")\(port)\(path.isEmpty ? "/" : path)"
    }

    /// `%xx` escapes normalised as RFC 3986 §6.2.2 says they may be: hex digits upper-cased
    /// (`%2f` is `%2F`), and an escaped unreserved character written as itself (`%7E` is `~`,
    /// `%41` is `A`), so that two spellings of one path are one path.
    package static func upperCasingEscapes(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        func isUnreserved(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                let value = high << 4 | low
                if isUnreserved(value) {
                    out.append(value)
                } else {
                    let digits = Array("0123456789ABCDEF".utf8)
                    out.append(contentsOf: [UInt8(ascii: "%"), digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
                }
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func bodyMismatch(_ live: RecordedRequest, _ recorded: RecordedRequest) -> String? {
        if case .ignore = body { return nil }
        // Bodies are compared by content: a compressed upload decoded (its compressed bytes
        // differ from run to run with a gzip header's time, and a redacted one is compressed anew).
        let a = live.content ?? Data()
        let b = recorded.content ?? Data()
        switch body {
        case .ignore:
            return nil
        case .raw:
            if a == b { return nil }
            // A redacted JSON body recorded before redaction edited in place was written back
            // compact with sorted keys: such a body (REDACTED on a side) matches a live one that
            // means the same, as it did then.
            let redacted = Data(Redactor.placeholder.utf8)
            if a.firstRange(of: redacted) != nil || b.firstRange(of: redacted) != nil,
               let left = try? JSONSerialization.jsonObject(with: a, options: [.fragmentsAllowed]),
               let right = try? JSONSerialization.jsonObject(with: b, options: [.fragmentsAllowed]),
               canonicalJSON(left) == canonicalJSON(right) || jsonMatches(left, right) {
                return nil
            }
            return rawMismatch(a, b, live: live, recorded: recorded)
        case .json:
            let left = try? JSONSerialization.jsonObject(with: a, options: [.fragmentsAllowed])
            let right = try? JSONSerialization.jsonObject(with: b, options: [.fragmentsAllowed])
            guard let left, let right else { return a == b ? nil : "body is not JSON on both sides and differs" }
            if canonicalJSON(left) == canonicalJSON(right) { return nil }
            // A field stored redacted matches any value; otherwise the first place they differ is named.
            return jsonDifference(left, right, at: "$").map { "JSON body differs at \($0)" }
        case .form:
            let left = Self.formFields(a), right = Self.formFields(b)
            return Self.fieldsMatch(left, right) ? nil : Self.formMismatch(left, right)
        case .multipart:
            return multipartMismatch(a, live: live, b, recorded: recorded)
        }
    }

    /// Which form field differs first (by name, in sorted order): one side lacks it, or its
    /// values differ (their lengths only: a value may be a secret).
    static func formMismatch(_ live: [(name: String, value: String)], _ recorded: [(name: String, value: String)]) -> String {
        let liveNames = Set(live.map(\.name)), recordedNames = Set(recorded.map(\.name))
        if let missing = recorded.first(where: { !liveNames.contains($0.name) }) {
            return "form fields differ: the recorded body has '\(missing.name)', this one does not"
        }
        if let extra = live.first(where: { !recordedNames.contains($0.name) }) {
            return "form fields differ: this body has '\(extra.name)', the recorded one does not"
        }
        for (mine, theirs) in zip(live, recorded)
        where mine.name != theirs.name || (mine.value != theirs.value && mine.value != Redactor.placeholder && theirs.value != Redactor.placeholder) {
            guard mine.name == theirs.name else { break }
            return "form fields differ: '\(mine.name)' (\(mine.value.count) vs \(theirs.value.count) characters)"
        }
        return "form fields differ (\(live.count) vs \(recorded.count) fields)"
    }

    /// Where two raw bodies part: the sizes, the first differing byte, and a hint when both are
    /// multipart forms (whose boundaries differ from client to client and run to run).
    private func rawMismatch(_ a: Data, _ b: Data, live: RecordedRequest, recorded: RecordedRequest) -> String {
        let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        var text = "body differs (\(a.count) vs \(b.count) bytes, first at byte \(first))"
        if Redactor.multipartParts(a, contentType: live.headers.value(for: "Content-Type")) != nil,
           Redactor.multipartParts(b, contentType: recorded.headers.value(for: "Content-Type")) != nil {
            text += "; both are multipart forms: match bodies as multipart to compare their parts whatever the boundary"
        }
        return text
    }

    /// Which part of two multipart bodies differs, and how (its headers, or its content's size),
    /// or that one of them is not a multipart form; nil when the parts are equal.
    private func multipartMismatch(_ a: Data, live: RecordedRequest, _ b: Data, recorded: RecordedRequest) -> String? {
        let left = Redactor.multipartParts(a, contentType: live.headers.value(for: "Content-Type"))
        let right = Redactor.multipartParts(b, contentType: recorded.headers.value(for: "Content-Type"))
        guard let left, let right else {
            // Not multipart (or no boundary) on one side: compared whole.
            if a == b { return nil }
            switch (left, right) {
            case (nil, nil): return "body differs (neither is a multipart form)"
            case (nil, _): return "body is not a multipart form (no multipart Content-Type with a boundary); the recorded one is"
            default: return "body is a multipart form; the recorded one is not"
            }
        }
        let redacted = Data(Redactor.placeholder.utf8)
        for (index, (mine, theirs)) in zip(left, right).enumerated() where a[mine.whole] != b[theirs.whole] {
            let label = "body part \(index + 1)" + (mine.name.map { " ('\($0)')" } ?? "")
            if a[mine.whole.lowerBound..<mine.content.lowerBound] != b[theirs.whole.lowerBound..<theirs.content.lowerBound] {
                return "\(label) differs in its headers (name, file name or type)"
            }
            // A redacted part (a password field) matches any content.
            if a[mine.content].elementsEqual(redacted) || b[theirs.content].elementsEqual(redacted) { continue }
            return "\(label) differs in its content (\(mine.content.count) vs \(theirs.content.count) bytes)"
        }
        return left.count == right.count ? nil : "body has \(left.count) parts, the recorded one \(right.count)"
    }

    /// How unlike two bodies are, to order the closest entries of a miss: for multipart bodies the
    /// number of parts that differ (and the difference in their counts), else the difference in
    /// size. 0 for equal bodies.
    func bodyGap(_ live: RecordedRequest, _ recorded: RecordedRequest) -> Int {
        let a = live.content ?? Data(), b = recorded.content ?? Data()
        if a == b { return 0 }
        if let left = Redactor.multipartParts(a, contentType: live.headers.value(for: "Content-Type")),
           let right = Redactor.multipartParts(b, contentType: recorded.headers.value(for: "Content-Type")) {
            let differing = zip(left, right).count { a[$0.whole] != b[$1.whole] }
            return differing + abs(left.count - right.count)
        }
        return abs(a.count - b.count) + 1
    }
}
