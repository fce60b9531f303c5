public import HTTPTypes
public import TapedeckHTTP

/// Which requests a route answers: method (nil = any), host (nil = any, case-insensitive) and path
/// (exact, or a prefix when it ends in `*`; nil = any).
public struct RouteMatcher: Hashable, Sendable, CustomStringConvertible {
    /// The method to match (nil: any).
    public var method: HTTPRequest.Method?
    /// The host to match, lowercased (nil: any).
    public var host: String?
    /// The path to match: exact (one ending in `/` only that path with its `/`; one without, the
    /// path with or without it), or a prefix when it ends in `*` (nil: any).
    public var path: String?

    /// A matcher; nil parts match anything.
    public init(method: HTTPRequest.Method? = nil, host: String? = nil, path: String? = nil) {
        self.method = method
        self.host = host?.lowercased()
        self.path = path
    }

    /// Every request.
    public static let any = RouteMatcher()

    /// Whether `request` has this method, host and path.
    public func matches(_ request: RequestSnapshot) -> Bool {
        if let method, method != request.method { return false }
        if let host, host != request.host { return false }
        if let path {
            // `URL.path` drops a trailing `/`: the path as written tells `/dav/` from `/dav`.
            let written = request.url.path(percentEncoded: false)
            if path.hasSuffix("*") {
                return (written.isEmpty ? "/" : written).hasPrefix(String(path.dropLast()))
            }
            // A route for `/dav/` answers only `/dav/`; one for `/dav`, either.
            if path.count > 1, path.hasSuffix("/") { return path == written }
            return path == request.path
        }
        return true
    }

    /// `GET api.test/items`, with `*` for what is not constrained.
    public var description: String {
        "\(method?.rawValue ?? "*") \(host ?? "*")\(path ?? "/*")"
    }
}

/// How long the answer takes.
public enum Latency: Hashable, Sendable {
    /// The first byte arrives as soon as the request is sent.
    case none
    /// A fixed wait for the first byte.
    case fixed(Duration)
    /// `base` plus a uniform draw in `0...jitter` from the seeded `network.latency` stream.
    case jittered(base: Duration, jitter: Duration)
    /// The responder's recorded timings (connect, send, wait, receive), multiplied by `scale`
    /// (0 replays instantly, 1 as recorded). Without recorded timings, no wait.
    case recorded(scale: Double)
}

/// Timing options of a route.
public struct RouteOptions: Hashable, Sendable {
    /// How long the first byte takes.
    public var latency: Latency
    /// Connection set-up time (nil: a reused connection, no connect phase).
    public var connect: Duration?
    /// Bytes per virtual second for request and response bodies (nil: unlimited).
    public var bandwidth: Int?
    /// Chunk size used when `bandwidth` spreads a body over time and the plan names no chunks.
    public var chunkSize: Int

    /// The chunk size used unless a route names one: 16 KiB.
    public static let defaultChunkSize = 16 * 1_024

    /// The chunk size that spreads a body over time at `bytesPerSecond`: about a tenth of a
    /// second's worth (so bytes keep arriving, and idle timers keep being reset, while it flows),
    /// at most `limit`, at least one byte.
    ///
    /// ```swift
    /// RouteOptions.chunkSize(forBandwidth: 100)   // 10
    /// ```
    public static func chunkSize(forBandwidth bytesPerSecond: Int, limit: Int = defaultChunkSize) -> Int {
        min(limit, max(1, bytesPerSecond / 10))
    }

    /// Timing options; the defaults answer at once, over a reused connection, without a bandwidth
    /// limit. Without a `chunkSize`, a `bandwidth` gets chunks of a tenth of a second's worth
    /// (``chunkSize(forBandwidth:limit:)``), as a slow link delivers bytes: 16 KiB chunks at 100
    /// bytes a second would leave the client without a byte for 164 s, and its idle timeout would
    /// fire where a real URLSession's does not.
    public init(latency: Latency = .none, connect: Duration? = nil, bandwidth: Int? = nil, chunkSize: Int? = nil) {
        precondition(bandwidth.map { $0 > 0 } ?? true, "bandwidth must be positive")
        precondition(chunkSize.map { $0 > 0 } ?? true, "chunkSize must be positive")
        self.latency = latency
        self.connect = connect
        self.bandwidth = bandwidth
        self.chunkSize = chunkSize ?? bandwidth.map { Self.chunkSize(forBandwidth: $0) } ?? Self.defaultChunkSize
    }

    /// No latency, no connection set-up, unlimited bandwidth.
    public static let instant = RouteOptions()
}

/// A route: requests it matches, the responder that answers them, and its timing.
public struct Route: Sendable {
    /// The requests the route answers.
    public let matcher: RouteMatcher
    /// Who answers them.
    public let responder: any Responder
    /// How long the answers take.
    public let options: RouteOptions

    /// A route: requests `matcher` accepts are answered by `responder` with `options`' timing.
    public init(_ matcher: RouteMatcher, responder: any Responder, options: RouteOptions = .instant) {
        self.matcher = matcher
        self.responder = responder
        self.options = options
    }
}

/// A responder that always gives the same plan.
public struct StubResponder: Responder {
    /// The answer to every request.
    public let plan: ResponsePlan

    /// A responder that always answers with `plan`.
    public init(_ plan: ResponsePlan) {
        self.plan = plan
    }

    /// The plan, whatever the request.
    public func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        .response(plan)
    }
}

/// A responder backed by a closure (called on the network's queue, in simulation order).
public struct HandlerResponder: Responder {
    /// Answers a request (on the network's queue, in simulation order).
    public typealias Handler = @Sendable (RequestSnapshot, ResponderContext) -> Reply
    let handler: Handler

    /// A responder that asks `handler`.
    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// What the closure answers.
    public func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        handler(request, context)
    }
}
