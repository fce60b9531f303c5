public import Foundation
public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Receives the events of a Session and its requests. Every method has an empty default.
///
/// Events are delivered asynchronously, each as its own job on the monitor's ``queue`` (nil: the
/// session's rootQueue — with the monitor on the rootQueue, the order it sees is the exact order of
/// emission). Unlike Alamofire, nothing defaults to the main queue.
public protocol EventMonitor: Sendable {
    /// Where this monitor's events run (nil: the session's rootQueue).
    var queue: (any SchedulerQueue)? { get }

    // URLSession-level events (session monitors only).
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest)
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics)
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse)
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)

    // Request-level events.
    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest)
    func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError)
    func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest)
    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError)
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest)
    func request(_ request: Request, didCreateTask task: URLSessionTask)
    func request(_ request: Request, didGatherMetrics metrics: TransferMetrics)
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?)
    func requestIsRetrying(_ request: Request)
    func requestDidFinish(_ request: Request)
    func requestDidResume(_ request: Request)
    func request(_ request: Request, didResumeTask task: URLSessionTask)
    func requestDidSuspend(_ request: Request)
    func request(_ request: Request, didSuspendTask task: URLSessionTask)
    func requestDidCancel(_ request: Request)
    func request(_ request: Request, didCancelTask task: URLSessionTask)
    func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult)
    func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>)
    func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>)

    /// Not in Alamofire: the task ledger saw something a transport should never do (metrics never
    /// came within the grace period, metrics twice, completion twice). Tapedeck reports instead of
    /// hanging or crashing.
    func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask)
}

extension EventMonitor {
    public var queue: (any SchedulerQueue)? { nil }
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {}
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {}
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError) {}
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {}
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError) {}
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {}
    public func request(_ request: Request, didCreateTask task: URLSessionTask) {}
    public func request(_ request: Request, didGatherMetrics metrics: TransferMetrics) {}
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?) {}
    public func requestIsRetrying(_ request: Request) {}
    public func requestDidFinish(_ request: Request) {}
    public func requestDidResume(_ request: Request) {}
    public func request(_ request: Request, didResumeTask task: URLSessionTask) {}
    public func requestDidSuspend(_ request: Request) {}
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) {}
    public func requestDidCancel(_ request: Request) {}
    public func request(_ request: Request, didCancelTask task: URLSessionTask) {}
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult) {}
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>) {}
    public func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>) {}
    public func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) {}
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
