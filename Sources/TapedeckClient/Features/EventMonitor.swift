public import Foundation
public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Receives the events of a Session and its requests.
///
/// The methods are Alamofire's, so a monitor written against Alamofire's `EventMonitor` keeps
/// compiling (with ``ClientError`` for `AFError` and `TransferMetrics` for
/// `URLSessionTaskMetrics`). Each method you leave out hands its event, as a ``ClientEvent``
/// value, to ``handle(_:)``; implement that one method to see every event in one place:
///
/// ```swift
/// final class Timeline: EventMonitor {
///     let log = Mutex<[String]>([])   // Synchronization
///     func handle(_ event: ClientEvent) { log.withLock { $0.append(event.name) } }
///     func requestDidFinish(_ request: Request) { log.withLock { $0.append("finished \(request)") } }
/// }
/// ```
///
/// Events are delivered asynchronously, each as its own job on the monitor's ``queue`` (nil: the
/// session's rootQueue — with the monitor on the rootQueue, the order it sees is the exact order of
/// emission). Unlike Alamofire, nothing defaults to the main queue.
public protocol EventMonitor: Sendable {
    /// Where this monitor's events run (nil: the session's rootQueue).
    var queue: (any SchedulerQueue)? { get }

    /// Receives every event whose own method this monitor does not implement. Empty by default.
    func handle(_ event: ClientEvent)

    // URLSession-level events (session monitors only).

    /// The URLSession was invalidated.
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)
    /// The transport is about to follow a redirect (the session's redirect handler decides how).
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest)
    /// The transport delivered a task's metrics.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics)
    /// A task completed, with or without an error.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
    /// A data task received its response head.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse)
    /// A data task received some body bytes.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
    /// A task met an authentication challenge. Never sent (the transports answer no challenges);
    /// a requirement so that a monitor forwarding it to another, as Alamofire apps do, compiles.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge)
    /// An upload task sent body bytes (URLSession's own transports report it; the simulated and
    /// recorded ones do not, and an ``UploadRequest`` then reports its body sent when the response begins).
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                    totalBytesExpectedToSend: Int64)
    /// A streamed upload's task asks for its body (URLSession's own transports ask; the simulated
    /// and recorded ones read the request's stream). Does nothing by default.
    func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask)
    /// A task waits for connectivity. Never sent; a requirement, as above.
    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask)
    /// A data task's response may be cached: sent when a URLSession's own loader offers one to its
    /// cache (the simulated, recorded and replayed transports never do). Does nothing by default.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse)

    // Request-level events.

    /// The request built its first URLRequest (before adaptation).
    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest)
    /// Building the URLRequest failed.
    func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError)
    /// The interceptors adapted the URLRequest.
    func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest)
    /// An adapter failed.
    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError)
    /// The URLRequest this attempt sends is final.
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest)
    /// The attempt's URLSessionTask exists.
    func request(_ request: Request, didCreateTask task: URLSessionTask)
    /// The attempt's metrics reached the request.
    func request(_ request: Request, didGatherMetrics metrics: TransferMetrics)
    /// The attempt's task completed (after its metrics, where the transport delivers them).
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?)
    /// A retrier asked for another attempt, which starts now.
    func requestIsRetrying(_ request: Request)
    /// The request is finished: no more attempts.
    func requestDidFinish(_ request: Request)
    /// `resume()` was called.
    func requestDidResume(_ request: Request)
    /// The task was resumed.
    func request(_ request: Request, didResumeTask task: URLSessionTask)
    /// `suspend()` was called.
    func requestDidSuspend(_ request: Request)
    /// The task was suspended.
    func request(_ request: Request, didSuspendTask task: URLSessionTask)
    /// `cancel()` was called.
    func requestDidCancel(_ request: Request)
    /// The task was cancelled.
    func request(_ request: Request, didCancelTask task: URLSessionTask)
    /// A validator ran.
    func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult)
    /// An unserialized response (`response(queue:completionHandler:)`) is ready.
    func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>)
    /// A serializer produced its response.
    func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>)
    /// An upload request made its body.
    func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable)
    /// An upload request could not make its body.
    func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: ClientError)
    /// A download's body was written to a temporary file (or writing it failed).
    func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, ClientError>)
    /// A download's destination said where its file goes.
    func request(_ request: DownloadRequest, didCreateDestinationURL url: URL)
    /// A download's validator ran.
    func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
                 withResult result: ValidationResult)
    /// A download's unserialized response (`response(queue:completionHandler:)`) is ready.
    func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, ClientError>)
    /// A download's serializer produced its response.
    func request<Value>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, ClientError>)
    /// A stream's validator ran (once its body ended).
    func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
                 withResult result: ValidationResult)
    /// A stream's serializer turned a piece into a value (or failed to).
    func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, ClientError>)

    /// Not in Alamofire: the task ledger saw something a transport should never do (metrics never
    /// came within the grace period, metrics twice, completion twice). Tapedeck reports instead of
    /// hanging or crashing.
    func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask)
}

// Every event method hands its event to `handle(_:)` unless a monitor implements it.
extension EventMonitor {
    /// No queue of its own: the session's rootQueue.
    public var queue: (any SchedulerQueue)? { nil }
    /// Ignores the event.
    public func handle(_ event: ClientEvent) {}

    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        handle(.sessionDidBecomeInvalidWithError(session, error))
    }
    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        handle(.taskWillPerformHTTPRedirection(session, task, response, request))
    }
    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics) {
        handle(.taskDidFinishCollectingMetrics(session, task, metrics))
    }
    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        handle(.taskDidComplete(session, task, error))
    }
    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        handle(.dataTaskDidReceiveResponse(session, dataTask, response))
    }
    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handle(.dataTaskDidReceiveData(session, dataTask, data))
    }
    /// Does nothing (never sent).
    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {}
    /// Hands the event to `handle(_:)`.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                           totalBytesExpectedToSend: Int64) {
        handle(.taskDidSendBodyData(session, task, bytesSent, totalBytesSent, totalBytesExpectedToSend))
    }
    /// Does nothing (see the requirement).
    public func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask) {}
    /// Does nothing (never sent).
    public func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {}
    /// Does nothing (never sent).
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {}
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        handle(.requestDidCreateInitialURLRequest(request, urlRequest))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError) {
        handle(.requestDidFailToCreateURLRequestWithError(request, error))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        handle(.requestDidAdaptInitialRequestToAdaptedRequest(request, initialRequest, adaptedRequest))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError) {
        handle(.requestDidFailToAdaptURLRequestWithError(request, initialRequest, error))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        handle(.requestDidCreateURLRequest(request, urlRequest))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didCreateTask task: URLSessionTask) {
        handle(.requestDidCreateTask(request, task))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didGatherMetrics metrics: TransferMetrics) {
        handle(.requestDidGatherMetrics(request, metrics))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?) {
        handle(.requestDidCompleteTaskWithError(request, task, error))
    }
    /// Hands the event to `handle(_:)`.
    public func requestIsRetrying(_ request: Request) { handle(.requestIsRetrying(request)) }
    /// Hands the event to `handle(_:)`.
    public func requestDidFinish(_ request: Request) { handle(.requestDidFinish(request)) }
    /// Hands the event to `handle(_:)`.
    public func requestDidResume(_ request: Request) { handle(.requestDidResume(request)) }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didResumeTask task: URLSessionTask) { handle(.requestDidResumeTask(request, task)) }
    /// Hands the event to `handle(_:)`.
    public func requestDidSuspend(_ request: Request) { handle(.requestDidSuspend(request)) }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) { handle(.requestDidSuspendTask(request, task)) }
    /// Hands the event to `handle(_:)`.
    public func requestDidCancel(_ request: Request) { handle(.requestDidCancel(request)) }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didCancelTask task: URLSessionTask) { handle(.requestDidCancelTask(request, task)) }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult) {
        handle(.requestDidValidateRequestResponseDataWithResult(request, urlRequest, response, data, result))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>) {
        handle(.requestDidParseResponse(request, response))
    }
    /// Hands the event to `handle(_:)`.
    public func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>) {
        handle(.requestDidParseSerializedResponse(request, SerializedResponse(response)))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        handle(.requestDidCreateUploadable(request, uploadable))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: ClientError) {
        handle(.requestDidFailToCreateUploadableWithError(request, error))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, ClientError>) {
        handle(.requestDidFinishDownloadingUsingTaskWithResult(request, task, result))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        handle(.requestDidCreateDestinationURL(request, url))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
                        withResult result: ValidationResult) {
        handle(.requestDidValidateRequestResponseFileURLWithResult(request, urlRequest, response, fileURL, result))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, ClientError>) {
        handle(.requestDidParseDownloadResponse(request, response))
    }
    /// Hands the event to `handle(_:)`.
    public func request<Value>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, ClientError>) {
        handle(.requestDidParseSerializedDownloadResponse(request, SerializedResponse(response)))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse,
                        withResult result: ValidationResult) {
        handle(.requestDidValidateRequestResponseWithResult(request, urlRequest, response, result))
    }
    /// Hands the event to `handle(_:)`.
    public func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, ClientError>) {
        handle(.requestDidParseStream(request, ParsedStream(result)))
    }
    /// Hands the event to `handle(_:)`.
    public func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) {
        handle(.requestDidObserveAnomaly(request, anomaly, task))
    }
}

/// Something the task ledger saw that a well-behaved transport never does.
public enum TaskLedgerAnomaly: String, Hashable, Sendable {
    /// The transport promised metrics, but none came within the grace period after completion.
    case metricsMissing
    /// Metrics for a task came twice; the second delivery was ignored.
    case duplicateMetrics
    /// The completion for a task came twice; the second was ignored.
    case duplicateCompletion
}
