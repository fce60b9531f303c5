public import TapedeckHTTP
public import TapedeckScheduling
import OrderedCollections
#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Creates and runs requests, Alamofire-style, on a scheduler: the same code runs live (real GCD,
/// real network) or simulated (virtual clock, harness-made URLSession).
///
/// Queues (docs/client.md, "Queues"): `rootQueue` (a caller-supplied one is wrapped in a new
/// serial queue with the same label), `requestQueue` and `serializationQueue` targeting it unless
/// supplied. URLSession's delegate callbacks run on the rootQueue.
///
/// ```swift
/// let session = Session(provider: harness, scheduler: scheduler, interceptor: .retryPolicy)
/// session.request("http://api.test/items").validate().responseDecodable(of: [Item].self) { response in
///     print(response.result)
/// }
/// try scheduler.runUntilIdle()
/// ```
open class Session: @unchecked Sendable {
    // @unchecked Sendable: immutable after init except `state` (a lock).

    /// When a request is set up: on `resume()` (lazy, the default) or as soon as it is created.
    public enum RequestSetup: Sendable {
        /// Set up on `resume()` (Alamofire's default since 5.11).
        case lazy
        /// Set up as soon as the request is created.
        case eager
    }

    /// The scheduler the session's queues belong to (its clock times retries and timeouts).
    public let scheduler: any Scheduler
    /// The URLSession (its delegate is ``delegate``, its delegate queue the ``rootQueue``).
    public let session: URLSession
    /// The URLSession's configuration (a copy: changing it changes nothing, as in Alamofire).
    ///
    /// ```swift
    /// let timeout = AF.sessionConfiguration.timeoutIntervalForRequest
    /// ```
    public var sessionConfiguration: URLSessionConfiguration { session.configuration }
    /// The URLSession's delegate, which turns its callbacks into request events.
    public let delegate: SessionDelegate
    /// Where the session's own work and every URLSession callback run.
    public let rootQueue: any SchedulerQueue
    /// Where URLRequests are built and adapted (targets the rootQueue unless supplied).
    public let requestQueue: any SchedulerQueue
    /// Where serializers run (targets the rootQueue unless supplied).
    public let serializationQueue: any SchedulerQueue
    /// Where response handlers run when no queue is given (default: the rootQueue — never a main
    /// queue nobody services).
    public let defaultResponseQueue: any SchedulerQueue
    /// Whether adding a response handler resumes a request (unless the request says otherwise).
    public let startRequestsImmediately: Bool
    /// When requests are set up.
    public let requestSetup: RequestSetup
    /// The session's interceptor, run before each request's own.
    public let interceptor: (any RequestInterceptor)?
    /// What to do with redirects (nil: follow them).
    public let redirectHandler: (any RedirectHandler)?
    /// Whether responses are cached (nil: as URLSession offers them; see ``CachedResponseHandler``).
    public let cachedResponseHandler: (any CachedResponseHandler)?
    /// The server-trust evaluators by host (kept, never consulted: see ``ServerTrustManager``).
    public let serverTrustManager: ServerTrustManager?
    /// The session's monitors, as one (each event goes to each monitor in order).
    public let eventMonitor: CompositeEventMonitor
    /// What the transport promises (with metrics, completion waits for them).
    public let transportProfile: TransportProfile
    /// How long a completion waits for metrics a transport promised before going ahead without.
    public let metricsGracePeriod: Duration
    let provider: (any URLSessionProvider)?

    struct State {
        var requestTaskMap: [Int: Request] = [:]
        /// Tasks already disassociated, for reporting a late duplicate (weak: never keeps a request).
        var retiredTasks: [Int: WeakRequest] = [:]
        /// Cleanups since retired tasks were last pruned (a prune waits until there have been half
        /// as many cleanups as there are retired tasks).
        var cleanupsSincePrune = 0
        /// Retired tasks looked at by pruning so far (what keeps pruning linear is tested on it).
        var retiredTasksVisited = 0
        var ledger = TaskLedger()
        var waitingCompletions: [Int: WaitingCompletion] = [:]
        var activeRequests: OrderedDictionary<ObjectIdentifier, Request> = [:]
        var requestCount: UInt64 = 0
        /// How to run the simulation this session's transport belongs to, when it can (awaits use it).
        var drive: (@Sendable () async throws -> Void)?
        /// Told of every retry that waits before its attempt (a scenario's "cancel during backoff").
        var backoffListener: (@Sendable (Request, Duration) -> Void)?
        /// Whether a request on an ended simulation was already reported (see `perform`).
        var warnedEndedSimulation = false
        /// The scheduler queues standing for `DispatchQueue`s passed in Alamofire's positions.
        var dispatchQueueStandIns: [String: any SchedulerQueue] = [:]
    }

    struct WaitingCompletion {
        let completion: @Sendable () -> Void
        let graceTimer: ScheduledWork?
    }

    let state = Protected(State())
    private let idTag: UInt64

    /// A Session whose URLSession comes from `provider` (a simulated harness with its
    /// `SimulatedScheduler`, or `LiveURLSessionProvider` with a `LiveScheduler`): the provider
    /// and the scheduler must deal in the same kind of queue. `drive`, when given, runs the
    /// simulation: an awaited ``DataTask`` calls it (e.g. `{ try scheduler.runUntilIdle() }`), so
    /// async code gets its answer without the test driving by hand — without it, something else
    /// must run the scheduler while the task is awaited.
    ///
    /// ```swift
    /// let session = Session(provider: harness, scheduler: scheduler, drive: { try scheduler.runUntilIdle() })
    /// let items = try await session.request("http://api.test/items").serializingDecodable([Item].self).value
    /// ```
    public convenience init<Provider: URLSessionProvider>(
        provider: Provider,
        configuration: URLSessionConfiguration = .ephemeral,
        scheduler: some Scheduler<Provider.DelegateQueue>,
        rootQueue: (any SchedulerQueue)? = nil,
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
        requestQueue: (any SchedulerQueue)? = nil,
        serializationQueue: (any SchedulerQueue)? = nil,
        defaultResponseQueue: (any SchedulerQueue)? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: (any RedirectHandler)? = nil,
        cachedResponseHandler: (any CachedResponseHandler)? = nil,
        eventMonitors: [any EventMonitor] = [],
        metricsGracePeriod: Duration = .seconds(1),
        drive: (@Sendable () async throws -> Void)? = nil
    ) {
        let root = rootQueue.map { scheduler.makeQueue(wrapping: $0) }
            ?? scheduler.makeQueue(label: "org.tapedeck.session.rootQueue", target: nil)
        let delegate = SessionDelegate()
        let urlSession = provider.makeURLSession(configuration: configuration, delegate: delegate, delegateQueue: root)
        self.init(
            session: urlSession, delegate: delegate, scheduler: scheduler, rootQueue: root, profile: provider.profile,
            provider: provider, startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup,
            requestQueue: requestQueue, serializationQueue: serializationQueue, defaultResponseQueue: defaultResponseQueue,
            interceptor: interceptor, serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
            cachedResponseHandler: cachedResponseHandler, eventMonitors: eventMonitors, metricsGracePeriod: metricsGracePeriod)
        if let drive { state.write { $0.drive = drive } }
    }

    /// A Session over a URLSession made elsewhere: `delegate` must be that URLSession's delegate and
    /// its callbacks must run on `rootQueue` (no wrapping here, as in Alamofire's designated init).
    public init(
        session: URLSession, delegate: SessionDelegate, scheduler: any Scheduler, rootQueue: any SchedulerQueue,
        profile: TransportProfile, provider: (any URLSessionProvider)? = nil,
        startRequestsImmediately: Bool = true, requestSetup: RequestSetup = .lazy,
        requestQueue: (any SchedulerQueue)? = nil, serializationQueue: (any SchedulerQueue)? = nil,
        defaultResponseQueue: (any SchedulerQueue)? = nil,
        interceptor: (any RequestInterceptor)? = nil, serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: (any RedirectHandler)? = nil, cachedResponseHandler: (any CachedResponseHandler)? = nil,
        eventMonitors: [any EventMonitor] = [], metricsGracePeriod: Duration = .seconds(1)
    ) {
        precondition(session.configuration.identifier == nil, "tapedeck: background URLSessions are not supported")
        self.session = session
        self.delegate = delegate
        self.scheduler = scheduler
        self.rootQueue = rootQueue
        self.requestQueue = requestQueue ?? scheduler.makeQueue(label: "\(rootQueue.label).requestQueue", target: rootQueue)
        self.serializationQueue = serializationQueue ?? scheduler.makeQueue(label: "\(rootQueue.label).serializationQueue", target: rootQueue)
        self.defaultResponseQueue = defaultResponseQueue ?? rootQueue
        self.transportProfile = profile
        self.provider = provider
        self.startRequestsImmediately = startRequestsImmediately
        self.requestSetup = requestSetup
        self.interceptor = interceptor
        self.redirectHandler = redirectHandler
        self.cachedResponseHandler = cachedResponseHandler
        self.serverTrustManager = serverTrustManager
        self.metricsGracePeriod = metricsGracePeriod
        self.eventMonitor = CompositeEventMonitor(monitors: eventMonitors, defaultQueue: rootQueue)
        self.idTag = StableHash.fnv1a(rootQueue.label)
        delegate.session = self
        delegate.eventMonitor = eventMonitor
    }

    deinit {
        let active = state.read { Array($0.activeRequests.values) }
        for request in active {
            request.underlyingQueue.async(named: "sessionDeinitialized") { request.finish(error: .sessionDeinitialized) }
        }
        session.invalidateAndCancel()
    }

    // MARK: creating requests

    /// A data request for `url` with untyped ``Parameters`` put in by `encoding` (none: nothing is
    /// encoded). The URLRequest is built, modified, then encoded again on every attempt.
    open func request(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil
    ) -> DataRequest {
        let convertible = RequestConvertible(
            url: convertible, method: method, parameters: parameters, encoding: encoding, headers: headers, requestModifier: requestModifier)
        return request(convertible, interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume)
    }

    /// A data request for `url` with `Encodable` parameters put in by `encoder` (form or JSON).
    open func request<Parameters: Encodable & Sendable>(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil
    ) -> DataRequest {
        let convertible = RequestEncodableConvertible(
            url: convertible, method: method, parameters: parameters, encoder: encoder, headers: headers, requestModifier: requestModifier)
        return request(convertible, interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume)
    }

    /// A data request from a convertible, asked for a fresh URLRequest on every attempt.
    /// `shouldAutomaticallyResume` nil: ``startRequestsImmediately`` decides.
    open func request(
        _ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil
    ) -> DataRequest {
        let request = DataRequest(
            id: nextRequestID(), convertible: convertible, underlyingQueue: rootQueue, serializationQueue: serializationQueue,
            eventMonitor: eventMonitor, interceptor: interceptor, delegate: self)
        if let shouldAutomaticallyResume { request.shouldAutomaticallyResume(shouldAutomaticallyResume) }
        if requestSetup == .eager { perform(request) }
        return request
    }

    /// A deterministic UUID: the root queue label's digest and the request's number.
    func nextRequestID() -> UUID {
        let number = state.write { state -> UInt64 in
            state.requestCount += 1
            return state.requestCount
        }
        let tag = idTag
        return UUID(uuid: (
            UInt8(truncatingIfNeeded: tag >> 56), UInt8(truncatingIfNeeded: tag >> 48), UInt8(truncatingIfNeeded: tag >> 40),
            UInt8(truncatingIfNeeded: tag >> 32), UInt8(truncatingIfNeeded: tag >> 24), UInt8(truncatingIfNeeded: tag >> 16),
            0x40 | UInt8(truncatingIfNeeded: tag >> 8) & 0x0F, UInt8(truncatingIfNeeded: tag),
            0x80, 0, UInt8(truncatingIfNeeded: number >> 40), UInt8(truncatingIfNeeded: number >> 32),
            UInt8(truncatingIfNeeded: number >> 24), UInt8(truncatingIfNeeded: number >> 16),
            UInt8(truncatingIfNeeded: number >> 8), UInt8(truncatingIfNeeded: number)))
    }

    // MARK: all requests

    /// Runs `action` on the rootQueue with the requests still running, in creation order.
    @preconcurrency
    public func withAllRequests(perform action: @escaping @Sendable ([Request]) -> Void) {
        rootQueue.async(named: "withAllRequests") {
            action(self.state.read { Array($0.activeRequests.values) })
        }
    }

    /// Cancels every running request (from the rootQueue), then calls `completion` on `queue`.
    @preconcurrency
    public func cancelAllRequests(completingOn queue: (any SchedulerQueue)? = nil, completion: (@Sendable () -> Void)? = nil) {
        withAllRequests { requests in
            requests.forEach { $0.cancel() }
            if let completion { (queue ?? self.defaultResponseQueue).async(named: "cancelAllRequests", completion) }
        }
    }

    /// Requests still running (for tests and diagnostics).
    public var activeRequestCount: Int { state.read { $0.activeRequests.count } }

    /// Tasks still mapped to requests (0 once everything completed).
    public var mappedTaskCount: Int { state.read { $0.requestTaskMap.count } }

    /// Runs the simulation of the transport this session came from (set when it was made without a
    /// provider, by a transport that can drive; a ``DataTask`` calls it when awaited).
    package var drive: (@Sendable () async throws -> Void)? { state.read { $0.drive } }

    /// What makes this session's URLSessions (nil: a URLSession handed in, or the live network).
    package var transportProvider: (any URLSessionProvider)? { provider }

    /// Has `listener` told, on the rootQueue, of each retry that waits before its attempt: the
    /// request and the wait, as the wait begins — whatever retrier decided it (a scenario runner
    /// cancels "during the first backoff" of a client it did not build).
    package func observeBackoffs(_ listener: @escaping @Sendable (Request, Duration) -> Void) {
        state.write { $0.backoffListener = listener }
    }
}
