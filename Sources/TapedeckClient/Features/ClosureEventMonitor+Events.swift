public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Alamofire's per-event closures of ClosureEventMonitor, one line each. A property's name is the
// name of its ClientEvent case (that is the key its closure is stored under, through `#function`),
// and its arguments are that case's values, in order; ClosureEventMonitorTests checks every one.

extension ClosureEventMonitor {
    /// ``ClientEvent/sessionDidBecomeInvalidWithError(_:_:)``
    public var sessionDidBecomeInvalidWithError: (@Sendable (URLSession, (any Error)?) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/taskWillPerformHTTPRedirection(_:_:_:_:)``
    public var taskWillPerformHTTPRedirection: (@Sendable (URLSession, URLSessionTask, HTTPURLResponse, URLRequest) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/taskDidFinishCollectingMetrics(_:_:_:)``
    public var taskDidFinishCollectingMetrics: (@Sendable (URLSession, URLSessionTask, TransferMetrics) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/taskDidComplete(_:_:_:)``
    public var taskDidComplete: (@Sendable (URLSession, URLSessionTask, (any Error)?) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/dataTaskDidReceiveResponse(_:_:_:)``
    public var dataTaskDidReceiveResponse: (@Sendable (URLSession, URLSessionDataTask, URLResponse) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/dataTaskDidReceiveData(_:_:_:)``
    public var dataTaskDidReceiveData: (@Sendable (URLSession, URLSessionDataTask, Data) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCreateInitialURLRequest(_:_:)``
    public var requestDidCreateInitialURLRequest: (@Sendable (Request, URLRequest) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidFailToCreateURLRequestWithError(_:_:)``
    public var requestDidFailToCreateURLRequestWithError: (@Sendable (Request, ClientError) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidAdaptInitialRequestToAdaptedRequest(_:_:_:)``
    public var requestDidAdaptInitialRequestToAdaptedRequest: (@Sendable (Request, URLRequest, URLRequest) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidFailToAdaptURLRequestWithError(_:_:_:)``
    public var requestDidFailToAdaptURLRequestWithError: (@Sendable (Request, URLRequest, ClientError) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCreateURLRequest(_:_:)``
    public var requestDidCreateURLRequest: (@Sendable (Request, URLRequest) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCreateTask(_:_:)``
    public var requestDidCreateTask: (@Sendable (Request, URLSessionTask) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidGatherMetrics(_:_:)``
    public var requestDidGatherMetrics: (@Sendable (Request, TransferMetrics) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCompleteTaskWithError(_:_:_:)``
    public var requestDidCompleteTaskWithError: (@Sendable (Request, URLSessionTask, ClientError?) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestIsRetrying(_:)``
    public var requestIsRetrying: (@Sendable (Request) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidFinish(_:)``
    public var requestDidFinish: (@Sendable (Request) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidResume(_:)``
    public var requestDidResume: (@Sendable (Request) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidResumeTask(_:_:)``
    public var requestDidResumeTask: (@Sendable (Request, URLSessionTask) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidSuspend(_:)``
    public var requestDidSuspend: (@Sendable (Request) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidSuspendTask(_:_:)``
    public var requestDidSuspendTask: (@Sendable (Request, URLSessionTask) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCancel(_:)``
    public var requestDidCancel: (@Sendable (Request) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCancelTask(_:_:)``
    public var requestDidCancelTask: (@Sendable (Request, URLSessionTask) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidValidateRequestResponseDataWithResult(_:_:_:_:_:)``
    public var requestDidValidateRequestResponseDataWithResult: (@Sendable (DataRequest, URLRequest?, HTTPURLResponse, Data?, Request.ValidationResult) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidParseResponse(_:_:)`` (unserialized responses only, as in Alamofire)
    public var requestDidParseResponse: (@Sendable (DataRequest, DataResponse<Data?, ClientError>) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidParseSerializedResponse(_:_:)`` (not in Alamofire)
    public var requestDidParseSerializedResponse: (@Sendable (DataRequest, SerializedResponse) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidObserveAnomaly(_:_:_:)`` (not in Alamofire)
    public var requestDidObserveAnomaly: (@Sendable (Request, TaskLedgerAnomaly, URLSessionTask) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/taskDidSendBodyData(_:_:_:_:_:)``
    public var taskDidSendBodyData: (@Sendable (URLSession, URLSessionTask, Int64, Int64, Int64) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCreateUploadable(_:_:)``
    public var requestDidCreateUploadable: (@Sendable (UploadRequest, UploadRequest.Uploadable) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidFailToCreateUploadableWithError(_:_:)``
    public var requestDidFailToCreateUploadableWithError: (@Sendable (UploadRequest, ClientError) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidFinishDownloadingUsingTaskWithResult(_:_:_:)``
    public var requestDidFinishDownloadingUsingTaskWithResult: (@Sendable (DownloadRequest, URLSessionTask, Result<URL, ClientError>) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidCreateDestinationURL(_:_:)``
    public var requestDidCreateDestinationURL: (@Sendable (DownloadRequest, URL) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidValidateRequestResponseFileURLWithResult(_:_:_:_:_:)``
    public var requestDidValidateRequestResponseFileURLWithResult: (@Sendable (DownloadRequest, URLRequest?, HTTPURLResponse, URL?, ValidationResult) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidParseDownloadResponse(_:_:)``
    public var requestDidParseDownloadResponse: (@Sendable (DownloadRequest, DownloadResponse<URL?, ClientError>) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidParseSerializedDownloadResponse(_:_:)`` (not in Alamofire)
    public var requestDidParseSerializedDownloadResponse: (@Sendable (DownloadRequest, SerializedResponse) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidValidateRequestResponseWithResult(_:_:_:_:)``
    public var requestDidValidateRequestResponseWithResult: (@Sendable (DataStreamRequest, URLRequest?, HTTPURLResponse, ValidationResult) -> Void)? { get { closure() } set { setClosure(newValue) } }
    /// ``ClientEvent/requestDidParseStream(_:_:)`` (not in Alamofire)
    public var requestDidParseStream: (@Sendable (DataStreamRequest, ParsedStream) -> Void)? { get { closure() } set { setClosure(newValue) } }
}
