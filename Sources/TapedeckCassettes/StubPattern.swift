public import Foundation
import Synchronization

/// The requests a stub of another tool answers when it names no one request: WireMock's
/// `urlPattern`, `urlPathPattern` and `urlPathTemplate` with their query, header and body
/// matchers, Hoverfly's `glob` and `regex` matchers. An ``Interaction`` with one
/// (``Interaction/pattern``) answers every request it matches, as often as asked, when no
/// recorded interaction does; it exists only while such a file is read as it is (`tapedeck
/// serve mappings/`, a `Tape` over it), since HAR has no way to say it.
///
/// ```swift
/// var users = StubPattern(shown: "GET /users/{id}")
/// users.method = "GET"
/// users.path = .matches(regex: "/users/[^/]+")
/// users.query = [.init(name: "verbose", value: .absent)]
/// users.matches(RecordedRequest(method: "GET", url: URL(string: "http://api.test/users/42")!))   // true
/// ```
public struct StubPattern: Hashable, Sendable, CustomStringConvertible {
    /// How one part of a request (a path, a query item's value, a header's value, a body) is matched.
    public enum Value: Hashable, Sendable {
        /// Equal to the text (ignoring case when said).
        case equal(String, ignoringCase: Bool = false)
        /// Matched as a whole by the regular expression (ICU syntax, as Java's for WireMock).
        case matches(regex: String)
        /// Not matched as a whole by the regular expression (absent counts as not matching).
        case notMatching(regex: String)
        /// Holding the text somewhere.
        case contains(String)
        /// Not there at all (a query item or header the request must not have).
        case absent
        /// The same JSON document as the text (key order and spacing aside; WireMock's
        /// `ignoreArrayOrder` and `ignoreExtraElements` when said, and JsonUnit's placeholders
        /// such as `${json-unit.any-string}`, as WireMock reads them).
        case equalJSON(String, ignoringArrayOrder: Bool = false, ignoringExtraElements: Bool = false)
        /// JSON that holds, in some object at any depth, the members of the JSON object given
        /// (Hoverfly's `jsonPartial`).
        case containsJSON(String)
        /// JSON in which a JSONPath expression selects something (WireMock's `matchesJsonPath`,
        /// Hoverfly's `jsonpath`); with `then`, something selected matches that value instead
        /// (WireMock's `{"expression": …, "equalTo": …}`). Read: `$`, `.name`, `[…]`, `*`, `..`,
        /// `length()`, and filters `[?(…)]` with comparisons, `=~`, `in`, `&&`, `||`.
        indirect case jsonPath(String, then: Value? = nil)
        /// These bytes exactly (WireMock's `binaryEqualTo`; a body only).
        case bytes(Data)
        /// Every one of the values (WireMock's `and`).
        indirect case all([Value])
        /// At least one of the values (WireMock's `or`).
        indirect case any([Value])
        /// Not the value (WireMock's `not`).
        indirect case not(Value)

        /// Whether `value` (nil: the part is not in the request) is matched.
        public func matches(_ value: String?) -> Bool {
            switch (self, value) {
            case (.absent, _): return value == nil
            case let (.notMatching(regex), _): return value.map { !StubPattern.wholeMatch($0, regex) } ?? true
            case let (.not(inner), _): return !inner.matches(value)
            case let (.any(values), _): return values.contains { $0.matches(value) }
            case let (.all(values), _): return values.allSatisfy { $0.matches(value) }
            case (_, nil): return false   // every other condition needs the part
            case let (.equal(text, ignoringCase), value?): return ignoringCase ? value.lowercased() == text.lowercased() : value == text
            case let (.matches(regex), value?): return StubPattern.wholeMatch(value, regex)
            case let (.contains(text), value?): return value.contains(text)
            case let (.equalJSON(text, order, extra), value?):
                return StubPattern.sameJSON(value, text, ignoringArrayOrder: order, ignoringExtraElements: extra)
            case let (.containsJSON(text), value?): return StubPattern.holdsJSON(value, text)
            case let (.jsonPath(expression, then), value?): return StubPattern.selects(expression, in: value, then: then)
            case let (.bytes(data), value?): return Data(value.utf8) == data
            }
        }

        /// Whether a request's body (nil: none) is matched: bytes compared as bytes, anything
        /// else read as UTF-8 text.
        public func matches(body: Data?) -> Bool {
            switch self {
            case let .bytes(data): return body == data
            case let .all(values): return values.allSatisfy { $0.matches(body: body) }
            case let .any(values): return values.contains { $0.matches(body: body) }
            case let .not(inner): return !inner.matches(body: body)
            default: return matches(body.map { String(decoding: $0, as: UTF8.self) })
            }
        }

        /// A glob (`*` any run of characters; nothing else is special, as in Hoverfly's) as a
        /// regular expression matching it whole.
        public static func glob(_ pattern: String) -> Value {
            .matches(regex: pattern.split(separator: "*", omittingEmptySubsequences: false)
                .map { NSRegularExpression.escapedPattern(for: String($0)) }.joined(separator: ".*"))
        }

        /// A path template (`/users/{id}/posts`: a `{name}` is one path segment) as a value.
        public static func template(_ path: String) -> Value {
            var regex = ""
            var rest = Substring(path)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                regex += NSRegularExpression.escapedPattern(for: String(rest[..<open])) + "[^/]+"
                rest = rest[rest.index(after: close)...]
            }
            return .matches(regex: regex + NSRegularExpression.escapedPattern(for: String(rest)))
        }
    }

    /// A named part of a request (a query item, a header) and how its value is matched.
    public struct Rule: Hashable, Sendable {
        /// The query item's or header's name (a header's compared ignoring case).
        public var name: String
        /// How its value is matched (a query item or header given several times: any of them).
        public var value: Value
        /// How many times the name must be given, when the file says exactly (WireMock's
        /// `hasExactly`: one rule per listed matcher, each with the list's length); nil: any.
        public var count: Int?

        /// A rule for `name`.
        public init(name: String, value: Value, count: Int? = nil) {
            self.name = name
            self.value = value
            self.count = count
        }

        /// Whether `values` (every value the request gives the name) satisfy the rule.
        func holds(for values: [String]) -> Bool {
            if let count, values.count != count { return false }
            return values.isEmpty ? value.matches(nil) : values.contains(where: value.matches)
        }
    }

    /// The method (compared ignoring case); nil matches any.
    public var method: String?
    /// The host; nil matches any (WireMock's paths have none; `tapedeck serve` answers any host).
    public var host: Value?
    /// The path as sent (percent escapes kept, no query); nil matches any.
    public var path: Value?
    /// The path and query as sent (`/items?page=2`, WireMock's `urlPattern`); nil matches any.
    public var pathAndQuery: Value?
    /// Query items that must match, each by name.
    public var query: [Rule] = []
    /// Header fields that must match, each by name.
    public var headers: [Rule] = []
    /// Cookies (of the `Cookie` fields) that must match, each by name (WireMock's `cookies`).
    public var cookies: [Rule] = []
    /// Body conditions, all of which must hold (the body read as UTF-8 text, but for ``Value/bytes(_:)``).
    public var body: [Value] = []
    /// Whether the stub names one request, which its interaction's ``Interaction/request`` is
    /// (WireMock's exact `url` with header or body matchers): files written from the cassette
    /// (convert, export) keep it as a recorded interaction, while replay answers by the pattern.
    public var namesItsRequest = false
    /// How the file wrote it, for listings and misses: `GET urlPathPattern /users/[0-9]+`.
    public var shown: String
    /// Which of several patterns matching one request answers: the lowest first (WireMock's
    /// `priority`, 5 when not given); of equal ones, the later in the file, as WireMock's most
    /// recently added stub wins. (A Hoverfly pair's is its position: the first that matches.)
    public var priority = 5

    /// A pattern that matches every request until parts are set; `shown` says what it is.
    public init(shown: String) {
        self.shown = shown
    }

    /// `shown`.
    public var description: String { shown }

    /// Whether `request` (as the client sent it) is one this pattern answers.
    public func matches(_ request: RecordedRequest) -> Bool {
        mismatch(request) == nil
    }

    /// The first part of `request` the pattern does not match, and how far in the checks it is
    /// (the host 0, the path 1, the method 2, the query 3, header fields 4, cookies 5, the body 6:
    /// a miss lists the stubs that came closest first), said whole (`the path does not match`); nil
    /// when it matches. Names only, never a value.
    public func mismatch(_ request: RecordedRequest) -> (depth: Int, part: String)? {
        let parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        if let host, !host.matches(parts?.host ?? request.url.host) { return (0, "the host does not match") }
        let sentPath = parts?.percentEncodedPath.isEmpty == false ? parts!.percentEncodedPath : "/"
        if let path, !path.matches(sentPath) { return (1, "the path does not match") }
        if let pathAndQuery, !pathAndQuery.matches(sentPath + (parts?.percentEncodedQuery.map { "?" + $0 } ?? "")) { return (1, "the path and query do not match") }
        if let method, method.uppercased() != request.method.uppercased() { return (2, "the method is not \(method)") }
        let items = parts?.queryItems ?? []
        for rule in query where !rule.holds(for: items.filter { $0.name == rule.name }.map { $0.value ?? "" }) { return (3, "query item '\(rule.name)' does not match") }
        for rule in headers where !rule.holds(for: request.headers.filter { $0.name.equalsIgnoringASCIICase(rule.name) }.map(\.value)) {
            return (4, "header field '\(rule.name)' does not match")
        }
        if !cookies.isEmpty {
            let sent = request.headers.filter { $0.name.equalsIgnoringASCIICase("Cookie") }.flatMap { MatchRules.cookiePairs($0.value) }
            for rule in cookies where !rule.holds(for: sent.filter { $0.name == rule.name }.map(\.value)) { return (5, "cookie '\(rule.name)' does not match") }
        }
        if !body.isEmpty, !body.allSatisfy({ $0.matches(body: request.body) }) { return (6, "the body does not match") }
        return nil
    }

    /// Whether `regex` compiles (ICU syntax); a file's stub with one that does not is refused.
    public static func isValid(regex: String) -> Bool {
        compiled(regex) != nil
    }

    /// Whether `regex` repeats a group that itself repeats (`(a+)+`, `(\w*)*`): such an
    /// expression can take seconds to fail on a short text, so a stub holding one is noted.
    public static func nestsQuantifiers(_ regex: String) -> Bool {
        regex.range(of: #"\([^()]*[+*}][^()]*\)[+*{]"#, options: .regularExpression) != nil
    }

    /// The longest text a regular expression is run on (UTF-16 units): a longer path, value or
    /// body does not match (a pattern's cost grows with its text, and a server runs it per request).
    public static let longestMatchedText = 64 * 1024

    // MARK: Regular expressions

    /// Compiled expressions, kept (up to 4,096; more are compiled each time): a server matches the
    /// same few on every request.
    private static let cache = Mutex<[String: CompiledRegex]>([:])

    private final class CompiledRegex: @unchecked Sendable {
        // NSRegularExpression is immutable once made and safe to use from any thread.
        let expression: NSRegularExpression?
        // `\z`, not `$`: a trailing line break must not count as the end.
        init(_ pattern: String) { expression = try? NSRegularExpression(pattern: "^(?:" + pattern + ")\\z", options: [.dotMatchesLineSeparators]) }
    }

    private static func compiled(_ regex: String) -> NSRegularExpression? {
        if let known = cache.withLock({ $0[regex] }) { return known.expression }
        let made = CompiledRegex(regex)
        cache.withLock { cache in
            if cache.count < 4_096 { cache[regex] = made }
        }
        return made.expression
    }

    static func wholeMatch(_ value: String, _ regex: String) -> Bool {
        guard value.utf16.count <= longestMatchedText, let expression = compiled(regex) else { return false }
        return expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}
