public import TapedeckClient
public import TapedeckScheduling
import Synchronization
#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Sends targets through a TapedeckClient `Session`, in the shape of Moya's `MoyaProvider`:
/// target → ``Endpoint`` (endpoint closure) → URLRequest (request closure) → the session, or a stub
/// answered on the session's scheduler; plugins around every request; in-flight de-duplication.
///
/// Simulated, every step — stubs and their delays included — runs on the `SimulatedScheduler`'s
/// virtual clock, in an order that depends only on the seed:
///
/// ```swift
/// let scheduler = SimulatedScheduler(seed: 7)
/// let session = Session(provider: Harness(network: SimulatedNetwork(scheduler: scheduler)), scheduler: scheduler)
/// let provider = TargetProvider<GitHub>(session: session, stubClosure: TargetProvider.delayedStub(5),
///                                       plugins: [NetworkLoggerPlugin(logger: Logger(label: "api"))])
/// provider.request(.zen) { result in
///     print(try? result.get().mapString())   // at t = 5 s, in microseconds of wall time
/// }
/// try scheduler.runUntilIdle()
/// ```
///
/// Completions run on the callback queue: the one given to `request`, else the provider's
/// ``callbackQueue``, else the session's `defaultResponseQueue` (its rootQueue unless the session
/// was given another) — never a main queue.
public final class TargetProvider<Target: TargetType>: Sendable {
    /// Makes the endpoint of a target.
    public typealias EndpointClosure = @Sendable (Target) -> Endpoint
    /// Hands over the URLRequest made from an endpoint, or why none could be made.
    public typealias RequestResultClosure = @Sendable (Result<URLRequest, ProviderError>) -> Void
    /// Makes the URLRequest of an endpoint; may answer later, on any thread.
    public typealias RequestClosure = @Sendable (Endpoint, @escaping RequestResultClosure) -> Void
    /// Decides whether a target is stubbed.
    public typealias StubClosure = @Sendable (Target) -> StubBehavior
    /// Receives a caller's result.
    public typealias Completion = @Sendable (Result<Response, ProviderError>) -> Void

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
    /// Where completions run when `request` is given no queue (nil: the session's `defaultResponseQueue`).
    public let callbackQueue: (any SchedulerQueue)?

    let sessionHeaders: [String: String]
    let state = Mutex(State())
    private let creation = Mutex(RequestCreation.requestQueueSync)

    /// A provider sending targets through `session`.
    ///
    /// - Parameters:
    ///   - session: the session requests go through; its scheduler runs the stubs and its queues
    ///     the plugins.
    ///   - endpointClosure: target → endpoint (default: ``defaultEndpointMapping(for:)``).
    ///   - requestClosure: endpoint → URLRequest (default: ``defaultRequestMapping(for:closure:)``).
    ///   - stubClosure: which targets are stubbed, and how (default: ``neverStub(_:)``).
    ///   - callbackQueue: where completions run (default: the session's `defaultResponseQueue`).
    ///   - plugins: hooks around every request, in order.
    ///   - trackInflights: share one request among callers of equal endpoints while it is in flight.
    public init(
        session: Session,
        endpointClosure: @escaping EndpointClosure = { TargetProvider.defaultEndpointMapping(for: $0) },
        requestClosure: @escaping RequestClosure = { TargetProvider.defaultRequestMapping(for: $0, closure: $1) },
        stubClosure: @escaping StubClosure = { TargetProvider.neverStub($0) },
        callbackQueue: (any SchedulerQueue)? = nil,
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
        var headers: [String: String] = [:]
        for (name, value) in session.session.configuration.httpAdditionalHeaders ?? [:] {
            headers["\(name)"] = "\(value)"
        }
        sessionHeaders = headers
    }

    /// The endpoint of `target` (the endpoint closure's answer).
    public func endpoint(_ target: Target) -> Endpoint {
        endpointClosure(target)
    }

    /// Sends `target` (or stubs it) and calls `completion` once, on the callback queue, with the
    /// result after every plugin's `process`.
    ///
    /// The endpoint and stub closures run here, on the caller's thread; everything else runs on the
    /// session's queues. The returned token cancels this caller's request (see ``CancellableToken``).
    @discardableResult
    public func request(
        _ target: Target, callbackQueue: (any SchedulerQueue)? = nil, completion: @escaping Completion
    ) -> CancellableToken {
        let queue = callbackQueue ?? self.callbackQueue ?? session.defaultResponseQueue
        let endpoint = self.endpoint(target)
        let behavior = stubClosure(target)
        let key = trackInflights ? endpoint.identity : nil
        let (caller, flight, isNew) = state.withLock { state in
            state.open(target: target, endpoint: endpoint, key: key, behavior: behavior, queue: queue, completion: completion)
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

extension TargetProvider where Target == StubbedTarget {
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
