public import Dispatch
public import TapedeckClient
public import TapedeckScheduling
import Synchronization
#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Sends targets through a TapedeckClient `Session`, in the shape of Moya's `MoyaProvider` (which is
/// also its name here: ``MoyaProvider``): target → ``Endpoint`` (endpoint closure) → URLRequest
/// (request closure) → the session, or a stub answered on the session's scheduler; plugins around
/// every request; in-flight de-duplication.
///
/// Made as Moya's is — every argument optional, in Moya's order — it sends through
/// ``defaultAlamofireSession()``: live, or inside a test bound to a tape (TapedeckTesting's
/// `.cassette` trait) the tape's simulated network. Given a session made on a `SimulatedScheduler`,
/// every step — stubs and their delays included — runs on its virtual clock, in an order that
/// depends only on the seed:
///
/// ```swift
/// let provider = MoyaProvider<GitHub>(plugins: [NetworkLoggerPlugin(configuration: .init(logOptions: .verbose))])
///
/// let scheduler = SimulatedScheduler(seed: 7)
/// let session = Session(provider: Harness(network: SimulatedNetwork(scheduler: scheduler)), scheduler: scheduler)
/// let stubbed = MoyaProvider<GitHub>(stubClosure: MoyaProvider.delayedStub(5), session: session)
/// stubbed.request(.zen) { result in
///     print((try? result.get().mapString()) ?? "")   // at t = 5 s, in microseconds of wall time
/// }
/// try scheduler.runUntilIdle()
/// ```
///
/// Completions run on the callback queue: the one given to `request`, else the provider's
/// ``callbackQueue``, else the session's `defaultResponseQueue` (its rootQueue unless the session
/// was given another) — never a main queue. A `DispatchQueue` given where Moya takes one stands
/// for a queue of the session's scheduler (`Session.queue(standingFor:)`): live, work runs on that
/// DispatchQueue; simulated, on a simulated queue with its label.
///
/// The class is open, as Moya's is: a subclass may bake in its own defaults or override
/// ``endpoint(_:)`` and `request(_:callbackQueue:progress:completion:)` (a test double, say);
/// ``start(_:callbackQueue:)`` and `try await request(_:)` go through that override too.
/// `@unchecked Sendable`: the provider's own state is constants and a `Mutex`; a subclass must keep
/// its own state safe to use from several queues.
open class MoyaProvider<Target: TargetType>: @unchecked Sendable {
    /// Makes the endpoint of a target.
    public typealias EndpointClosure = @Sendable (Target) -> Endpoint
    /// Hands over the URLRequest made from an endpoint, or why none could be made.
    public typealias RequestResultClosure = @Sendable (Result<URLRequest, ProviderError>) -> Void
    /// Makes the URLRequest of an endpoint; may answer later, on any thread.
    public typealias RequestClosure = @Sendable (Endpoint, @escaping RequestResultClosure) -> Void
    /// Decides whether a target is stubbed.
    public typealias StubClosure = @Sendable (Target) -> StubBehavior
    /// Receives a caller's result (the module's ``TapedeckProvider/Completion``).
    public typealias Completion = TapedeckProvider.Completion

    /// Target → endpoint.
    public let endpointClosure: EndpointClosure
    /// Endpoint → URLRequest.
    public let requestClosure: RequestClosure
    /// Target → stub behaviour.
    public let stubClosure: StubClosure
    /// The session requests go through.
    public let session: Session
    /// The plugins, in the order their hooks run.
    public let plugins: [any PluginType]
    /// Whether requests for equal endpoints made while one is in flight share it.
    public let trackInflights: Bool
    /// Where completions run when `request` is given no queue (nil: the session's
    /// `defaultResponseQueue`); a `DispatchQueue` given to the initialiser is the session's queue
    /// standing for it.
    public let callbackQueue: (any SchedulerQueue)?

    let sessionHeaders: [String: String]
    let state = Mutex(State())
    private let creation = Mutex(RequestCreation.requestQueueSync)

    /// A provider, as Moya's initialiser makes one: every argument has a default, in Moya's order.
    ///
    /// ```swift
    /// let provider = MoyaProvider<GitHub>()
    /// let tests = MoyaProvider<GitHub>(stubClosure: MoyaProvider.immediatelyStub, callbackQueue: .main)
    /// ```
    ///
    /// - Parameters:
    ///   - endpointClosure: target → endpoint (default: ``defaultEndpointMapping(for:)``).
    ///   - requestClosure: endpoint → URLRequest (default: ``defaultRequestMapping(for:closure:)``).
    ///   - stubClosure: which targets are stubbed, and how (default: ``neverStub``).
    ///   - callbackQueue: where completions run: the session's queue standing for this one (default:
    ///     the session's `defaultResponseQueue`; Moya's is the main queue).
    ///   - session: the session requests go through; its scheduler runs the stubs and its queues
    ///     the plugins (default: ``defaultAlamofireSession()``, made now).
    ///   - plugins: hooks around every request, in order.
    ///   - trackInflights: share one request among callers of equal endpoints while it is in flight.
    @preconcurrency
    public init(
        endpointClosure: @escaping EndpointClosure = { MoyaProvider.defaultEndpointMapping(for: $0) },
        requestClosure: @escaping RequestClosure = { MoyaProvider.defaultRequestMapping(for: $0, closure: $1) },
        stubClosure: @escaping StubClosure = MoyaProvider.neverStub,
        callbackQueue: DispatchQueue? = nil,
        session: Session = MoyaProvider<Target>.defaultAlamofireSession(),
        plugins: [any PluginType] = [],
        trackInflights: Bool = false
    ) {
        self.session = session
        self.endpointClosure = endpointClosure
        self.requestClosure = requestClosure
        self.stubClosure = stubClosure
        self.callbackQueue = callbackQueue.map { session.queue(standingFor: $0) }
        self.plugins = plugins
        self.trackInflights = trackInflights
        sessionHeaders = Self.headers(of: session)
    }

    /// A provider whose completions run on `callbackQueue`, a queue of the session's scheduler;
    /// otherwise as `init(endpointClosure:requestClosure:stubClosure:callbackQueue:session:plugins:trackInflights:)`.
    @preconcurrency
    public init(
        endpointClosure: @escaping EndpointClosure = { MoyaProvider.defaultEndpointMapping(for: $0) },
        requestClosure: @escaping RequestClosure = { MoyaProvider.defaultRequestMapping(for: $0, closure: $1) },
        stubClosure: @escaping StubClosure = MoyaProvider.neverStub,
        callbackQueue: any SchedulerQueue,
        session: Session = MoyaProvider<Target>.defaultAlamofireSession(),
        plugins: [any PluginType] = [],
        trackInflights: Bool = false
    ) {
        self.session = session
        self.endpointClosure = endpointClosure
        self.requestClosure = requestClosure
        self.stubClosure = stubClosure
        self.callbackQueue = callbackQueue
        self.plugins = plugins
        self.trackInflights = trackInflights
        sessionHeaders = Self.headers(of: session)
    }

    /// A provider sending targets through `session`, the session first (Tapedeck's order; Moya's
    /// puts it after `callbackQueue:`); `callbackQueue` is a queue of the session's scheduler.
    @preconcurrency
    @_disfavoredOverload
    public convenience init(
        session: Session,
        endpointClosure: @escaping EndpointClosure = { MoyaProvider.defaultEndpointMapping(for: $0) },
        requestClosure: @escaping RequestClosure = { MoyaProvider.defaultRequestMapping(for: $0, closure: $1) },
        stubClosure: @escaping StubClosure = MoyaProvider.neverStub,
        callbackQueue: (any SchedulerQueue)? = nil,
        plugins: [any PluginType] = [],
        trackInflights: Bool = false
    ) {
        if let callbackQueue {
            self.init(endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
                      callbackQueue: callbackQueue, session: session, plugins: plugins, trackInflights: trackInflights)
        } else {
            self.init(endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
                      callbackQueue: nil as DispatchQueue?, session: session, plugins: plugins, trackInflights: trackInflights)
        }
    }

    /// The header fields the session's URLSession adds to every request (what plugins see as
    /// `sessionHeaders`).
    private static func headers(of session: Session) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in session.session.configuration.httpAdditionalHeaders ?? [:] {
            headers["\(name)"] = "\(value)"
        }
        return headers
    }

    /// The endpoint of `target` (the endpoint closure's answer). Open, as in Moya.
    open func endpoint(_ target: Target) -> Endpoint {
        endpointClosure(target)
    }

    /// Sends `target` (or stubs it) and calls `completion` once, on the callback queue, with the
    /// result after every plugin's `process` — Moya's designated request method, open as there.
    ///
    /// The endpoint and stub closures run here, on the caller's thread; everything else runs on the
    /// session's queues. The returned ``CancellableToken`` cancels this caller's request.
    ///
    /// - Parameters:
    ///   - target: what to send.
    ///   - callbackQueue: where `completion` runs (the session's queue standing for it); nil: the
    ///     provider's ``callbackQueue``.
    ///   - progress: called on the callback queue as a request sent to the network goes (the body
    ///     sent, for an upload; the body received, for any other request), then once more before
    ///     `completion`: completed, with the response, when it succeeded. Nothing for a stub — as
    ///     Moya does for stubs.
    ///   - completion: told the result once, after every plugin's `process`.
    @preconcurrency
    @discardableResult
    open func request(
        _ target: Target, callbackQueue: DispatchQueue? = .none, progress: ProgressBlock? = .none, completion: @escaping Completion
    ) -> any Cancellable {
        send(target, queue: callbackQueue.map { session.queue(standingFor: $0) }, progress: progress, completion: completion)
    }

    /// `request(_:callbackQueue:progress:completion:)` with the completion on `callbackQueue`, a
    /// queue of the session's scheduler; returns the token itself.
    @preconcurrency
    @discardableResult
    public func request(
        _ target: Target, callbackQueue: any SchedulerQueue, progress: ProgressBlock? = nil, completion: @escaping Completion
    ) -> CancellableToken {
        send(target, queue: callbackQueue, progress: progress, completion: completion)
    }

    /// Registers the caller, joins or opens its flight, and asks the request closure for a new flight's URLRequest.
    func send(_ target: Target, queue callbackQueue: (any SchedulerQueue)?, progress: ProgressBlock?, completion: @escaping Completion) -> CancellableToken {
        let queue = callbackQueue ?? self.callbackQueue ?? session.defaultResponseQueue
        let endpoint = self.endpoint(target)
        let behavior = stubClosure(target)
        let key = trackInflights ? endpoint.identity : nil
        let (caller, flight, isNew) = state.withLock { state in
            state.open(target: target, endpoint: endpoint, key: key, behavior: behavior, queue: queue, progress: progress,
                       completion: completion)
        }
        let token = CancellableToken(label: "CancellableToken(\(endpoint), caller \(caller))") { [self] in
            cancel(caller: caller)
        }
        if isNew {
            requestClosure(endpoint) { [self] result in mapped(flight: flight, result: result) }
        }
        return token
    }

    /// The endpoints in flight (with ``trackInflights``), each with the number of callers waiting for it.
    public var inflightRequests: [Endpoint: Int] {
        state.withLock { state in
            var view: [Endpoint: Int] = [:]
            for id in state.inflight.values {
                guard let record = state.flights[id] else { continue }
                view[record.endpoint] = record.machine.callers.count { $0.status == .waiting }
            }
            return view
        }
    }

    // MARK: the request-creation guard (docs/provider.md, "Why `requestQueue.sync`")

    /// How the provider protects the window between making a session request and installing the
    /// plugins' `willSend` in it.
    package enum RequestCreation: Sendable {
        /// Moya's way: both happen inside `session.requestQueue.sync { }` (inline when the caller
        /// already holds that queue's root), so the setup the session queues runs after both.
        case requestQueueSync
        /// No guard. The caller's thread may lose the processor between the two steps; the
        /// simulation models that as a hop through `preemptionQueue` (another root), so the seed
        /// decides whether the session's setup runs first. For the ordering tests only.
        case unguarded(preemptionQueue: any SchedulerQueue)
    }

    /// The guard in use (``RequestCreation/requestQueueSync`` unless a test changes it).
    package var requestCreation: RequestCreation {
        get { creation.withLock { $0 } }
        set { creation.withLock { $0 = newValue } }
    }
}

extension MoyaProvider where Target == StubbedTarget {
    /// A provider for ``StubbedTarget``s — what a scenario builds from plain values: each target's
    /// own ``StubbedTarget/stubBehavior`` decides whether it is stubbed, and its
    /// ``StubbedTarget/sampleResponse`` is what the stub answers.
    public convenience init(
        session: Session, callbackQueue: (any SchedulerQueue)? = nil, plugins: [any PluginType] = [], trackInflights: Bool = false
    ) {
        self.init(session: session, stubClosure: { $0.stubBehavior }, callbackQueue: callbackQueue, plugins: plugins,
                  trackInflights: trackInflights)
    }
}
