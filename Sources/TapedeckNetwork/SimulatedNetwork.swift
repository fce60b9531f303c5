
public import HTTPTypes
public import TapedeckHTTP
public import TapedeckScheduling
import Synchronization

/// The network a simulated client talks to: routes answered by responders, on virtual time.
///
/// It runs on its own root queue (`tapedeck.network`) of a `SimulatedScheduler`; it knows nothing
/// of URLSession (the URLProtocol bridge drives it through ``start(_:request:options:sink:)`` and
/// hears back through ``ExchangeSink``).
///
/// ```swift
/// let network = SimulatedNetwork(scheduler: scheduler)
/// network.route(.get, host: "api.test", path: "/items", options: RouteOptions(latency: .fixed(.milliseconds(80)))) { _, _ in
///     .response(.json(200, #"{"items":[]}"#))
/// }
/// network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), probability: (1, 4))])
/// ```
public final class SimulatedNetwork: @unchecked Sendable {
    // @unchecked Sendable: configuration lives in `config` (a Mutex); everything else is touched only
    // by jobs on `queue`, i.e. by the scheduler's owner thread, one job at a time.

    /// The scheduler the network runs on.
    public let scheduler: SimulatedScheduler
    /// The network's own root queue: every exchange's work runs here.
    public let queue: SimulatedQueue

    struct Configuration {
        var routes: [Route] = []
        var fallback: Route?
        var faults: (any FaultHook)?
        var choices: (any NetworkChoiceHook)?
    }

    private let config = Mutex(Configuration())

    // Owner-confined (network queue) state.
    var latencyRandom: SeededGenerator
    var faultRandom: SeededGenerator
    var metricsOrderRandom: SeededGenerator
    var exchanges: [Int: Exchange] = [:]
    private let exchangeCounter = Mutex(0)
    var finished: [ExchangeRecord] = []
    private var illegal: [String] = []
    /// Exchanges started so far per tag (or per method and URL when untagged).
    private var attempts: [String: Int] = [:]

    /// A network on `scheduler`, on a root queue named `label`; its random streams derive from the scheduler's seed.
    public init(scheduler: SimulatedScheduler, label: String = "tapedeck.network") {
        self.scheduler = scheduler
        self.queue = scheduler.makeSimulatedQueue(label: label, target: nil)
        self.latencyRandom = scheduler.random.stream("network.latency")
        self.faultRandom = scheduler.random.stream("network.faults")
        self.metricsOrderRandom = scheduler.random.stream("network.metrics-order")
    }

    // MARK: Configuration (any thread)

    /// Adds a route; routes are tried in the order they were added.
    public func add(_ route: Route) {
        config.withLock { $0.routes.append(route) }
    }

    /// Adds a route answered by `responder`.
    public func route(
        _ method: HTTPRequest.Method? = nil, host: String? = nil, path: String? = nil,
        options: RouteOptions = .instant, responder: any Responder
    ) {
        add(Route(RouteMatcher(method: method, host: host, path: path), responder: responder, options: options))
    }

    /// Adds a route answered by a closure (run on the network queue, in simulation order).
    public func route(
        _ method: HTTPRequest.Method? = nil, host: String? = nil, path: String? = nil,
        options: RouteOptions = .instant, handler: @escaping HandlerResponder.Handler
    ) {
        route(method, host: host, path: path, options: options, responder: HandlerResponder(handler))
    }

    /// Adds a route that always answers with `plan`.
    public func stub(
        _ method: HTTPRequest.Method? = nil, host: String? = nil, path: String? = nil,
        options: RouteOptions = .instant, _ plan: ResponsePlan
    ) {
        route(method, host: host, path: path, options: options, responder: StubResponder(plan))
    }

    /// The responder asked when no route matches (a cassette, typically).
    public func setFallback(_ responder: (any Responder)?, options: RouteOptions = .instant) {
        config.withLock { $0.fallback = responder.map { Route(.any, responder: $0, options: options) } }
    }

    /// The fault hook consulted at every step of every exchange (nil: none).
    public var faults: (any FaultHook)? {
        get { config.withLock { $0.faults } }
        set { config.withLock { $0.faults = newValue } }
    }

    /// The hook that sees (and may replace) the seeded jitter and metrics-order choices (nil: the
    /// seed's draws are used as they are).
    public var choices: (any NetworkChoiceHook)? {
        get { config.withLock { $0.choices } }
        set { config.withLock { $0.choices = newValue } }
    }

    /// The hook for seeded choices, read on the network queue.
    var choiceHook: (any NetworkChoiceHook)? { config.withLock { $0.choices } }

    // MARK: Exchanges (on the network queue)

    /// A number for the next exchange, unique on this network (whoever starts exchanges on it).
    public func nextExchangeID() -> Int {
        exchangeCounter.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// Starts exchange `id` (from ``nextExchangeID()``) for `request` now. Must run on ``queue``.
    public func start(_ id: Int, request: RequestSnapshot, options: ExchangeOptions, sink: any ExchangeSink) {
        queue.preconditionCurrent()
        precondition(exchanges[id] == nil, "tapedeck: exchange #\(id) started twice")
        let exchange = Exchange(id: id, request: request, options: options, network: self, sink: sink)
        exchanges[id] = exchange
        exchange.start()
    }

    /// Stops exchange `id` (the client cancelled or suspended its task): no further sink calls.
    /// Returns its metrics so far, or nil when it had already ended. Must run on ``queue``.
    @discardableResult
    public func abandon(_ id: Int) -> AbandonedExchange? {
        queue.preconditionCurrent()
        return exchanges[id]?.abandon()
    }

    /// Exchanges that ended, in the order they ended.
    public var records: [ExchangeRecord] {
        scheduler.withExclusiveAccess { finished }
    }

    /// Exchanges still running.
    public var activeExchangeCount: Int {
        scheduler.withExclusiveAccess { exchanges.count }
    }

    /// Events an exchange's lifecycle found impossible in its state (always empty unless Tapedeck
    /// has a bug; each is also recorded in the trace as `net.illegal`).
    public var illegalTransitions: [String] {
        scheduler.withExclusiveAccess { illegal }
    }

    // MARK: internals used by Exchange

    func routeFor(_ request: RequestSnapshot, context: ResponderContext) -> (Route, Reply) {
        let (routes, fallback) = config.withLock { ($0.routes, $0.fallback) }
        var reasons: [String] = []
        for route in routes where route.matcher.matches(request) {
            let reply = route.responder.reply(to: request, context: context)
            if case let .noMatch(reason) = reply {
                reasons.append("route \(route.matcher): \(reason)")
                continue
            }
            return (route, reply)
        }
        if let fallback {
            let reply = fallback.responder.reply(to: request, context: context)
            if case let .noMatch(reason) = reply {
                reasons.append(reason)
            } else {
                return (fallback, reply)
            }
        }
        let tried = reasons.isEmpty
            ? (routes.isEmpty && fallback == nil ? "the network has no routes" : "no route matches its method, host and path")
            : reasons.joined(separator: "; ")
        return (Route(.any, responder: StubResponder(ResponsePlan(status: 0))), .failure(.noRoute("\(request): \(tried)")))
    }

    func fault(at point: FaultPoint, context: @autoclosure () -> FaultContext) -> FaultAction {
        guard let hook = config.withLock({ $0.faults }) else { return .proceed }
        let action = hook.action(at: point, context: context(), random: &faultRandom)
        if action != .proceed {
            scheduler.record("net.fault", "#\(context().exchange) \(point): \(action)")
        }
        return action
    }

    /// An action `fault(at:context:)` returned changed nothing (a cut past the body): the trace
    /// says so, and the hook takes it off its list of firings.
    func faultHadNoEffect(_ action: FaultAction, at point: FaultPoint, exchange: Int) {
        guard let hook = config.withLock({ $0.faults }) else { return }
        scheduler.record("net.fault", "#\(exchange) \(point): \(action): no effect")
        hook.actionHadNoEffect(action, at: point, exchange: exchange)
    }

    /// The attempt number of a new exchange for `request`: 1 + those started before with the same
    /// tag, or the same method and URL when the request has no tag.
    func nextAttempt(of request: RequestSnapshot, tag: String?) -> Int {
        let key = tag.map { "tag " + $0 } ?? "\(request.method.rawValue) \(request.url.absoluteString)"
        attempts[key, default: 0] += 1
        return attempts[key]!
    }

    func reportIllegalTransition(_ what: String) {
        illegal.append(what)
        scheduler.record("net.illegal", what)
    }

    func exchangeEnded(_ exchange: Exchange, record: ExchangeRecord) {
        exchanges[exchange.id] = nil
        finished.append(record)
    }
}
