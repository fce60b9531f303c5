public import HTTPTypes
public import TapedeckHTTP

/// Which requests a route answers: method (nil = any), host (nil = any, case-insensitive) and path
/// (exact, or a prefix when it ends in `*`; nil = any).
public struct RouteMatcher: Hashable, Sendable, CustomStringConvertible {
    public var method: HTTPRequest.Method?
    public var host: String?
    public var path: String?

    public init(method: HTTPRequest.Method? = nil, host: String? = nil, path: String? = nil) {
        self.method = method
        self.host = host?.lowercased()
        self.path = path
    }

    /// Every request.
    public static let any = RouteMatcher()

    public func matches(_ request: RequestSnapshot) -> Bool {
        if let method, method != request.method { return false }
        if let host, host != request.host { return false }
        if let path {
            if path.hasSuffix("*") {
                return request.path.hasPrefix(String(path.dropLast()))
            }
            return path == request.path
        }
        return true
    }

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
    public var latency: Latency
    /// Connection set-up time (nil: a reused connection, no connect phase).
    public var connect: Duration?
    /// Bytes per virtual second for request and response bodies (nil: unlimited).
    public var bandwidth: Int?
    /// Chunk size used when `bandwidth` spreads a body over time and the plan names no chunks.
    public var chunkSize: Int

    public init(latency: Latency = .none, connect: Duration? = nil, bandwidth: Int? = nil, chunkSize: Int = 16 * 1024) {
        precondition(bandwidth.map { $0 > 0 } ?? true, "bandwidth must be positive")
        precondition(chunkSize > 0, "chunkSize must be positive")
        self.latency = latency
        self.connect = connect
        self.bandwidth = bandwidth
        self.chunkSize = chunkSize
    }

    public static let instant = RouteOptions()
}

/// A route: requests it matches, the responder that answers them, and its timing.
public struct Route: Sendable {
    public let matcher: RouteMatcher
    public let responder: any Responder
    public let options: RouteOptions

    public init(_ matcher: RouteMatcher, responder: any Responder, options: RouteOptions = .instant) {
        self.matcher = matcher
        self.responder = responder
        self.options = options
    }
}

/// A responder that always gives the same plan.
public struct StubResponder: Responder {
    public let plan: ResponsePlan

    public init(_ plan: ResponsePlan) {
        self.plan = plan
    }

    public func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        .response(plan)
    }
}

/// A responder backed by a closure (called on the network's queue, in simulation order).
public struct HandlerResponder: Responder {
    public typealias Handler = @Sendable (RequestSnapshot, ResponderContext) -> Reply
    let handler: Handler

    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    public func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        handler(request, context)
    }
}
