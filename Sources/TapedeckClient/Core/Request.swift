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
    /// Where response serializers run (targets the rootQueue unless the session was given another).
    public let serializationQueue: any SchedulerQueue
    weak var delegate: Session?
    /// What runs the session's simulation, kept from the session that made the request: a
    /// `Session()` nobody holds is gone before its request is awaited, and the request's
    /// `sessionDeinitialized` end waits on the simulated queue for a run (nil: a live transport).
    let drive: (@Sendable () async throws -> Void)?
    /// What makes the request's URLRequest (asked again on every attempt).
    public let convertible: any URLRequestConvertible
    let sessionMonitor: CompositeEventMonitor

    struct MutableState {
        /// The request's state and where its attempt stands: changed only through ``Request/handle(_:)``.
        var lifecycle = RequestLifecycle()
        var requests: [URLRequest] = []
        var tasks: [URLSessionTask] = []
        var metrics: [TransferMetrics] = []
        var retryCount = 0
        var error: ClientError?
        var responseSerializers: [@Sendable () -> Void] = []
        var responseSerializerCompletions: [@Sendable () -> Void] = []
        var interceptor: Interceptor?
        var redirectHandler: (any RedirectHandler)?
        var cachedResponseHandler: (any CachedResponseHandler)?
        var addedMonitors: [any EventMonitor] = []
        var eventMonitor: CompositeEventMonitor
        var shouldAutomaticallyResume: Bool?
        /// What answers HTTP authentication challenges (``Request/authenticate(with:)``).
        var credential: URLCredential?
        /// The delayed retry behind the lifecycle's `retryPending` (a cancel ends it and the request).
        var pendingRetry: ScheduledWork?
        /// What a cancel that ends a serializer-stage retry delivers to that serializer's handler.
        var abandonSerializerRetry: (@Sendable () -> Void)?
        var finishHandlers: [@Sendable () -> Void] = []
        /// The response body's byte counts and progress watcher (Request+Progress.swift).
        var download = TransferCount()
        /// How much of the request body was sent (Request+Progress.swift).
        var upload = TransferCount()
        /// The `onHTTPResponse` handler, and what waits for its answer (Request+ResponseGate.swift).
        var responseGate = ResponseGate()

        /// What the current attempt's task is doing, as the lifecycle's events need it. The current
        /// attempt is number `retryCount + 1`: while a retry's attempt is set up (adapted), the last
        /// task belongs to the attempt before, and this attempt has none yet — so a cancel then
        /// finishes the request at once (as Alamofire's does) instead of waiting for a task that
        /// will never be made.
        var taskStatus: RequestLifecycle.TaskStatus {
            guard let task = tasks.last, tasks.count > retryCount else { return .none }
            return task.state == .completed ? .completed : .active
        }
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
        self.drive = delegate.drive
        var state = MutableState(eventMonitor: eventMonitor)
        if let interceptor { state.interceptor = Interceptor(interceptors: [interceptor]) }
        self.mutableState = Protected(state)
        delegate.noteIfSimulationEnded()
    }

    // MARK: what the request knows

    /// The request's lifecycle state.
    public var state: State { mutableState.read { $0.lifecycle.state } }
    /// True before the first `resume()`.
    public var isInitialized: Bool { state == .initialized }
    /// True while resumed.
    public var isResumed: Bool { state == .resumed }
    /// True while suspended.
    public var isSuspended: Bool { state == .suspended }
    /// True once cancelled (the request still finishes, with `explicitlyCancelled`).
    public var isCancelled: Bool { state == .cancelled }
    /// True once finished and every response handler ran.
    public var isFinished: Bool { state == .finished }

    /// Every URLRequest so far: per attempt the initial one, plus the adapted one when an adapter ran.
    public var requests: [URLRequest] { mutableState.read { $0.requests } }
    /// The first URLRequest created (before adaptation).
    public var firstRequest: URLRequest? { requests.first }
    /// The last URLRequest (post-adaptation).
    public var request: URLRequest? { requests.last }
    /// The last URLRequest (same as ``request``).
    public var lastRequest: URLRequest? { request }
    /// The requests the tasks actually performed.
    public var performedRequests: [URLRequest] { tasks.compactMap(\.currentRequest) }

    /// One task per attempt that reached task creation.
    public var tasks: [URLSessionTask] { mutableState.read { $0.tasks } }
    /// The last attempt's task.
    public var task: URLSessionTask? { tasks.last }
    /// The last attempt's task (same as ``task``).
    public var lastTask: URLSessionTask? { task }
    /// The last task's response.
    public var response: HTTPURLResponse? { task?.response as? HTTPURLResponse }

    /// The metrics of every attempt, in order.
    public var allMetrics: [TransferMetrics] { mutableState.read { $0.metrics } }
    /// The last attempt's metrics.
    public var metrics: TransferMetrics? { allMetrics.last }

    /// Attempts made after the first (incremented when a retry actually starts).
    public var retryCount: Int { mutableState.read { $0.retryCount } }

    /// The error of the last attempt (or `explicitlyCancelled` after a cancel).
    public internal(set) var error: ClientError? {
        get { mutableState.read { $0.error } }
        set { mutableState.write { $0.error = newValue } }
    }

    var eventMonitor: CompositeEventMonitor { mutableState.read { $0.eventMonitor } }

    var interceptor: Interceptor? { mutableState.read { $0.interceptor } }

    var redirectHandler: (any RedirectHandler)? { mutableState.read { $0.redirectHandler } }

    // MARK: public control

    /// Starts (or continues) the request: the first call sets it up and creates its task.
    @discardableResult
    public func resume() -> Self {
        mutableState.write { state in
            guard case let .resumed(step) = state.lifecycle.handle(.resume(state.taskStatus)) else { return }
            underlyingQueue.async(named: "didResume") { self.didResume() }
            switch step {
            case .setUp:
                if let delegate {
                    delegate.readyToPerform(self)
                } else {
                    // Its session is gone (`Session().request(…)` with nothing holding the session):
                    // the request ends as one the session's release finished, not never.
                    underlyingQueue.async(named: "sessionDeinitialized") { self.finish(error: .sessionDeinitialized) }
                }
            case .resume:
                let task = state.tasks.last!
                task.resume()
                let boxed = UncheckedSendable(task)
                underlyingQueue.async(named: "didResumeTask") { self.didResumeTask(boxed.value) }
            default:
                break
            }
        }
        return self
    }

    /// Suspends the request (and its task, when one is running).
    @discardableResult
    public func suspend() -> Self {
        mutableState.write { state in
            guard case let .suspended(step) = state.lifecycle.handle(.suspend(state.taskStatus)) else { return }
            underlyingQueue.async(named: "didSuspend") { self.didSuspend() }
            guard step == .suspend, let task = state.tasks.last else { return }
            task.suspend()
            let boxed = UncheckedSendable(task)
            underlyingQueue.async(named: "didSuspendTask") { self.didSuspendTask(boxed.value) }
        }
        return self
    }

    /// Cancels the request at whatever stage it is in (docs/client.md, "Requests, retry, interceptors"). Unlike
    /// Alamofire 5.12, a cancel during a retry delay ends the request at once with
    /// `.explicitlyCancelled`.
    @discardableResult
    public func cancel() -> Self {
        mutableState.write { state in
            guard case let .cancelled(step) = state.lifecycle.handle(.cancel(state.taskStatus)) else { return }
            underlyingQueue.async(named: "didCancel") { self.didCancel() }
            switch step {
            case .abandonRetry:
                state.pendingRetry?.cancel()
                state.pendingRetry = nil
                underlyingQueue.async(named: "finish") { self.abandonRetry() }
            case .finish:
                underlyingQueue.async(named: "finish") { self.finish() }
            case .cancelTask:
                let task = state.tasks.last!
                task.resume()
                delegate?.cancelTask(task)
                let boxed = UncheckedSendable(task)
                underlyingQueue.async(named: "didCancelTask") { self.didCancelTask(boxed.value) }
            case .nothing:
                break
            }
        }
        return self
    }

    // MARK: what subclasses add to an attempt

    /// Clears per-attempt state. (Unlike Alamofire on Linux, nothing here can trap: see
    /// `TransferCount.set` for how progress is reset.)
    func reset() {
        mutableState.write { state in
            state.download.reset()
            state.upload.reset()
            state.error = nil
            state.responseSerializerCompletions = []
            state.pendingRetry = nil
            state.abandonSerializerRetry = nil
        }
    }

    /// Overridden by requests that have validators (with ``runValidators(_:validate:announce:)``).
    func runValidators() {}

    /// Runs `validators` in order while no error is recorded and a response exists: `validate`
    /// asks one about the request and response, a failure becomes the request's error, and
    /// `announce` tells the monitors the result.
    func runValidators<V>(_ validators: [V], validate: (V, URLRequest?, HTTPURLResponse) -> ValidationResult,
                          announce: (URLRequest?, HTTPURLResponse, ValidationResult) -> Void) {
        for validation in validators {
            guard error == nil, let response else { return }
            let request = self.request
            let result = validate(validation, request, response)
            if case let .failure(failure) = result {
                error = failure.asClientError(orFailWith: { .responseValidationFailed(reason: .customValidationFailed(error: $0)) })
            }
            announce(request, response, result)
        }
    }

    /// The attempt's response head arrived: answered as `onHTTPResponse` says (Request+ResponseGate.swift).
    /// An upload counts its body sent first.
    func didReceiveResponse(_ response: HTTPURLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        // The response began, so the whole body was sent: said unless URLSession already did
        // (it reports sending for its own transports, not through a custom URLProtocol).
        if let length = sentBodyLength, mutableState.read({ $0.upload.completed }) < length {
            updateUploadProgress(totalBytesSent: length, totalBytesExpectedToSend: length)
        }
        answerResponseHead(response, completionHandler: completionHandler)
    }

    /// The length of the attempt's request body, when known (an upload's says its own).
    var sentBodyLength: Int64? {
        (request?.httpBody?.count).flatMap { $0 > 0 ? Int64($0) : nil }
    }

    /// The attempt's task completed (its error recorded): a download writes its file here, before
    /// the validators run.
    func transferDidEnd(task: URLSessionTask) {}

    /// The request is over (every handler ran): an upload removes its temporary file here. Called
    /// whether or not the session is still there.
    func releaseResources() {}

    /// Creates the attempt's task (data requests: a data task).
    func task(for request: URLRequest, using session: URLSession) -> URLSessionTask {
        fatalError("tapedeck: subclasses of Request create their own tasks")
    }

    // MARK: Hashable, description

    /// Identity: two requests are equal only if they are the same object.
    public static func == (lhs: Request, rhs: Request) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `GET http://api.test/items (200)`, or a note that no request was created yet.
    public var description: String {
        guard let request = request, let method = request.httpMethod, let url = request.url else { return "No request created yet." }
        let status = response.map { " (\($0.statusCode))" } ?? ""
        return "\(method) \(url.absoluteString)\(status)"
    }
}
