#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

// A short, stable spelling of each event, for logs and for tests that compare event lists.
extension ClientEvent: CustomStringConvertible {
    /// The event's name (Alamofire's method name; URLSession-level events are prefixed
    /// `urlSession.`) and its detail, e.g. `didCompleteTask(nil)`.
    public var description: String {
        detail.isEmpty ? name : "\(name)(\(detail))"
    }

    /// Alamofire's method name, e.g. `didCompleteTask` or `urlSession.didReceiveData`.
    public var name: String { summary.name }
    /// The request the event concerns (nil for URLSession-level events).
    public var request: Request? { summary.request }
    /// The task the event concerns, if any.
    public var task: URLSessionTask? { summary.task }
    /// A short detail: a status code, a byte count, an error's short form, or empty.
    public var detail: String { summary.detail }

    private var summary: (name: String, request: Request?, task: URLSessionTask?, detail: String) {
        switch self {
        case let .sessionDidBecomeInvalidWithError(_, error):
            ("urlSession.didBecomeInvalid", nil, nil, error.map { "\($0)" } ?? "")
        case let .taskWillPerformHTTPRedirection(_, task, response, request):
            ("urlSession.willPerformHTTPRedirection", nil, task, "\(response.statusCode) → \(request.url?.absoluteString ?? "")")
        case let .taskDidFinishCollectingMetrics(_, task, _):
            ("urlSession.didFinishCollecting", nil, task, "")
        case let .taskDidComplete(_, task, error):
            ("urlSession.didCompleteWithError", nil, task, error.map(Self.describe) ?? "nil")
        case let .dataTaskDidReceiveResponse(_, task, response):
            ("urlSession.didReceiveResponse", nil, task, "\((response as? HTTPURLResponse)?.statusCode ?? 0)")
        case let .dataTaskDidReceiveData(_, task, data):
            ("urlSession.didReceiveData", nil, task, "\(data.count)")
        case let .taskDidSendBodyData(_, task, _, total, _):
            ("urlSession.didSendBodyData", nil, task, "\(total)")
        case let .requestDidCreateInitialURLRequest(request, _):
            ("didCreateInitialURLRequest", request, nil, "")
        case let .requestDidFailToCreateURLRequestWithError(request, error):
            ("didFailToCreateURLRequest", request, nil, Self.describe(error))
        case let .requestDidAdaptInitialRequestToAdaptedRequest(request, _, _):
            ("didAdaptInitialRequest", request, nil, "")
        case let .requestDidFailToAdaptURLRequestWithError(request, _, error):
            ("didFailToAdaptURLRequest", request, nil, Self.describe(error))
        case let .requestDidCreateURLRequest(request, _):
            ("didCreateURLRequest", request, nil, "")
        case let .requestDidCreateTask(request, task):
            ("didCreateTask", request, task, "")
        case let .requestDidGatherMetrics(request, _):
            ("didGatherMetrics", request, nil, "")
        case let .requestDidCompleteTaskWithError(request, task, error):
            ("didCompleteTask", request, task, error.map(Self.describe) ?? "nil")
        case let .requestIsRetrying(request):
            ("requestIsRetrying", request, nil, "")
        case let .requestDidFinish(request):
            ("requestDidFinish", request, nil, "")
        case let .requestDidResume(request):
            ("requestDidResume", request, nil, "")
        case let .requestDidResumeTask(request, task):
            ("didResumeTask", request, task, "")
        case let .requestDidSuspend(request):
            ("requestDidSuspend", request, nil, "")
        case let .requestDidSuspendTask(request, task):
            ("didSuspendTask", request, task, "")
        case let .requestDidCancel(request):
            ("requestDidCancel", request, nil, "")
        case let .requestDidCancelTask(request, task):
            ("didCancelTask", request, task, "")
        case let .requestDidValidateRequestResponseDataWithResult(request, _, _, _, result):
            ("didValidateRequest", request, nil, Self.describe(result))
        case let .requestDidParseResponse(request, response):
            ("didParseResponse", request, nil, response.error.map(Self.describe) ?? "ok")
        case let .requestDidParseSerializedResponse(request, response):
            ("didParseResponse", request, nil, response.error.map(Self.describe) ?? "ok")
        case let .requestDidCreateUploadable(request, uploadable):
            ("didCreateUploadable", request, nil, uploadable.kind)
        case let .requestDidFailToCreateUploadableWithError(request, error):
            ("didFailToCreateUploadable", request, nil, Self.describe(error))
        case let .requestDidFinishDownloadingUsingTaskWithResult(request, task, result):
            ("didFinishDownloading", request, task, Self.describe(result.map { _ in () }.mapError { $0 as any Error }))
        case let .requestDidCreateDestinationURL(request, url):
            // A file left in the temporary directory has a random name: said as such, so that the
            // detail is the same on every run.
            ("didCreateDestinationURL", request, nil,
             url.deletingLastPathComponent() == DownloadRequest.temporaryDirectory(using: .default) ? "temporary file" : url.lastPathComponent)
        case let .requestDidValidateRequestResponseFileURLWithResult(request, _, _, _, result):
            ("didValidateRequest", request, nil, Self.describe(result))
        case let .requestDidParseDownloadResponse(request, response):
            ("didParseResponse", request, nil, response.error.map(Self.describe) ?? "ok")
        case let .requestDidParseSerializedDownloadResponse(request, response):
            ("didParseResponse", request, nil, response.error.map(Self.describe) ?? "ok")
        case let .requestDidValidateRequestResponseWithResult(request, _, _, result):
            ("didValidateRequest", request, nil, Self.describe(result))
        case let .requestDidParseStream(request, parsed):
            ("didParseStream", request, nil, parsed.error.map(Self.describe) ?? "ok")
        case let .requestDidObserveAnomaly(request, anomaly, task):
            ("ledgerAnomaly", request, task, anomaly.rawValue)
        }
    }

    private static func describe(_ result: ValidationResult) -> String {
        switch result {
        case .success: "ok"
        case let .failure(error): describe(error)
        }
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
            case .dataFileNil: return "dataFileNil"
            case let .dataFileReadFailed(url): return "dataFileReadFailed(\(url.lastPathComponent))"
            }
        case let .responseSerializationFailed(.inputFileReadFailed(url)):
            return "responseSerializationFailed(inputFileReadFailed(\(url.lastPathComponent)))"
        case let .responseSerializationFailed(reason): return "responseSerializationFailed(\(reason))"
        // Files by name only: a directory (a temporary one, a checkout) differs between runs.
        case let .downloadedFileMoveFailed(_, _, destination): return "downloadedFileMoveFailed(\(destination.lastPathComponent))"
        case let .multipartEncodingFailed(reason):
            return "multipartEncodingFailed(\(Mirror(reflecting: reason).children.first?.label ?? "\(reason)"))"
        case let .createUploadableFailed(error): return "createUploadableFailed(\(describe(error)))"
        default: return "\(clientError)"
        }
    }
}
