// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// A third round of idioms from apps: a Session subclass the app makes once, a retrier that reads
// the failed task's response, a raw string body through a String ParameterEncoding, a serializer
// class holding a closure, ClosureEventMonitor's per-event closures, a multipart form encoded by
// hand and sent as data, empty 200 bodies decoded as Empty.
import Foundation
// `public` only because this package builds with InternalImportsByDefault; an app's plain
// `import Alamofire` is already public.
public import TapedeckClient

/// The raw-body encoding many apps add: the string itself becomes the request's body.
extension String: ParameterEncoding {
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        request.httpBody = data(using: .utf8, allowLossyConversion: false)
        return request
    }
}

/// The app's own Session subclass, with its configuration baked in.
final class APISession: Session, @unchecked Sendable {
    static func make(monitor: ClosureEventMonitor) -> APISession {
        let configuration = URLSessionConfiguration.af.default
        configuration.timeoutIntervalForRequest = 20
        configuration.headers.add(name: "X-Client", value: "ios/5.2")
        return APISession(configuration: configuration, interceptor: ServiceUnavailableRetrier(), eventMonitors: [monitor])
    }
}

/// Retries a 503 once after two seconds, judging by the task's own response, as many retriers do.
struct ServiceUnavailableRetrier: RequestInterceptor {
    func retry(_ request: Request, for session: Session, dueTo error: any Error,
               completion: @escaping @Sendable (RetryResult) -> Void) {
        guard let response = request.task?.response as? HTTPURLResponse, response.statusCode == 503,
              request.retryCount < 1 else {
            return completion(.doNotRetryWithError(error))
        }
        completion(.retryWithDelay(2))
    }
}

/// A serializer kept as a closure in a class, the shape of pre-5 Alamofire helpers apps still carry.
final class ClosureSerializer<Value: Sendable>: DataResponseSerializerProtocol, @unchecked Sendable {
    typealias SerializedObject = Value
    let serializeResponse: @Sendable (URLRequest?, HTTPURLResponse?, Data?, (any Error)?) throws -> Value

    init(serializeResponse: @escaping @Sendable (URLRequest?, HTTPURLResponse?, Data?, (any Error)?) throws -> Value) {
        self.serializeResponse = serializeResponse
    }

    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Value {
        try serializeResponse(request, response, data, error)
    }
}

enum ThirdRound {
    /// Events seen by the app's monitor, as "event path" lines.
    static func monitor(into log: LinesBox) -> ClosureEventMonitor {
        let monitor = ClosureEventMonitor()
        monitor.requestDidResume = { request in log.append("resume") }
        monitor.requestIsRetrying = { request in log.append("retrying \(request.retryCount)") }
        monitor.requestDidCompleteTaskWithError = { request, task, error in
            log.append("task \((task.response as? HTTPURLResponse)?.statusCode ?? 0) \(error == nil ? "ok" : "error")")
        }
        monitor.requestDidFinish = { request in log.append("finish \(request.request?.url?.path ?? "-")") }
        return monitor
    }

    static func status(session: Session, completion: @escaping @Sendable (Int?, Int) -> Void) {
        let request = session.request("https://api.example.com/health")
        request.validate().response { response in
            completion(response.response?.statusCode, request.retryCount)
        }
    }

    static func rawBody(session: Session, completion: @escaping @Sendable (Int?) -> Void) {
        session.request("https://api.example.com/graphql", method: .post, parameters: [:],
                        encoding: #"{"query":"{ me { id } }"}"#, headers: [.contentType("application/json")])
            .response { completion($0.response?.statusCode) }
    }

    static func wordCount(session: Session, completion: @escaping @Sendable (Int?) -> Void) {
        let serializer = ClosureSerializer<Int> { _, _, data, error in
            if let error { throw error }
            return String(decoding: data ?? Data(), as: UTF8.self).split(separator: " ").count
        }
        session.request("https://api.example.com/words")
            .response(responseSerializer: serializer) { completion($0.value) }
    }

    static func handEncodedForm(session: Session, completion: @escaping @Sendable (Int?) -> Void) throws {
        let form = MultipartFormData()
        form.append(Data("hello".utf8), withName: "note", fileName: "note.txt", mimeType: "text/plain")
        form.append(Data("42".utf8), withName: "folder")
        let body = try form.encode()
        var request = try URLRequest(url: "https://api.example.com/attachments", method: .post)
        request.headers.update(.contentType(form.contentType))
        session.upload(body, with: request).validate().response { completion($0.response?.statusCode) }
    }

    /// A 200 with no body: Alamofire fails it unless 200 is among the empty response codes.
    static func acknowledge(session: Session, completion: @escaping @Sendable ([String]) -> Void) {
        let outcomes = LinesBox()
        session.request("https://api.example.com/ack", method: .post).responseDecodable(of: Empty.self) { response in
            if case .responseSerializationFailed(reason: .inputDataNilOrZeroLength)? = response.error {
                outcomes.append("empty refused")
            } else {
                outcomes.append("other")
            }
            session.request("https://api.example.com/ack", method: .post)
                .responseDecodable(of: Empty.self, emptyResponseCodes: [200, 204, 205]) { response in
                    outcomes.append(response.value == nil ? "failed" : "empty accepted")
                    completion(outcomes.all)
                }
        }
    }

    /// An upload and a download the app prepares now and starts later (a queued sync).
    static func prepared(session: Session, saveTo file: URL, statuses: LinesBox) -> [Request] {
        let upload = session.upload(Data("draft".utf8), to: "https://api.example.com/drafts", method: .put,
                                    shouldAutomaticallyResume: false)
        upload.response { statuses.append("upload \($0.response?.statusCode ?? 0)") }
        let download = session.download("https://api.example.com/backup", shouldAutomaticallyResume: false,
                                        to: { _, _ in (file, [.removePreviousFile, .createIntermediateDirectories]) })
        download.responseURL { statuses.append("download \($0.response?.statusCode ?? 0)") }
        return [upload, download]
    }
}
