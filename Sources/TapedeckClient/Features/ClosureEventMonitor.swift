public import Foundation
public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Hands events to closures: one for every event, as ``ClientEvent`` values, and/or, as in
/// Alamofire, one per event (`ClosureEventMonitor+Events.swift` lists the properties, named after
/// the ``ClientEvent`` cases).
///
/// ```swift
/// let monitor = ClosureEventMonitor()
/// monitor.requestDidFinish = { request in print("finished", request) }
/// monitor.requestDidCompleteTaskWithError = { request, _, error in if let error { print(request, error) } }
///
/// let names = Mutex<[String]>([])   // Synchronization
/// let recorder = ClosureEventMonitor { event in names.withLock { $0.append(event.name) } }
/// let session = Session(provider: harness, scheduler: scheduler, eventMonitors: [monitor, recorder])
/// ```
///
/// The per-event closures are kept in one table keyed by the event's case name; each property is
/// a typed view of one entry, so the list of events stays written once, in ``ClientEvent``.
open class ClosureEventMonitor: EventMonitor, @unchecked Sendable {
    // @unchecked Sendable: `queue` and `handler` are immutable; the per-event closures are in
    // `closures`, a lock.

    /// Where the closures run (nil: the session's rootQueue).
    public let queue: (any SchedulerQueue)?
    private let handler: (@Sendable (ClientEvent) -> Void)?
    private let closures = Protected<[String: EventClosure]>([:])

    /// A per-event closure, with its arguments erased (the payload of its ``ClientEvent`` case).
    private struct EventClosure {
        let closure: any Sendable
        let call: @Sendable (Any) -> Void
    }

    /// A monitor calling `handler` with every event (if given) and the per-event closures set
    /// later, on `queue`.
    @preconcurrency
    public init(queue: (any SchedulerQueue)? = nil, _ handler: (@Sendable (ClientEvent) -> Void)? = nil) {
        self.queue = queue
        self.handler = handler
    }

    /// Calls the closure for every event, then the event's own closure, if set.
    open func handle(_ event: ClientEvent) {
        handler?(event)
        guard !closures.read(\.isEmpty) else { return }
        // The case's name and payload (a value, or a tuple of the case's values).
        guard let (name, payload) = Mirror(reflecting: event).children.first.flatMap({ child in child.label.map { ($0, child.value) } }),
              let entry = closures.read({ $0[name] }) else { return }
        entry.call(payload)
    }

    // MARK: every event as an open method, as Alamofire's has: a subclass overrides one (calling
    // `super` keeps the handler and the closures), and the session calls the override.

    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        handle(.sessionDidBecomeInvalidWithError(session, error))
    }
    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        handle(.taskWillPerformHTTPRedirection(session, task, response, request))
    }
    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics) {
        handle(.taskDidFinishCollectingMetrics(session, task, metrics))
    }
    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        handle(.taskDidComplete(session, task, error))
    }
    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        handle(.dataTaskDidReceiveResponse(session, dataTask, response))
    }
    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handle(.dataTaskDidReceiveData(session, dataTask, data))
    }
    /// Does nothing (never sent).
    open func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {}
    /// Hands the event to `handle(_:)`.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                           totalBytesExpectedToSend: Int64) {
        handle(.taskDidSendBodyData(session, task, bytesSent, totalBytesSent, totalBytesExpectedToSend))
    }
    /// Does nothing (see the requirement).
    open func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask) {}
    /// Does nothing (never sent).
    open func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {}
    /// Does nothing (never sent).
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {}
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        handle(.requestDidCreateInitialURLRequest(request, urlRequest))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError) {
        handle(.requestDidFailToCreateURLRequestWithError(request, error))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        handle(.requestDidAdaptInitialRequestToAdaptedRequest(request, initialRequest, adaptedRequest))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError) {
        handle(.requestDidFailToAdaptURLRequestWithError(request, initialRequest, error))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        handle(.requestDidCreateURLRequest(request, urlRequest))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didCreateTask task: URLSessionTask) {
        handle(.requestDidCreateTask(request, task))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didGatherMetrics metrics: TransferMetrics) {
        handle(.requestDidGatherMetrics(request, metrics))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?) {
        handle(.requestDidCompleteTaskWithError(request, task, error))
    }
    /// Hands the event to `handle(_:)`.
    open func requestIsRetrying(_ request: Request) { handle(.requestIsRetrying(request)) }
    /// Hands the event to `handle(_:)`.
    open func requestDidFinish(_ request: Request) { handle(.requestDidFinish(request)) }
    /// Hands the event to `handle(_:)`.
    open func requestDidResume(_ request: Request) { handle(.requestDidResume(request)) }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didResumeTask task: URLSessionTask) { handle(.requestDidResumeTask(request, task)) }
    /// Hands the event to `handle(_:)`.
    open func requestDidSuspend(_ request: Request) { handle(.requestDidSuspend(request)) }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didSuspendTask task: URLSessionTask) { handle(.requestDidSuspendTask(request, task)) }
    /// Hands the event to `handle(_:)`.
    open func requestDidCancel(_ request: Request) { handle(.requestDidCancel(request)) }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didCancelTask task: URLSessionTask) { handle(.requestDidCancelTask(request, task)) }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult) {
        handle(.requestDidValidateRequestResponseDataWithResult(request, urlRequest, response, data, result))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>) {
        handle(.requestDidParseResponse(request, response))
    }
    /// Hands the event to `handle(_:)`.
    open func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>) {
        handle(.requestDidParseSerializedResponse(request, SerializedResponse(response)))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        handle(.requestDidCreateUploadable(request, uploadable))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: ClientError) {
        handle(.requestDidFailToCreateUploadableWithError(request, error))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, ClientError>) {
        handle(.requestDidFinishDownloadingUsingTaskWithResult(request, task, result))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        handle(.requestDidCreateDestinationURL(request, url))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
                        withResult result: ValidationResult) {
        handle(.requestDidValidateRequestResponseFileURLWithResult(request, urlRequest, response, fileURL, result))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, ClientError>) {
        handle(.requestDidParseDownloadResponse(request, response))
    }
    /// Hands the event to `handle(_:)`.
    open func request<Value>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, ClientError>) {
        handle(.requestDidParseSerializedDownloadResponse(request, SerializedResponse(response)))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
                        withResult result: ValidationResult) {
        handle(.requestDidValidateRequestResponseWithResult(request, urlRequest, response, result))
    }
    /// Hands the event to `handle(_:)`.
    open func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, ClientError>) {
        handle(.requestDidParseStream(request, ParsedStream(result)))
    }
    /// Hands the event to `handle(_:)`.
    open func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) {
        handle(.requestDidObserveAnomaly(request, anomaly, task))
    }

    /// A closure over a pack of arguments, in a struct (the runtime cannot cast such function
    /// values to and from `Any` directly).
    private struct TypedClosure<each Argument>: Sendable {
        let body: @Sendable (repeat each Argument) -> Void
    }

    /// The closure stored for the event named like the calling property (`#function`).
    func closure<each Argument>(named name: String = #function) -> (@Sendable (repeat each Argument) -> Void)? {
        (closures.read { $0[name] }?.closure as? TypedClosure<repeat each Argument>)?.body
    }

    /// Stores `closure` for the event named like the calling property (`#function`); nil removes it.
    func setClosure<each Argument>(_ closure: (@Sendable (repeat each Argument) -> Void)?, named name: String = #function) {
        guard let closure else {
            closures.write { $0[name] = nil }
            return
        }
        let entry = EventClosure(closure: TypedClosure(body: closure)) { payload in
            guard let arguments = payload as? (repeat each Argument) else {
                assertionFailure("tapedeck: the closure for \(name) does not take the event's values")
                return
            }
            closure(repeat each arguments)
        }
        closures.write { $0[name] = entry }
    }
}
