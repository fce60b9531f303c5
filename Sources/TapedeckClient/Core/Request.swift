public import Foundation
public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A request's whole life: every attempt's URLRequests and tasks, its state, validators, response
/// serializers and events. Public methods may be called from any thread; the work they cause runs
/// on the session's rootQueue (``underlyingQueue``), as in Alamofire.
public class Request: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked Sendable: mutable state is in `mutableState` (a lock); the rest is immutable.

    /// Deterministic: derived from the session and the request's number within it.
    public let id: UUID
    /// The session's rootQueue: all of the request's work and its events run here.
    public let underlyingQueue: any SchedulerQueue
    public let serializationQueue: any SchedulerQueue
    weak var delegate: Session?
    let convertible: any URLRequestConvertible
    private let sessionMonitor: CompositeEventMonitor

    struct MutableState {
        var state: State = .initialized
        var requests: [URLRequest] = []
        var tasks: [URLSessionTask] = []
        var metrics: [TransferMetrics] = []
        var retryCount = 0
        var error: ClientError?
        var isFinishing = false
        var responseSerializers: [@Sendable () -> Void] = []
        var responseSerializerCompletions: [@Sendable () -> Void] = []
        var responseSerializerProcessingFinished = false
        var interceptor: Interceptor?
        var redirectHandler: (any RedirectHandler)?
        var addedMonitors: [any EventMonitor] = []
        var eventMonitor: CompositeEventMonitor
        var shouldAutomaticallyResume: Bool?
        /// The delayed retry waiting to start (Tapedeck: a cancel ends it and the request).
        var pendingRetry: ScheduledWork?
        /// Set while a serializer-stage retry is under way: delivers that serializer's handler as
        /// cancelled if a cancel ends the retry (Tapedeck; see ``abandonRetry()``).
        var abandonSerializerRetry: (@Sendable () -> Void)?
        /// The retrier is deciding about a failed attempt (a cancel then leaves finishing to it).
        var awaitingRetryDecision = false
        var finishHandlers: [@Sendable () -> Void] = []
    }

    let mutableState: Protected<MutableState>

    init(id: UUID, convertible: any URLRequestConvertible, underlyingQueue: any SchedulerQueue,
         serializationQueue: any SchedulerQueue, eventMonitor: CompositeEventMonitor, interceptor: (any RequestInterceptor)?,
         delegate: Session) {
        self.id = id
        self.convertible = convertible
        self.underlyingQueue = underlyingQueue
        self.serializationQueue = serializationQueue
        self.sessionMonitor = eventMonitor
        self.delegate = delegate
        var state = MutableState(eventMonitor: eventMonitor)
        if let interceptor { state.interceptor = Interceptor(interceptors: [interceptor]) }
        self.mutableState = Protected(state)
    }

    // MARK: what the request knows

    public var state: State { mutableState.read { $0.state } }
    public var isInitialized: Bool { state == .initialized }
    public var isResumed: Bool { state == .resumed }
    public var isSuspended: Bool { state == .suspended }
    public var isCancelled: Bool { state == .cancelled }
    public var isFinished: Bool { state == .finished }

    /// Every URLRequest so far: per attempt the initial one, plus the adapted one when an adapter ran.
    public var requests: [URLRequest] { mutableState.read { $0.requests } }
    public var firstRequest: URLRequest? { requests.first }
    /// The last URLRequest (post-adaptation).
    public var request: URLRequest? { requests.last }
    public var lastRequest: URLRequest? { request }
    /// The requests the tasks actually performed.
    public var performedRequests: [URLRequest] { tasks.compactMap(\.currentRequest) }

    /// One task per attempt that reached task creation.
    public var tasks: [URLSessionTask] { mutableState.read { $0.tasks } }
    public var task: URLSessionTask? { tasks.last }
    public var lastTask: URLSessionTask? { task }
    public var response: HTTPURLResponse? { task?.response as? HTTPURLResponse }

    public var allMetrics: [TransferMetrics] { mutableState.read { $0.metrics } }
    public var metrics: TransferMetrics? { allMetrics.last }

    /// Attempts made after the first (incremented when a retry actually starts).
    public var retryCount: Int { mutableState.read { $0.retryCount } }

    public internal(set) var error: ClientError? {
        get { mutableState.read { $0.error } }
        set { mutableState.write { $0.error = newValue } }
    }

    var eventMonitor: CompositeEventMonitor { mutableState.read { $0.eventMonitor } }

    var interceptor: Interceptor? { mutableState.read { $0.interceptor } }

    var redirectHandler: (any RedirectHandler)? { mutableState.read { $0.redirectHandler } }

    // MARK: events from the Session (all on underlyingQueue)

    func didCreateInitialURLRequest(_ request: URLRequest) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.requests.append(request) }
        eventMonitor.request(self, didCreateInitialURLRequest: request)
    }

    func didFailToCreateURLRequest(with error: ClientError) {
        underlyingQueue.preconditionCurrent()
        self.error = error
        eventMonitor.request(self, didFailToCreateURLRequestWithError: error)
        retryOrFinish(error: error)
    }

    func didAdaptInitialRequest(_ initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.requests.append(adaptedRequest) }
        eventMonitor.request(self, didAdaptInitialRequest: initialRequest, to: adaptedRequest)
    }

    func didFailToAdaptURLRequest(_ request: URLRequest, withError error: ClientError) {
        underlyingQueue.preconditionCurrent()
        self.error = error
        eventMonitor.request(self, didFailToAdaptURLRequest: request, withError: error)
        retryOrFinish(error: error)
    }

    func didCreateURLRequest(_ request: URLRequest) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didCreateURLRequest: request)
    }

    /// Records the attempt's task and aligns it with the request's state (resumed → resume,
    /// suspended → suspend, cancelled → resume then cancel, so that metrics are still produced).
    func didCreateTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        let action = mutableState.write { state -> State in
            state.tasks.append(task)
            return state.state
        }
        eventMonitor.request(self, didCreateTask: task)
        let boxed = UncheckedSendable(task)
        switch action {
        case .initialized, .finished:
            break
        case .resumed:
            task.resume()
            underlyingQueue.async(named: "didResumeTask") { self.didResumeTask(boxed.value) }
        case .suspended:
            task.suspend()
            underlyingQueue.async(named: "didSuspendTask") { self.didSuspendTask(boxed.value) }
        case .cancelled:
            task.resume()
            delegate?.cancelTask(task)
            underlyingQueue.async(named: "didCancelTask") { self.didCancelTask(boxed.value) }
        }
    }

    func didResume() {
        underlyingQueue.preconditionCurrent()
        eventMonitor.requestDidResume(self)
    }

    func didResumeTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didResumeTask: task)
    }

    func didSuspend() {
        underlyingQueue.preconditionCurrent()
        eventMonitor.requestDidSuspend(self)
    }

    func didSuspendTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didSuspendTask: task)
    }

    func didCancel() {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.error = $0.error ?? .explicitlyCancelled }
        eventMonitor.requestDidCancel(self)
    }

    func didCancelTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didCancelTask: task)
    }

    func didGatherMetrics(_ metrics: TransferMetrics) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.metrics.append(metrics) }
        eventMonitor.request(self, didGatherMetrics: metrics)
    }

    /// The attempt's task completed: record its error, run validators, then retry or finish.
    func didCompleteTask(_ task: URLSessionTask, with error: ClientError?) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.error = $0.error ?? error }
        runValidators()
        eventMonitor.request(self, didCompleteTask: task, with: error)
        retryOrFinish(error: self.error)
    }

    /// Overridden by requests that have validators.
    func runValidators() {}

    /// Counts the retry, forgets the failed attempt's error and data, and says so.
    func prepareForRetry() {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.retryCount += 1 }
        reset()
        eventMonitor.requestIsRetrying(self)
    }

    /// Clears per-attempt state. (Unlike Alamofire on Linux, nothing here can trap: there is no
    /// Progress whose total is set below its completed count.)
    func reset() {
        mutableState.write { state in
            state.error = nil
            state.isFinishing = false
            state.responseSerializerCompletions = []
            state.pendingRetry = nil
            state.abandonSerializerRetry = nil
        }
    }

    /// A cancel ended a retry before its attempt started. A retry asked for by a failing serializer
    /// hands that serializer's handler an `explicitlyCancelled` response and lets the remaining
    /// serializers run; any other retry finishes the request as cancelled. (Alamofire 5.12.0 does
    /// neither, and the request never completes.)
    func abandonRetry() {
        underlyingQueue.preconditionCurrent()
        let abandon = mutableState.write { state -> (@Sendable () -> Void)? in
            defer { state.abandonSerializerRetry = nil }
            state.pendingRetry = nil
            guard let abandon = state.abandonSerializerRetry else { return nil }
            state.error = .explicitlyCancelled
            return abandon
        }
        guard let abandon else {
            finish(error: .explicitlyCancelled)
            return
        }
        abandon()
    }

    /// Records what to deliver if a cancel ends the serializer-stage retry about to be asked for.
    func setSerializerRetryAbandonment(_ abandon: @escaping @Sendable () -> Void) {
        mutableState.write { $0.abandonSerializerRetry = abandon }
    }

    func retryOrFinish(error: ClientError?) {
        underlyingQueue.preconditionCurrent()
        guard !isCancelled, let error, let delegate else {
            finish()
            return
        }
        mutableState.write { $0.awaitingRetryDecision = true }
        delegate.retryResult(for: self, dueTo: error) { retryResult in
            self.mutableState.write { $0.awaitingRetryDecision = false }
            switch retryResult {
            case .doNotRetry:
                self.finish()
            case let .doNotRetryWithError(retryError):
                self.finish(error: retryError.asClientError(orFailWith: { .requestRetryFailed(retryError: $0, originalError: error) }))
            case .retry, .retryWithDelay:
                delegate.retryRequest(self, withDelay: retryResult.delay)
            }
        }
    }

    /// Ends the attempt: runs the response serializers (once per attempt), then `requestDidFinish`.
    func finish(error: ClientError? = nil) {
        underlyingQueue.preconditionCurrent()
        let proceed = mutableState.write { state -> Bool in
            guard !state.isFinishing else { return false }
            state.isFinishing = true
            state.pendingRetry = nil
            if let error { state.error = error }
            return true
        }
        guard proceed else { return }
        processNextResponseSerializer()
        eventMonitor.requestDidFinish(self)
    }

    // MARK: response serializers

    /// Appends a serializer closure (run on the serializationQueue) and resumes the request when it
    /// should start automatically.
    func appendResponseSerializer(_ closure: @escaping @Sendable () -> Void) {
        let (processNow, mayResume) = mutableState.write { state -> (Bool, Bool) in
            state.responseSerializers.append(closure)
            if state.state == .finished { state.state = .resumed }   // run the new serializer on the stored data
            let processNow = state.responseSerializerProcessingFinished
            if processNow { state.responseSerializerProcessingFinished = false }
            return (processNow, state.state.canTransitionTo(.resumed))
        }
        if processNow {
            underlyingQueue.async(named: "processNextResponseSerializer") { self.processNextResponseSerializer() }
        }
        if mayResume {
            underlyingQueue.async(named: "autoResume") {
                if self.shouldAutomaticallyResume { self.resume() }
            }
        }
    }

    var shouldAutomaticallyResume: Bool {
        mutableState.read { $0.shouldAutomaticallyResume } ?? delegate?.startRequestsImmediately ?? false
    }

    /// The next serializer to run, or nil when every one has completed.
    private func nextResponseSerializer() -> (@Sendable () -> Void)? {
        mutableState.read { state in
            let index = state.responseSerializerCompletions.count
            return index < state.responseSerializers.count ? state.responseSerializers[index] : nil
        }
    }

    func processNextResponseSerializer() {
        guard let serializer = nextResponseSerializer() else {
            let (completions, finishHandlers) = mutableState.write { state -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
                let completions = state.responseSerializerCompletions
                state.responseSerializers.removeAll()
                state.responseSerializerCompletions.removeAll()
                if state.state.canTransitionTo(.finished) { state.state = .finished }
                state.responseSerializerProcessingFinished = true
                state.isFinishing = false
                let handlers = state.finishHandlers
                state.finishHandlers.removeAll()
                return (completions, handlers)
            }
            completions.forEach { $0() }
            finishHandlers.forEach { $0() }
            delegate?.cleanup(after: self)
            return
        }
        serializationQueue.async(named: "serialize") { serializer() }
    }

    /// Records a serializer's completion (delivered with the others once all have run).
    func responseSerializerDidComplete(with completion: @escaping @Sendable () -> Void) {
        mutableState.write { $0.responseSerializerCompletions.append(completion) }
        processNextResponseSerializer()
    }

    // MARK: public control

    /// Starts (or continues) the request: the first call sets it up and creates its task.
    @discardableResult
    public func resume() -> Self {
        mutableState.write { state in
            guard state.state.canTransitionTo(.resumed) else { return }
            state.state = .resumed
            underlyingQueue.async(named: "didResume") { self.didResume() }
            guard let task = state.tasks.last, task.state != .completed else {
                if state.tasks.isEmpty { delegate?.readyToPerform(self) }
                return
            }
            task.resume()
            let boxed = UncheckedSendable(task)
            underlyingQueue.async(named: "didResumeTask") { self.didResumeTask(boxed.value) }
        }
        return self
    }

    @discardableResult
    public func suspend() -> Self {
        mutableState.write { state in
            guard state.state.canTransitionTo(.suspended) else { return }
            state.state = .suspended
            underlyingQueue.async(named: "didSuspend") { self.didSuspend() }
            guard let task = state.tasks.last, task.state != .completed else { return }
            task.suspend()
            let boxed = UncheckedSendable(task)
            underlyingQueue.async(named: "didSuspendTask") { self.didSuspendTask(boxed.value) }
        }
        return self
    }

    /// Cancels the request at whatever stage it is in (§2.4). Unlike Alamofire 5.12, a cancel during
    /// a retry delay ends the request at once with `.explicitlyCancelled`.
    @discardableResult
    public func cancel() -> Self {
        mutableState.write { state in
            guard state.state.canTransitionTo(.cancelled) else { return }
            state.state = .cancelled
            underlyingQueue.async(named: "didCancel") { self.didCancel() }
            if let retry = state.pendingRetry {
                // Tapedeck does better than 5.12.0, where this request would never complete.
                retry.cancel()
                state.pendingRetry = nil
                underlyingQueue.async(named: "finish") { self.abandonRetry() }
                return
            }
            // The retrier is deciding about an attempt that failed before its task existed: its
            // answer finishes the request (a retry is abandoned as cancelled), so finishing here
            // too would finish twice.
            guard !state.awaitingRetryDecision else { return }
            guard let task = state.tasks.last else {
                underlyingQueue.async(named: "finish") { self.finish() }
                return
            }
            // A completed last task: the retry decision or serialization is under way; the first
            // finishes the request as cancelled when it comes back, the second carries on.
            guard task.state != .completed else { return }
            task.resume()
            delegate?.cancelTask(task)
            let boxed = UncheckedSendable(task)
            underlyingQueue.async(named: "didCancelTask") { self.didCancelTask(boxed.value) }
        }
        return self
    }

    // MARK: per-request features

    /// Adds an interceptor after the ones added before (all after the session's).
    @discardableResult
    public func interceptor(_ interceptor: any RequestInterceptor) -> Self {
        mutableState.write { state in
            if let existing = state.interceptor {
                existing.append(adapter: interceptor, retrier: interceptor)
            } else {
                state.interceptor = Interceptor(interceptors: [interceptor])
            }
        }
        return self
    }

    @discardableResult
    public func adapt(using adapter: any RequestAdapter) -> Self {
        mutableState.write { state in
            if let existing = state.interceptor { existing.append(adapter: adapter) } else { state.interceptor = Interceptor(adapters: [adapter]) }
        }
        return self
    }

    @discardableResult
    public func retry(using retrier: any RequestRetrier) -> Self {
        mutableState.write { state in
            if let existing = state.interceptor { existing.append(retrier: retrier) } else { state.interceptor = Interceptor(retriers: [retrier]) }
        }
        return self
    }

    /// Adds a monitor for this request's request-level events (after the session's monitors).
    @discardableResult
    public func eventMonitor(_ monitor: any EventMonitor) -> Self {
        mutableState.write { state in
            state.addedMonitors.append(monitor)
            state.eventMonitor = CompositeEventMonitor(monitors: sessionMonitor.monitors + state.addedMonitors, defaultQueue: underlyingQueue)
        }
        return self
    }

    /// Sets this request's redirect policy (instead of the session's).
    @discardableResult
    public func redirect(using handler: any RedirectHandler) -> Self {
        mutableState.write { $0.redirectHandler = handler }
        return self
    }

    /// Whether appending a response handler resumes the request (nil: the session decides).
    @discardableResult
    public func shouldAutomaticallyResume(_ value: Bool?) -> Self {
        mutableState.write { $0.shouldAutomaticallyResume = value }
        return self
    }

    /// Runs `handler` on the underlyingQueue once the request finished (after its completion handlers).
    @discardableResult
    public func onFinish(_ handler: @escaping @Sendable () -> Void) -> Self {
        let finishedAlready = mutableState.write { state -> Bool in
            if state.state == .finished && state.responseSerializerProcessingFinished { return true }
            state.finishHandlers.append(handler)
            return false
        }
        if finishedAlready { underlyingQueue.async(named: "onFinish", handler) }
        return self
    }

    /// Remembers the armed retry so that a cancel can end it. Returns false (and disarms it) when a
    /// cancel came first: the caller then ends the retry at once.
    func setPendingRetry(_ work: ScheduledWork) -> Bool {
        mutableState.write { state in
            guard state.state != .cancelled else {
                work.cancel()
                return false
            }
            state.pendingRetry = work
            return true
        }
    }

    /// Creates the attempt's task (data requests: a data task).
    func task(for request: URLRequest, using session: URLSession) -> URLSessionTask {
        fatalError("tapedeck: subclasses of Request create their own tasks")
    }

    // MARK: Hashable, description

    public static func == (lhs: Request, rhs: Request) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        guard let request = request, let method = request.httpMethod, let url = request.url else { return "No request created yet." }
        let status = response.map { " (\($0.statusCode))" } ?? ""
        return "\(method) \(url.absoluteString)\(status)"
    }
}
