public import Foundation
public import TapedeckCassettes

/// Where answers come from: a cassette, stubs (tried first, in order), a token server that
/// protects routes, and a live upstream to record from.
public struct Traffic: Hashable, Sendable {
    /// A HAR cassette (`.har` or `.har.gz`) answering what no stub answers.
    public var cassette: CassetteSource?
    /// Stub routes, tried in order before the cassette.
    public var stubs: [Stub]
    /// A token server and the routes it protects.
    public var auth: AuthServer?
    /// A live server to record from (`tapedeck run --record ...`): requests are sent to it with
    /// their scheme, host and port replaced by the upstream's.
    public var upstream: URL?
    /// Test-only hooks (see ``TestHooks``).
    public var testHooks: TestHooks

    /// Traffic with nothing in it.
    public init(cassette: CassetteSource? = nil, stubs: [Stub] = [], auth: AuthServer? = nil, upstream: URL? = nil, testHooks: TestHooks = TestHooks()) {
        self.cassette = cassette
        self.stubs = stubs
        self.auth = auth
        self.upstream = upstream
        self.testHooks = testHooks
    }
}

/// A cassette and how it replays.
public struct CassetteSource: Hashable, Sendable {
    /// The file (resolved against the scenario file's directory).
    public var url: URL
    /// Recorded timings: 1 as recorded, 0 instantly, any other factor scales them.
    public var timingScale: Double
    /// How request URLs match recorded ones.
    public var urlRule: MatchRules.URLRule
    /// How request bodies match.
    public var bodyRule: MatchRules.BodyRule
    /// Header names whose values must match.
    public var headers: [String]
    /// What a request gets once its recorded answers are used up.
    public var afterLast: CassettePlayer.AfterLast

    /// A cassette replayed as recorded, matched by method and URL.
    public init(url: URL, timingScale: Double = 1, urlRule: MatchRules.URLRule = .ignoringQueryOrder, bodyRule: MatchRules.BodyRule = .ignore,
                headers: [String] = [], afterLast: CassettePlayer.AfterLast = .repeatLast) {
        self.url = url
        self.timingScale = timingScale
        self.urlRule = urlRule
        self.bodyRule = bodyRule
        self.headers = headers
        self.afterLast = afterLast
    }

    /// The matching rules this source asks for.
    public var rules: MatchRules { MatchRules(url: urlRule, headers: headers, body: bodyRule) }
}

/// Which requests a stub, a fault or a protected route applies to: a method (nil: any) and a URL
/// pattern — `http://api.test/items`, `http://api.test/items*` (a prefix), `/items*` (any host), `*`.
///
/// URLs are compared as cassettes compare them: scheme and host case, a default port (`:443`),
/// an empty path, a fragment and the case of `%xx` escapes do not matter, so
/// `https://API.test:443/items#top` is `https://api.test/items`. A pattern without a query
/// matches any query; one with a query (and no `*`) matches its items in any order.
public struct RequestPattern: Hashable, Sendable, CustomStringConvertible {
    /// The method, uppercased (nil: any).
    public var method: String?
    /// The URL pattern, as written.
    public var url: String {
        didSet { form = Form(url) }
    }
    /// The pattern as matching reads it, made once from ``url``.
    private var form: Form

    /// A pattern; `url` may end in `*` (a prefix) and may leave out the scheme and host.
    public init(method: String? = nil, url: String = "*") {
        self.method = method?.uppercased()
        self.url = url
        form = Form(url)
    }

    /// Parses `GET http://api.test/items*` or `http://api.test/items` or `*`.
    public init(parsing text: String) {
        // Method and URL are apart by spaces or tabs.
        let parts = text.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if parts.count == 2 {
            self.init(method: parts[0], url: parts[1].trimmingCharacters(in: .whitespaces))
        } else {
            self.init(url: text.trimmingCharacters(in: .whitespaces))
        }
    }

    /// Whether a request with `method` and `url` matches.
    public func matches(method other: String, url target: URL) -> Bool {
        if let method, method != other.uppercased() { return false }
        switch form.kind {
        case .any:
            return true
        case .prefix:
            let (resource, query) = Self.normalised(target, pathOnly: form.pathOnly)
            return (resource + (query.map { "?" + $0 } ?? "")).hasPrefix(form.resource)
        case .whole:
            let (resource, _) = Self.normalised(target, pathOnly: form.pathOnly)
            guard resource == form.resource else { return false }
            // Without a query in the pattern, any query matches.
            guard let items = form.queryItems else { return true }
            return Self.sortedItems(URLComponents(url: target, resolvingAgainstBaseURL: false)) == items
        }
    }

    /// What matching reads of a pattern.
    private struct Form: Hashable, Sendable {
        enum Kind: Hashable, Sendable { case any, prefix, whole }
        var kind: Kind
        /// A path with no scheme and host (`/items*`): any host.
        var pathOnly: Bool
        /// The normalised URL (a prefix's text before `*`, query included; else without the query).
        var resource: String
        /// A whole pattern's query items, decoded and sorted (nil: it has no query).
        var queryItems: [String]?

        init(_ pattern: String) {
            pathOnly = pattern.hasPrefix("/")
            queryItems = nil
            if pattern == "*" {
                kind = .any
                resource = ""
                return
            }
            let prefix = pattern.hasSuffix("*")
            kind = prefix ? .prefix : .whole
            let text = prefix ? String(pattern.dropLast()) : pattern
            guard let components = URLComponents(string: text), pathOnly || (components.scheme != nil && components.host != nil) else {
                resource = text
                return
            }
            let (base, query) = RequestPattern.normalised(components, pathOnly: pathOnly, emptyPathIsRoot: !prefix)
            if prefix {
                resource = base + (query.map { "?" + $0 } ?? (text.hasSuffix("?") ? "?" : ""))
            } else {
                resource = base
                queryItems = components.percentEncodedQuery == nil ? nil : RequestPattern.sortedItems(components)
            }
        }
    }

    /// A URL's scheme, host, port and path normalised (or only its path, for a path pattern), and
    /// its query with escapes upper-cased.
    private static func normalised(_ url: URL, pathOnly: Bool) -> (resource: String, query: String?) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return (url.absoluteString, nil) }
        return normalised(components, pathOnly: pathOnly, emptyPathIsRoot: true)
    }

    private static func normalised(_ components: URLComponents, pathOnly: Bool, emptyPathIsRoot: Bool) -> (resource: String, query: String?) {
        let rawPath = components.percentEncodedPath
        let path = rawPath.isEmpty && emptyPathIsRoot ? "/" : MatchRules.upperCasingEscapes(rawPath)
        let query = components.percentEncodedQuery.map(MatchRules.upperCasingEscapes)
        return (pathOnly ? path : MatchRules.origin(components) + path, query)
    }

    /// Query items as a server reads them, sorted: `?b=2&a=1` is `?a=1&b=2`.
    private static func sortedItems(_ components: URLComponents?) -> [String] {
        MatchRules.readQueryItems(components).map { $0.name + "\u{1F}" + $0.value }.sorted()
    }

    /// `GET http://api.test/items*`.
    public var description: String { (method.map { $0 + " " } ?? "") + url }
}

/// A stub route: requests it matches get its answers, one per request in order (the last one
/// repeats), after its latency.
public struct Stub: Hashable, Sendable {
    /// The requests it answers.
    public var pattern: RequestPattern
    /// The answers, in order; the last repeats.
    public var responses: [StubResponse]
    /// Wait before the first byte.
    public var latency: Duration
    /// Added uniformly at random (from the seed) to the latency.
    public var jitter: Duration
    /// Bytes per virtual second for the body (nil: unlimited).
    public var bandwidth: Int?

    /// A stub answering `pattern` with `responses`.
    public init(pattern: RequestPattern, responses: [StubResponse], latency: Duration = .zero, jitter: Duration = .zero, bandwidth: Int? = nil) {
        self.pattern = pattern
        self.responses = responses
        self.latency = latency
        self.jitter = jitter
        self.bandwidth = bandwidth
    }
}

/// One answer of a stub: a response, or a transport failure.
public struct StubResponse: Hashable, Sendable {
    /// The status (ignored when `failure` is set).
    public var status: Int
    /// Header fields, in order.
    public var headers: [Header]
    /// The body as it goes on the wire (gzip-compressed when `gzip` is set).
    public var body: Data
    /// Compress the body with gzip and say so in `Content-Encoding`.
    public var gzip: Bool
    /// Fail the request with this URLError code instead of answering.
    public var failure: Int?

    /// A response.
    public init(status: Int = 200, headers: [Header] = [], body: Data = Data(), gzip: Bool = false, failure: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.gzip = gzip
        self.failure = failure
    }
}

/// A header field (name and value, in file order).
public struct Header: Hashable, Sendable {
    /// Its name, as written.
    public var name: String
    /// Its value.
    public var value: String

    /// A header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A token server: a token endpoint that issues bearer tokens, and routes that answer 401 to a
/// request without a valid one (valid: issued by this server, younger than `lifetime`, and not
/// revoked by a `tokenExpiry` fault). Requests with a valid token go on to the stubs and the cassette.
public struct AuthServer: Hashable, Sendable {
    /// The token endpoint (answers `{"access_token": "...", "expires_in": seconds}`).
    public var token: RequestPattern
    /// How long a token stays valid.
    public var lifetime: Duration
    /// The routes that need a token.
    public var protect: [RequestPattern]
    /// The token the client starts with (valid from time zero).
    public var initialToken: String

    /// A token server.
    public init(token: RequestPattern, lifetime: Duration = .seconds(3_600), protect: [RequestPattern], initialToken: String = "token-0") {
        self.token = token
        self.lifetime = lifetime
        self.protect = protect
        self.initialToken = initialToken
    }
}
