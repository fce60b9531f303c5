public import Foundation
public import TapedeckHTTP
public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// One event, as a value: its name (Alamofire's method name; URLSession-level events are prefixed
/// `urlSession.`), the request and task it concerns, and a short detail.
public struct ClientEvent: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the request is Sendable; the task is only read (state, identifier).
    public let name: String
    public let request: Request?
    public let task: URLSessionTask?
    public let detail: String

    public var description: String {
        detail.isEmpty ? name : "\(name)(\(detail))"
    }
}

/// Hands every event, as a ``ClientEvent``, to one closure.
///
/// ```swift
/// let names = Mutex<[String]>([])   // Synchronization
/// let monitor = ClosureEventMonitor { event in names.withLock { $0.append(event.name) } }
/// ```
public struct ClosureEventMonitor: EventMonitor {
    public let queue: (any SchedulerQueue)?
    let handler: @Sendable (ClientEvent) -> Void

    public init(queue: (any SchedulerQueue)? = nil, _ handler: @escaping @Sendable (ClientEvent) -> Void) {
        self.queue = queue
        self.handler = handler
    }

    private func emit(_ name: String, _ request: Request? = nil, _ task: URLSessionTask? = nil, _ detail: String = "") {
        handler(ClientEvent(name: name, request: request, task: task, detail: detail))
    }

    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        emit("urlSession.didBecomeInvalid", nil, nil, error.map { "\($0)" } ?? "")
    }
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        emit("urlSession.willPerformHTTPRedirection", nil, task, "\(response.statusCode) → \(request.url?.absoluteString ?? "")")
    }
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: TransferMetrics) {
        emit("urlSession.didFinishCollecting", nil, task)
    }
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        emit("urlSession.didCompleteWithError", nil, task, error.map(Self.describe) ?? "nil")
    }
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        emit("urlSession.didReceiveResponse", nil, dataTask, "\((response as? HTTPURLResponse)?.statusCode ?? 0)")
    }
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        emit("urlSession.didReceiveData", nil, dataTask, "\(data.count)")
    }
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        emit("didCreateInitialURLRequest", request)
    }
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: ClientError) {
        emit("didFailToCreateURLRequest", request, nil, Self.describe(error))
    }
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        emit("didAdaptInitialRequest", request)
    }
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: ClientError) {
        emit("didFailToAdaptURLRequest", request, nil, Self.describe(error))
    }
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        emit("didCreateURLRequest", request)
    }
    public func request(_ request: Request, didCreateTask task: URLSessionTask) {
        emit("didCreateTask", request, task)
    }
    public func request(_ request: Request, didGatherMetrics metrics: TransferMetrics) {
        emit("didGatherMetrics", request)
    }
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: ClientError?) {
        emit("didCompleteTask", request, task, error.map(Self.describe) ?? "nil")
    }
    public func requestIsRetrying(_ request: Request) { emit("requestIsRetrying", request) }
    public func requestDidFinish(_ request: Request) { emit("requestDidFinish", request) }
    public func requestDidResume(_ request: Request) { emit("requestDidResume", request) }
    public func request(_ request: Request, didResumeTask task: URLSessionTask) { emit("didResumeTask", request, task) }
    public func requestDidSuspend(_ request: Request) { emit("requestDidSuspend", request) }
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) { emit("didSuspendTask", request, task) }
    public func requestDidCancel(_ request: Request) { emit("requestDidCancel", request) }
    public func request(_ request: Request, didCancelTask task: URLSessionTask) { emit("didCancelTask", request, task) }
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: ValidationResult) {
        switch result {
        case .success: emit("didValidateRequest", request, nil, "ok")
        case let .failure(error): emit("didValidateRequest", request, nil, Self.describe(error))
        }
    }
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, ClientError>) {
        emit("didParseResponse", request, nil, response.error.map(Self.describe) ?? "ok")
    }
    public func request<Value>(_ request: DataRequest, didParseResponse response: DataResponse<Value, ClientError>) {
        emit("didParseResponse", request, nil, response.error.map(Self.describe) ?? "ok")
    }
    public func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) {
        emit("ledgerAnomaly", request, task, anomaly.rawValue)
    }

    /// A short, stable description of an error for event details.
    static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError { return "URLError(\(urlError.code.rawValue))" }
        guard let clientError = error as? ClientError else { return "\(type(of: error))" }
        switch clientError {
        case let .sessionTaskFailed(error): return "sessionTaskFailed(\(describe(error)))"
        case let .requestAdaptationFailed(error): return "requestAdaptationFailed(\(describe(error)))"
        case let .requestRetryFailed(retryError, originalError): return "requestRetryFailed(\(describe(retryError)), \(describe(originalError)))"
        case let .responseValidationFailed(reason):
            switch reason {
            case let .unacceptableStatusCode(code): return "unacceptableStatusCode(\(code))"
            case let .unacceptableContentType(_, type): return "unacceptableContentType(\(type))"
            case .missingContentType: return "missingContentType"
            case let .customValidationFailed(error): return "customValidationFailed(\(describe(error)))"
            }
        case let .responseSerializationFailed(reason): return "responseSerializationFailed(\(reason))"
        default: return "\(clientError)"
        }
    }
}
