public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// One event of a Session or of one of its requests, as a value.
///
/// This is the one list of events: ``EventMonitor``'s methods turn their arguments into a case,
/// ``deliver(to:)`` turns a case back into the method call, and the monitors that treat every event
/// alike (``CompositeEventMonitor``, ``ClosureEventMonitor``, ``LoggingEventMonitor``) see only
/// values. Cases are named after the closure properties of Alamofire's `ClosureEventMonitor`.
///
/// ```swift
/// let monitor = ClosureEventMonitor { event in
///     if case let .requestDidCompleteTaskWithError(request, _, error?) = event { print(request, error) }
/// }
/// ```
public enum ClientEvent: @unchecked Sendable {
    // @unchecked Sendable: requests and responses are Sendable; the URLSession objects (a session, a
    // task, a response head) are only passed on to monitors, which read them as URLSession's own
    // delegates would.

    /// ``EventMonitor/urlSession(_:didBecomeInvalidWithError:)``
    case sessionDidBecomeInvalidWithError(URLSession, (any Error)?)
    /// ``EventMonitor/urlSession(_:task:willPerformHTTPRedirection:newRequest:)``
    case taskWillPerformHTTPRedirection(URLSession, URLSessionTask, HTTPURLResponse, URLRequest)
    /// ``EventMonitor/urlSession(_:task:didFinishCollecting:)``
    case taskDidFinishCollectingMetrics(URLSession, URLSessionTask, TransferMetrics)
    /// ``EventMonitor/urlSession(_:task:didCompleteWithError:)``
    case taskDidComplete(URLSession, URLSessionTask, (any Error)?)
    /// `urlSession(_:dataTask:didReceive:)` with the response head
    case dataTaskDidReceiveResponse(URLSession, URLSessionDataTask, URLResponse)
    /// `urlSession(_:dataTask:didReceive:)` with body bytes
    case dataTaskDidReceiveData(URLSession, URLSessionDataTask, Data)
    /// ``EventMonitor/urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)``
    case taskDidSendBodyData(URLSession, URLSessionTask, Int64, Int64, Int64)
    /// ``EventMonitor/request(_:didCreateInitialURLRequest:)``
    case requestDidCreateInitialURLRequest(Request, URLRequest)
    /// ``EventMonitor/request(_:didFailToCreateURLRequestWithError:)``
    case requestDidFailToCreateURLRequestWithError(Request, ClientError)
    /// ``EventMonitor/request(_:didAdaptInitialRequest:to:)``
    case requestDidAdaptInitialRequestToAdaptedRequest(Request, URLRequest, URLRequest)
    /// ``EventMonitor/request(_:didFailToAdaptURLRequest:withError:)``
    case requestDidFailToAdaptURLRequestWithError(Request, URLRequest, ClientError)
    /// ``EventMonitor/request(_:didCreateURLRequest:)``
    case requestDidCreateURLRequest(Request, URLRequest)
    /// ``EventMonitor/request(_:didCreateTask:)``
    case requestDidCreateTask(Request, URLSessionTask)
    /// ``EventMonitor/request(_:didGatherMetrics:)``
    case requestDidGatherMetrics(Request, TransferMetrics)
    /// ``EventMonitor/request(_:didCompleteTask:with:)``
    case requestDidCompleteTaskWithError(Request, URLSessionTask, ClientError?)
    /// ``EventMonitor/requestIsRetrying(_:)``
    case requestIsRetrying(Request)
    /// ``EventMonitor/requestDidFinish(_:)``
    case requestDidFinish(Request)
    /// ``EventMonitor/requestDidResume(_:)``
    case requestDidResume(Request)
    /// ``EventMonitor/request(_:didResumeTask:)``
    case requestDidResumeTask(Request, URLSessionTask)
    /// ``EventMonitor/requestDidSuspend(_:)``
    case requestDidSuspend(Request)
    /// ``EventMonitor/request(_:didSuspendTask:)``
    case requestDidSuspendTask(Request, URLSessionTask)
    /// ``EventMonitor/requestDidCancel(_:)``
    case requestDidCancel(Request)
    /// ``EventMonitor/request(_:didCancelTask:)``
    case requestDidCancelTask(Request, URLSessionTask)
    /// ``EventMonitor/request(_:didValidateRequest:response:data:withResult:)``
    case requestDidValidateRequestResponseDataWithResult(DataRequest, URLRequest?, HTTPURLResponse, Data?, ValidationResult)
    /// `request(_:didParseResponse:)` with an unserialized `DataResponse<Data?, ClientError>`.
    case requestDidParseResponse(DataRequest, DataResponse<Data?, ClientError>)
    /// The generic `request(_:didParseResponse:)`, with a serializer's response.
    case requestDidParseSerializedResponse(DataRequest, SerializedResponse)
    /// ``EventMonitor/request(_:didCreateUploadable:)``
    case requestDidCreateUploadable(UploadRequest, UploadRequest.Uploadable)
    /// ``EventMonitor/request(_:didFailToCreateUploadableWithError:)``
    case requestDidFailToCreateUploadableWithError(UploadRequest, ClientError)
    /// ``EventMonitor/request(_:didFinishDownloadingUsing:with:)``
    case requestDidFinishDownloadingUsingTaskWithResult(DownloadRequest, URLSessionTask, Result<URL, ClientError>)
    /// ``EventMonitor/request(_:didCreateDestinationURL:)``
    case requestDidCreateDestinationURL(DownloadRequest, URL)
    /// ``EventMonitor/request(_:didValidateRequest:response:fileURL:withResult:)``
    case requestDidValidateRequestResponseFileURLWithResult(DownloadRequest, URLRequest?, HTTPURLResponse, URL?, ValidationResult)
    /// `request(_:didParseResponse:)` with an unserialized `DownloadResponse<URL?, ClientError>`.
    case requestDidParseDownloadResponse(DownloadRequest, DownloadResponse<URL?, ClientError>)
    /// The generic `request(_:didParseResponse:)` of a download, with a serializer's response.
    case requestDidParseSerializedDownloadResponse(DownloadRequest, SerializedResponse)
    /// ``EventMonitor/request(_:didValidateRequest:response:withResult:)``
    case requestDidValidateRequestResponseWithResult(DataStreamRequest, URLRequest?, HTTPURLResponse, ValidationResult)
    /// ``EventMonitor/request(_:didParseStream:)``, its value's type erased.
    case requestDidParseStream(DataStreamRequest, ParsedStream)
    /// ``EventMonitor/request(_:didObserve:for:)``
    case requestDidObserveAnomaly(Request, TaskLedgerAnomaly, URLSessionTask)

    /// Calls the ``EventMonitor`` method this event stands for on `monitor`.
    public func deliver(to monitor: any EventMonitor) {
        switch self {
        case let .sessionDidBecomeInvalidWithError(session, error):
            monitor.urlSession(session, didBecomeInvalidWithError: error)
        case let .taskWillPerformHTTPRedirection(session, task, response, request):
            monitor.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request)
        case let .taskDidFinishCollectingMetrics(session, task, metrics):
            monitor.urlSession(session, task: task, didFinishCollecting: metrics)
        case let .taskDidComplete(session, task, error):
            monitor.urlSession(session, task: task, didCompleteWithError: error)
        case let .dataTaskDidReceiveResponse(session, task, response):
            monitor.urlSession(session, dataTask: task, didReceive: response)
        case let .dataTaskDidReceiveData(session, task, data):
            monitor.urlSession(session, dataTask: task, didReceive: data)
        case let .taskDidSendBodyData(session, task, sent, total, expected):
            monitor.urlSession(session, task: task, didSendBodyData: sent, totalBytesSent: total, totalBytesExpectedToSend: expected)
        case let .requestDidCreateInitialURLRequest(request, urlRequest):
            monitor.request(request, didCreateInitialURLRequest: urlRequest)
        case let .requestDidFailToCreateURLRequestWithError(request, error):
            monitor.request(request, didFailToCreateURLRequestWithError: error)
        case let .requestDidAdaptInitialRequestToAdaptedRequest(request, initial, adapted):
            monitor.request(request, didAdaptInitialRequest: initial, to: adapted)
        case let .requestDidFailToAdaptURLRequestWithError(request, initial, error):
            monitor.request(request, didFailToAdaptURLRequest: initial, withError: error)
        case let .requestDidCreateURLRequest(request, urlRequest):
            monitor.request(request, didCreateURLRequest: urlRequest)
        case let .requestDidCreateTask(request, task):
            monitor.request(request, didCreateTask: task)
        case let .requestDidGatherMetrics(request, metrics):
            monitor.request(request, didGatherMetrics: metrics)
        case let .requestDidCompleteTaskWithError(request, task, error):
            monitor.request(request, didCompleteTask: task, with: error)
        case let .requestIsRetrying(request):
            monitor.requestIsRetrying(request)
        case let .requestDidFinish(request):
            monitor.requestDidFinish(request)
        case let .requestDidResume(request):
            monitor.requestDidResume(request)
        case let .requestDidResumeTask(request, task):
            monitor.request(request, didResumeTask: task)
        case let .requestDidSuspend(request):
            monitor.requestDidSuspend(request)
        case let .requestDidSuspendTask(request, task):
            monitor.request(request, didSuspendTask: task)
        case let .requestDidCancel(request):
            monitor.requestDidCancel(request)
        case let .requestDidCancelTask(request, task):
            monitor.request(request, didCancelTask: task)
        case let .requestDidValidateRequestResponseDataWithResult(request, urlRequest, response, data, result):
            monitor.request(request, didValidateRequest: urlRequest, response: response, data: data, withResult: result)
        case let .requestDidParseResponse(request, response):
            monitor.request(request, didParseResponse: response)
        case let .requestDidParseSerializedResponse(request, response):
            response.deliver(to: monitor, request)
        case let .requestDidCreateUploadable(request, uploadable):
            monitor.request(request, didCreateUploadable: uploadable)
        case let .requestDidFailToCreateUploadableWithError(request, error):
            monitor.request(request, didFailToCreateUploadableWithError: error)
        case let .requestDidFinishDownloadingUsingTaskWithResult(request, task, result):
            monitor.request(request, didFinishDownloadingUsing: task, with: result)
        case let .requestDidCreateDestinationURL(request, url):
            monitor.request(request, didCreateDestinationURL: url)
        case let .requestDidValidateRequestResponseFileURLWithResult(request, urlRequest, response, fileURL, result):
            monitor.request(request, didValidateRequest: urlRequest, response: response, fileURL: fileURL, withResult: result)
        case let .requestDidParseDownloadResponse(request, response):
            monitor.request(request, didParseResponse: response)
        case let .requestDidParseSerializedDownloadResponse(request, response):
            response.deliver(to: monitor, request)
        case let .requestDidValidateRequestResponseWithResult(request, urlRequest, response, result):
            monitor.request(request, didValidateRequest: urlRequest, response: response, withResult: result)
        case let .requestDidParseStream(request, parsed):
            parsed.deliver(to: monitor, request)
        case let .requestDidObserveAnomaly(request, anomaly, task):
            monitor.request(request, didObserve: anomaly, for: task)
        }
    }
}

/// A serializer's response with its value type erased, so that it fits in a ``ClientEvent``;
/// delivering it calls the generic `request(_:didParseResponse:)` with the original type.
public struct SerializedResponse: Sendable {
    /// The response (a `DataResponse<Value, ClientError>` or a `DownloadResponse<Value, ClientError>`).
    public let base: any Sendable
    /// The response's error, if it failed.
    public let error: ClientError?
    private let redeliver: @Sendable (any EventMonitor, Request) -> Void

    /// A data request's serialized response.
    public init<Value>(_ response: DataResponse<Value, ClientError>) {
        base = response
        error = response.error
        redeliver = { monitor, request in
            if let request = request as? DataRequest { monitor.request(request, didParseResponse: response) }
        }
    }

    /// A download's serialized response.
    public init<Value>(_ response: DownloadResponse<Value, ClientError>) {
        base = response
        error = response.error
        redeliver = { monitor, request in
            if let request = request as? DownloadRequest { monitor.request(request, didParseResponse: response) }
        }
    }

    func deliver(to monitor: any EventMonitor, _ request: Request) {
        redeliver(monitor, request)
    }
}

/// A stream piece's serialized result with its value type erased, so that it fits in a
/// ``ClientEvent``; delivering it calls the generic `request(_:didParseStream:)` with the original type.
public struct ParsedStream: Sendable {
    /// The result (a `Result<Value, ClientError>`).
    public let base: any Sendable
    /// The result's error, if the piece failed to serialize.
    public let error: ClientError?
    private let redeliver: @Sendable (any EventMonitor, DataStreamRequest) -> Void

    /// A piece's result.
    public init<Value: Sendable>(_ result: Result<Value, ClientError>) {
        base = result
        if case let .failure(error) = result { self.error = error } else { error = nil }
        redeliver = { monitor, request in monitor.request(request, didParseStream: result) }
    }

    func deliver(to monitor: any EventMonitor, _ request: DataStreamRequest) {
        redeliver(monitor, request)
    }
}
