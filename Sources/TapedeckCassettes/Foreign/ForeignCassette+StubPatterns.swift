import Foundation

// Stubs that match by pattern (WireMock's urlPathPattern, Hoverfly's glob), read as they are:
// each becomes an interaction whose `pattern` says which requests it answers. Only a file read
// for replay keeps them (`keepsPatterns`); import leaves them out, as HAR cannot hold them.

extension ForeignCassette.StubReader {
    // MARK: WireMock

    /// Whether a WireMock mapping's request matches by pattern: a URL pattern or template, or a
    /// path whose query items are matched otherwise than by equality.
    static func wireMockMatchesByPattern(_ request: ForeignNode) -> Bool {
        if ["urlPattern", "urlPathPattern", "urlPathTemplate"].contains(where: { request[$0] != nil }) { return true }
        guard request["url"] == nil, let parameters = request["queryParameters"] else { return false }
        return parameters.pairs.contains { $0.value["equalTo"] == nil && $0.value["hasExactly"] == nil && $0.value["includes"] == nil }
    }

    /// Whether a WireMock mapping's request has matchers beside its method and URL (headers,
    /// cookies, credentials, a body): WireMock answers only requests that satisfy them, so a file
    /// read as it is keeps them as a pattern (one that names its request when the URL is exact).
    static func wireMockHasMatchers(_ request: ForeignNode) -> Bool {
        ["headers", "cookies", "bodyPatterns"].contains { !(request[$0]?.pairs.isEmpty ?? true) || !(request[$0]?.elements.isEmpty ?? true) }
            || request["basicAuthCredentials"] != nil || request["basicAuth"] != nil
    }

    /// The pattern of a WireMock mapping's request (`method` nil for `ANY`), with its query,
    /// header and body matchers; a matcher this reader does not know is left out, noted.
    mutating func wireMockPattern(_ request: ForeignNode, method: String?, priority: Int?) throws(CassetteError) -> StubPattern {
        var pattern = StubPattern(shown: "")
        pattern.method = method
        pattern.priority = priority ?? 5
        var shown = ""
        if let url = request["url"]?.string {
            pattern.pathAndQuery = .equal(url)
            shown = url
        } else if let regex = request["urlPattern"]?.string {
            pattern.pathAndQuery = .matches(regex: try checked(regex, field: "request.urlPattern", node: request["urlPattern"]))
            shown = "urlPattern \(regex)"
        } else if let path = request["urlPath"]?.string {
            pattern.path = .equal(path)
            shown = path
        } else if let regex = request["urlPathPattern"]?.string {
            pattern.path = .matches(regex: try checked(regex, field: "request.urlPathPattern", node: request["urlPathPattern"]))
            shown = "urlPathPattern \(regex)"
        } else if let template = request["urlPathTemplate"]?.string {
            pattern.path = .template(template)
            shown = "urlPathTemplate \(template)"
        }
        if request["pathParameters"] != nil {
            note("request.pathParameters", "a template's path parameters are not checked: any value of a {name} segment matches")
        }
        pattern.query = try rules(request["queryParameters"], field: "request.queryParameters")
        pattern.headers = try rules(request["headers"], field: "request.headers")
        pattern.cookies = try rules(request["cookies"], field: "request.cookies")
        if let credentials = request["basicAuthCredentials"] ?? request["basicAuth"], let user = credentials["username"]?.string {
            let pair = Data((user + ":" + (credentials["password"]?.string ?? "")).utf8).base64EncodedString()
            pattern.headers.append(StubPattern.Rule(name: "Authorization", value: .equal("Basic " + pair)))
        }
        if let host = request["host"] { pattern.host = try wireMockValue(host, field: "request.host") }
        let bodyPatterns: [ForeignNode] = request["bodyPatterns"]?.elements ?? []
        for (position, matcher) in bodyPatterns.enumerated() {
            if let value = try wireMockValue(matcher, field: "request.bodyPatterns[\(position)]") { pattern.body.append(value) }
        }
        let named = pattern.query.map(\.name) + pattern.headers.map(\.name) + pattern.cookies.map { "cookie " + $0.name }
        pattern.shown = "\(method ?? "ANY") \(shown)" + (named.isEmpty ? "" : " matching \(named.joined(separator: ", "))")
            + (pattern.body.isEmpty ? "" : " and a body")
        return pattern
    }

    /// Rules for each name of a `queryParameters` or `headers` mapping (a `hasExactly` or
    /// `includes` list gives one rule per listed matcher).
    private mutating func rules(_ node: ForeignNode?, field: String) throws(CassetteError) -> [StubPattern.Rule] {
        var rules: [StubPattern.Rule] = []
        for (name, matcher) in node?.pairs ?? [] {
            var listed: [ForeignNode] = [matcher]
            if let list = matcher["hasExactly"] ?? matcher["includes"] { listed = list.elements }
            // `hasExactly`: the name given exactly as many times as the list is long.
            let count = matcher["hasExactly"] != nil ? listed.count : nil
            for each in listed {
                if let value = try wireMockValue(each, field: "\(field).\(name)") { rules.append(StubPattern.Rule(name: name, value: value, count: count)) }
            }
        }
        return rules
    }

    /// WireMock's matcher (`{"equalTo": …}`, `{"matches": …}`, `{"matchesJsonPath": …}`,
    /// `{"and": […]}`, …) as a value; nil, noted, for one this reader does not know (`equalToXml`,
    /// `matchesXPath`, …): it is not checked.
    private mutating func wireMockValue(_ matcher: ForeignNode, field: String) throws(CassetteError) -> StubPattern.Value? {
        if let path = matcher["matchesJsonPath"] { return try wireMockJSONPath(path, field: field) }
        if let json = matcher["equalToJson"] {
            var (order, extra) = (matcher["ignoreArrayOrder"]?.string == "true", matcher["ignoreExtraElements"]?.string == "true")
            // WireMock 1's JSONAssert modes.
            switch matcher["jsonCompareMode"]?.string?.uppercased() {
            case "LENIENT": (order, extra) = (true, true)
            case "NON_EXTENSIBLE": order = true
            case "STRICT_ORDER": extra = true
            default: break
            }
            return .equalJSON(json.string ?? json.jsonText(), ignoringArrayOrder: order, ignoringExtraElements: extra)
        }
        for key in ["and", "or"] {
            guard let list = matcher[key] else { continue }
            var values: [StubPattern.Value] = []
            for (position, each) in list.elements.enumerated() {
                // One part unchecked leaves the whole unchecked (noted by the part).
                guard let value = try wireMockValue(each, field: "\(field).\(key)[\(position)]") else { return nil }
                values.append(value)
            }
            return key == "and" ? .all(values) : .any(values)
        }
        if let inner = matcher["not"] { return try wireMockValue(inner, field: field + ".not").map { .not($0) } }
        if let base64 = matcher["binaryEqualTo"]?.string {
            guard let data = ForeignNode.base64(base64) else { throw bad(field, matcher["binaryEqualTo"], "its binaryEqualTo is not base64") }
            return .bytes(data)
        }
        let ignoringCase = matcher["caseInsensitive"]?.string == "true"
        if let text = matcher["equalTo"]?.string { return .equal(text, ignoringCase: ignoringCase) }
        if let regex = matcher["matches"]?.string { return .matches(regex: try checked(regex, field: field, node: matcher["matches"])) }
        if let regex = matcher["doesNotMatch"]?.string { return .notMatching(regex: try checked(regex, field: field, node: matcher["doesNotMatch"])) }
        if let text = matcher["contains"]?.string { return .contains(text) }
        if matcher["absent"]?.string == "true" { return .absent }
        unknownMatcher(field, matcher.firstKey ?? "a matcher")
        return nil
    }

    /// `matchesJsonPath`: an expression, or `{"expression": …, <matcher>}` whose matcher the
    /// selected value must satisfy; nil, noted, for an expression this reader cannot read.
    private mutating func wireMockJSONPath(_ node: ForeignNode, field: String) throws(CassetteError) -> StubPattern.Value? {
        guard let expression = node.string ?? node["expression"]?.string else {
            unknownMatcher(field, "matchesJsonPath without an expression")
            return nil
        }
        guard JSONPath.compiled(expression) != nil else {
            note(field, "'\(expression)' is a JSONPath expression Tapedeck cannot read: not checked, any body matches")
            return nil
        }
        let rest = node.pairs.filter { $0.key != "expression" }
        guard !rest.isEmpty else { return .jsonPath(expression) }
        guard let then = try wireMockValue(.map(rest, line: node.line), field: field + ".matchesJsonPath") else { return nil }
        return .jsonPath(expression, then: then)
    }

    /// Notes a matcher this reader does not check.
    private mutating func unknownMatcher(_ field: String, _ kind: String) {
        note(field, "matched by \(kind), which Tapedeck does not check: any value matches")
    }

    /// `regex` when it compiles (noted when it nests quantifiers); else an error naming the field.
    private mutating func checked(_ regex: String, field: String, node: ForeignNode?) throws(CassetteError) -> String {
        guard StubPattern.isValid(regex: regex) else { throw bad(field, node, "'\(regex)' is not a regular expression Tapedeck can read (ICU syntax, as Java's)") }
        if StubPattern.nestsQuantifiers(regex) {
            note(field, "'\(regex)' repeats a repeated group: a long request may take seconds to match (write it without the nesting)")
        }
        return regex
    }

    // MARK: Hoverfly

    /// Whether a Hoverfly pair's request matches some field otherwise than exactly.
    static func hoverflyMatchesByPattern(_ request: ForeignNode) -> Bool {
        // No path or no method matcher matches every one (Hoverfly's pair of a destination alone
        // answers any request to that host): no single request stands for it.
        if isAbsentMatcher(request["path"]) || isAbsentMatcher(request["method"]) { return true }
        let fields: [ForeignNode?] = ["path", "destination", "method", "query", "body", "scheme"].map { request[$0] }
        let headers: [ForeignNode?] = (request["headers"]?.pairs ?? []).map(\.value)
        return (fields + headers).contains { matchesByPattern($0) }
    }

    /// Whether a Hoverfly field has no matcher: absent, null, or an empty list.
    private static func isAbsentMatcher(_ node: ForeignNode?) -> Bool {
        guard let node, !node.isNull else { return true }
        if case .list = node { return node.elements.isEmpty }
        return false
    }

    /// Whether a Hoverfly field's matchers are other than exact (a v5 query: any of its names').
    private static func matchesByPattern(_ node: ForeignNode?) -> Bool {
        guard let node, !node.isNull, node.string == nil else { return false }
        if case .map = node {
            if node["exactMatch"] != nil { return false }
            let pairs: [(key: String, value: ForeignNode)] = node.pairs
            return pairs.contains { pair in pair.key.hasSuffix("Match") || matchesByPattern(pair.value) }
        }
        let elements: [ForeignNode] = node.elements
        return elements.contains { element in element.string == nil && (element["matcher"]?.string?.lowercased() ?? "exact") != "exact" }
    }

    /// The pattern of a Hoverfly pair's request (`position`: its priority, so the first pair
    /// that matches answers); matchers this reader does not know (`xpath`, `jsonpath`, `form`, …)
    /// are left out, noted; a regular expression that does not compile leaves the pair out.
    mutating func hoverflyPattern(_ request: ForeignNode, position: Int) throws(CassetteError) -> StubPattern {
        var pattern = StubPattern(shown: "")
        pattern.priority = position
        if case let .equal(method, _)? = try hoverflyValue(request["method"], field: "request.method") { pattern.method = method.uppercased() }
        pattern.host = try hoverflyValue(request["destination"], field: "request.destination")
        pattern.path = try hoverflyValue(request["path"], field: "request.path")
        // Go reads a missing body or query as "": an exact "" (what Hoverfly's capture writes on
        // every GET) matches a request without one.
        if let body = try hoverflyValue(request["body"], field: "request.body") {
            pattern.body = [body == .equal("") ? .any([.equal(""), .absent]) : body]
        }
        if let query = request["query"], case .map = query, !query.pairs.contains(where: { $0.key.hasSuffix("Match") }) {
            for (name, matchers) in query.pairs {
                if let value = try hoverflyValue(matchers, field: "request.query.\(name)") { pattern.query.append(StubPattern.Rule(name: name, value: value)) }
            }
        } else if let query = try hoverflyValue(request["query"], field: "request.query") {
            pattern.pathAndQuery = query == .equal("") ? .matches(regex: "[^?]*\\??") : query.prefixedAnyPath
        }
        for (name, matchers) in request["headers"]?.pairs ?? [] {
            for matcher in matchers.elements {
                if let value = try hoverflyValue(matcher, field: "request.headers.\(name)", single: true) {
                    pattern.headers.append(StubPattern.Rule(name: name, value: value))
                }
            }
        }
        pattern.shown = "\(pattern.method ?? "ANY") \(Self.shown(request["destination"]) ?? "")\(Self.shown(request["path"]) ?? "/*")"
        return pattern
    }

    /// A Hoverfly field's matchers as one value: a string (v1: exact), `{exactMatch|globMatch|
    /// regexMatch: …}` (v2), or a list of `{matcher, value}` (v3 on; `single` for one element of it).
    private mutating func hoverflyValue(_ node: ForeignNode?, field: String, single: Bool = false) throws(CassetteError) -> StubPattern.Value? {
        guard let node, !node.isNull else { return nil }
        if let text = node.string { return .equal(text) }
        var kind: String
        var value: String
        if case .map = node, !single {
            // v2: one key naming the matcher.
            guard let key = node.firstKey, let text = node[key]?.string else { return nil }
            (kind, value) = (key.hasSuffix("Match") ? String(key.dropLast("Match".count)) : key, text)
        } else {
            let matchers = single ? [node] : node.elements
            guard let first = matchers.first, let text = first["value"]?.string else { return nil }
            if matchers.count > 1 { note(field, "\(matchers.count) matchers: only the first is checked") }
            (kind, value) = (first["matcher"]?.string ?? "exact", text)
        }
        kind = kind.lowercased()
        switch kind {
        case "exact": return .equal(value)
        case "glob": return .glob(value)
        case "regex":
            // Hoverfly's regex finds a match anywhere in the value.
            guard StubPattern.isValid(regex: value) else {
                throw bad(field, node, "'\(value)' is not a regular expression Tapedeck can read (ICU syntax; Go's (?P<name>…) is (?<name>…))")
            }
            return .matches(regex: ".*(?:\(value)).*")
        case "json": return .equalJSON(value)
        case "jsonpartial": return .containsJSON(value)
        case "jsonpath":
            guard JSONPath.compiled(value) != nil else {
                note(field, "'\(value)' is a JSONPath expression Tapedeck cannot read: not checked, any value matches")
                return nil
            }
            return .jsonPath(value)
        default:
            unknownMatcher(field, "'\(kind)'")
            return nil
        }
    }

    private static func shown(_ node: ForeignNode?) -> String? {
        guard let node else { return nil }
        if let text = node.string { return text }
        for key in ["exactMatch", "globMatch", "regexMatch"] {
            if let text = node[key]?.string { return text }
        }
        let first: ForeignNode? = node.elements.first
        return first?["value"]?.string
    }
}

extension StubPattern.Value {
    /// This value, as a match of a query, applied to a path and query (`?` then the query, after any path).
    var prefixedAnyPath: StubPattern.Value {
        switch self {
        case let .equal(text, _): .matches(regex: "[^?]*\\?" + NSRegularExpression.escapedPattern(for: text))
        case let .matches(regex): .matches(regex: "[^?]*\\?(?:\(regex))")
        default: self
        }
    }
}
