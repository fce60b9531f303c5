public import TapedeckHTTP
public import TapedeckScheduling

/// The steps of an exchange at which faults can be injected.
public enum FaultPoint: Hashable, Sendable, CustomStringConvertible {
    /// Before the connection is made.
    case beforeConnect
    /// When the response head is about to be delivered.
    case responseHead
    /// Before a body chunk: `offset` body bytes already delivered, `size` in this chunk (wire bytes).
    case bodyChunk(offset: Int, size: Int)
    /// When the exchange is about to complete successfully.
    case completion
    /// When metrics are about to be delivered relative to the completion.
    case metricsDelivery

    /// The point's name as traces print it (`bodyChunk(0+16384)`).
    public var description: String {
        switch self {
        case .beforeConnect: return "beforeConnect"
        case .responseHead: return "responseHead"
        case let .bodyChunk(offset, size): return "bodyChunk(\(offset)+\(size))"
        case .completion: return "completion"
        case .metricsDelivery: return "metricsDelivery"
        }
    }
}

/// What a fault hook decides at a ``FaultPoint``.
public enum FaultAction: Hashable, Sendable, CustomStringConvertible {
    /// Carry on as planned.
    case proceed
    /// End the exchange with a transport failure now (any point but `metricsDelivery`).
    case fail(TransportFailure)
    /// Replace the response status (`responseHead` only).
    case overrideStatus(Int)
    /// Deliver this many body bytes in total, then drop the connection (`networkConnectionLost`).
    case resetAfter(bytes: Int)
    /// Never continue: only a timeout ends the exchange.
    case stall
    /// Continue after this much virtual time.
    case delay(Duration)
    /// How metrics reach the client (`metricsDelivery` only).
    case deliverMetrics(MetricsDelivery)
    /// Replace the status and add or replace header fields (`responseHead` only): a 429 or 503
    /// with `Retry-After`, say.
    case overrideResponse(status: Int, headers: [String: String])
    /// Deliver this many body bytes (fewer than the body has), then end as a connection closed
    /// early does on Linux: `URLError.unknown`, "transfer closed with N bytes remaining to read"
    /// (`responseHead` only).
    case truncate(bytes: Int)
    /// The body arrives gzip-encoded but corrupt: the head, no bytes, then the decoding error
    /// URLSession on Linux reports (`responseHead` only).
    case corruptGzip
    /// The body arrives at this many bytes per virtual second (`responseHead` only), in chunks of
    /// a tenth of a second's worth (at most the route's `chunkSize`, at least one byte).
    case throttle(bytesPerSecond: Int)
    /// The client's completion callback is delivered twice (`completion` only).
    case duplicateCompletion
    /// Several actions at one point (`beforeConnect` or `responseHead`): the `delay`s first (they
    /// add up), then the rest together — a slow `503`, a late head with a throttled body. Build it
    /// with ``combining(_:)``; at other points only its delays act (or, without one, its first
    /// `fail` or `stall`).
    case combined([FaultAction])

    /// The action as traces print it (`status 503`, `reset after 100 bytes`).
    public var description: String {
        switch self {
        case .proceed: return "proceed"
        case let .fail(failure): return "fail(\(failure))"
        case let .overrideStatus(status): return "status \(status)"
        case let .resetAfter(bytes): return "reset after \(bytes) bytes"
        case .stall: return "stall"
        case let .delay(duration): return "delay \(duration.compactText)"
        case let .deliverMetrics(delivery): return "metrics \(delivery)"
        case let .overrideResponse(status, headers):
            let fields = headers.keys.sorted().map { "\($0): \(headers[$0]!)" }.joined(separator: ", ")
            return "status \(status)" + (fields.isEmpty ? "" : " [\(fields)]")
        case let .truncate(bytes): return "truncate after \(bytes) bytes"
        case .corruptGzip: return "corrupt gzip"
        case let .throttle(rate): return "throttle \(rate) B/s"
        case .duplicateCompletion: return "duplicate completion"
        case let .combined(parts): return parts.map(\.description).joined(separator: " + ")
        }
    }

    /// One action doing all of `actions`, in order: `.proceed` for none, the action itself for
    /// one, else ``combined(_:)`` (nested combinations and `.proceed`s flattened away).
    ///
    /// ```swift
    /// FaultAction.combining([.delay(.seconds(2)), .overrideStatus(503)])   // a 503, two seconds late
    /// ```
    public static func combining(_ actions: [FaultAction]) -> FaultAction {
        let parts = actions.flatMap(\.parts)
        switch parts.count {
        case 0: return .proceed
        case 1: return parts[0]
        default: return .combined(parts)
        }
    }

    /// The actions it is made of: a combination's parts, nothing for `.proceed`, else itself.
    public var parts: [FaultAction] {
        switch self {
        case .proceed: return []
        case let .combined(parts): return parts.flatMap(\.parts)
        default: return [self]
        }
    }

    /// How long its `delay` parts hold the step up in all (nil: it has none).
    var totalDelay: Duration? {
        let delays = parts.compactMap { part -> Duration? in
            if case let .delay(duration) = part { return duration }
            return nil
        }
        return delays.isEmpty ? nil : delays.reduce(.zero, +)
    }

    /// What acts once its delays are over: the parts that are not delays (`.proceed` for none).
    var afterDelays: FaultAction {
        .combining(parts.filter {
            if case .delay = $0 { return false }
            return true
        })
    }
}

/// How a task's metrics reach its client, relative to the completion callback.
public enum MetricsDelivery: String, Hashable, Sendable {
    /// Delivered before the completion callback (what Alamofire's ledger expects first).
    case beforeCompletion
    /// Delivered after the completion callback (the ledger waits for them).
    case afterCompletion
    /// Never delivered (a transport that promised metrics and broke the promise).
    case missing
    /// Delivered twice, before and after the completion.
    case duplicate
}

/// What a fault hook sees of the exchange.
public struct FaultContext: Sendable {
    /// The exchange's number on its network.
    public let exchange: Int
    /// 0 for the request itself, n for the n-th followed redirect.
    public let transaction: Int
    /// The request of the current transaction.
    public let request: RequestSnapshot
    /// Which attempt of its request this exchange is, from 1: the exchanges so far with the same
    /// tag (see ``ExchangeOptions/tag``), or with the same method and URL when untagged.
    public let attempt: Int
    /// The tag the client gave the request (a scenario's request name), if any.
    public let tag: String?
    /// The response head, from `responseHead` on.
    public let head: ResponseHead?
    /// The virtual instant of the fault point.
    public let time: VirtualInstant
    /// At `responseHead`: how many body bytes the wire will carry, when known without encoding
    /// the body (a cut at or past it changes nothing, so a hook may leave the point to another fault).
    public let bodyBytes: Int?

    /// What a hook sees (the network builds these; tests may too).
    public init(exchange: Int, transaction: Int = 0, request: RequestSnapshot, attempt: Int = 1, tag: String? = nil,
                head: ResponseHead? = nil, time: VirtualInstant, bodyBytes: Int? = nil) {
        self.exchange = exchange
        self.transaction = transaction
        self.request = request
        self.attempt = attempt
        self.tag = tag
        self.head = head
        self.time = time
        self.bodyBytes = bodyBytes
    }
}

/// Consulted at each step of every exchange; the catalogue of faults plugs in here.
///
/// `random` is the network's seeded `network.faults` stream: draw from it (and only it) so that a
/// seed reproduces every fault.
public protocol FaultHook: Sendable {
    /// What to do at `point` of the exchange `context` describes; draw only from `random`.
    func action(at point: FaultPoint, context: FaultContext, random: inout SeededGenerator) -> FaultAction

    /// Told when an action this hook chose at `point` of exchange `exchange` turned out to change
    /// nothing: a reset or a truncation at or past the body's length on the wire, so the whole body
    /// arrived. (The default does nothing.)
    func actionHadNoEffect(_ action: FaultAction, at point: FaultPoint, exchange: Int)
}

extension FaultHook {
    /// Does nothing (a hook that keeps no record of its firings has nothing to take back).
    public func actionHadNoEffect(_ action: FaultAction, at point: FaultPoint, exchange: Int) {}
}

/// A fault hook backed by a closure.
public struct ClosureFaultHook: FaultHook {
    /// Decides at each fault point (see ``FaultHook/action(at:context:random:)``).
    public typealias Decide = @Sendable (FaultPoint, FaultContext, inout SeededGenerator) -> FaultAction
    let decide: Decide

    /// A hook that calls `decide` at every fault point.
    public init(_ decide: @escaping Decide) {
        self.decide = decide
    }

    /// Calls the closure.
    public func action(at point: FaultPoint, context: FaultContext, random: inout SeededGenerator) -> FaultAction {
        decide(point, context, &random)
    }
}

/// Simple rules: at a kind of point, for matching requests, with an integer probability, act.
public struct FaultRules: FaultHook {
    /// A kind of fault point, without the details a ``FaultPoint`` carries.
    public enum PointKind: Hashable, Sendable {
        /// The kinds, one per ``FaultPoint`` case.
        case beforeConnect, responseHead, bodyChunk, completion, metricsDelivery

        func matches(_ point: FaultPoint) -> Bool {
            switch (self, point) {
            case (.beforeConnect, .beforeConnect), (.responseHead, .responseHead), (.bodyChunk, .bodyChunk),
                (.completion, .completion), (.metricsDelivery, .metricsDelivery):
                return true
            default:
                return false
            }
        }
    }

    /// One rule: where, for which requests, what, and how often.
    public struct Rule: Hashable, Sendable {
        /// The kind of point the rule acts at.
        public var point: PointKind
        /// The requests the rule applies to.
        public var matcher: RouteMatcher
        /// What happens when the rule fires.
        public var action: FaultAction
        /// Fires with probability `numerator / denominator` (drawn from the seeded stream).
        public var numerator: Int
        /// The denominator of the rule's probability.
        public var denominator: Int
        /// Only exchanges numbered `1...limit` are candidates (nil: all).
        public var limit: Int?

        /// A rule acting at `point` with `action` for requests `matcher` accepts, with `probability` (numerator, denominator), on exchanges up to `limit`.
        public init(
            _ point: PointKind, _ action: FaultAction, matching matcher: RouteMatcher = .any,
            probability: (Int, Int) = (1, 1), limit: Int? = nil
        ) {
            self.point = point
            self.matcher = matcher
            self.action = action
            self.numerator = probability.0
            self.denominator = probability.1
            self.limit = limit
        }
    }

    /// The rules, tried in order; the first that fires decides.
    public let rules: [Rule]

    /// Rules tried in this order.
    public init(_ rules: [Rule]) {
        self.rules = rules
    }

    /// The first matching rule that fires (a seeded draw per candidate), else `.proceed`.
    public func action(at point: FaultPoint, context: FaultContext, random: inout SeededGenerator) -> FaultAction {
        for rule in rules where rule.point.matches(point) && rule.matcher.matches(context.request) {
            if let limit = rule.limit, context.exchange > limit { continue }
            if random.chance(rule.numerator, in: rule.denominator) { return rule.action }
        }
        return .proceed
    }
}
