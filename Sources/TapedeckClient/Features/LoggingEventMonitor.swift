public import Logging
public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
public import TapedeckScheduling

/// Logs every event through swift-log: `<request> <event>(<detail>)`.
///
/// ```swift
/// let session = Session(provider: harness, scheduler: scheduler,
///                       eventMonitors: [LoggingEventMonitor(logger: Logger(label: "api"))])
/// ```
public struct LoggingEventMonitor: EventMonitor {
    private let inner: ClosureEventMonitor

    public var queue: (any SchedulerQueue)? { inner.queue }

    public init(logger: Logger, level: Logger.Level = .debug, queue: (any SchedulerQueue)? = nil) {
        inner = ClosureEventMonitor(queue: queue) { event in
            let subject = event.request.map { "[\($0.description)] " } ?? ""
            logger.log(level: level, "\(subject)\(event)")
        }
    }
}

// Forward every event to the closure monitor.
extension LoggingEventMonitor {
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) { inner.request(request, didCreateInitialURLRequest: urlRequest) }
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError) { inner.request(request, didFailToCreateURLRequestWithError: error) }
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) { inner.request(request, didAdaptInitialRequest: initialRequest, to: adaptedRequest) }
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError) { inner.request(request, didFailToAdaptURLRequest: initialRequest, withError: error) }
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) { inner.request(request, didCreateURLRequest: urlRequest) }
    public func request(_ request: Request, didCreateTask task: URLSessionTask) { inner.request(request, didCreateTask: task) }
    public func request(_ request: Request, didGatherMetrics metrics: TransferMetrics) { inner.request(request, didGatherMetrics: metrics) }
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?) { inner.request(request, didCompleteTask: task, with: error) }
    public func requestIsRetrying(_ request: Request) { inner.requestIsRetrying(request) }
    public func requestDidFinish(_ request: Request) { inner.requestDidFinish(request) }
    public func requestDidResume(_ request: Request) { inner.requestDidResume(request) }
    public func request(_ request: Request, didResumeTask task: URLSessionTask) { inner.request(request, didResumeTask: task) }
    public func requestDidSuspend(_ request: Request) { inner.requestDidSuspend(request) }
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) { inner.request(request, didSuspendTask: task) }
    public func requestDidCancel(_ request: Request) { inner.requestDidCancel(request) }
    public func request(_ request: Request, didCancelTask task: URLSessionTask) { inner.request(request, didCancelTask: task) }
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult) { inner.request(request, didValidateRequest: urlRequest, response: response, data: data, withResult: result) }
    public func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>) { inner.request(request, didParseResponse: response) }
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>) { inner.request(request, didParseResponse: response) }
    public func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) { inner.request(request, didObserve: anomaly, for: task) }
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { inner.urlSession(session, task: task, didCompleteWithError: error) }
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) { inner.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) }
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) { inner.urlSession(session, didBecomeInvalidWithError: error) }
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics) { inner.urlSession(session, task: task, didFinishCollecting: metrics) }
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) { inner.urlSession(session, dataTask: dataTask, didReceive: response) }
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) { inner.urlSession(session, dataTask: dataTask, didReceive: data) }
}
