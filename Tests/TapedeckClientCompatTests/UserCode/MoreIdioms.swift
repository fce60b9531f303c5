// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Less common calls found in apps: array JSON bodies, standalone multipart forms with files,
// suggested download destinations and responseURL, redirect and cache handlers per request,
// mock responses built by hand in unit tests, adapters reading the request's state.
import Foundation
import TapedeckClient

/// An array body, the way apps send one with Alamofire (JSONEncoding has a `withJSONObject` form).
struct JSONArrayEncoding: ParameterEncoding {
    let array: [any Sendable]

    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try JSONEncoding.default.encode(urlRequest, withJSONObject: array)
    }
}

struct RequestIDAdapter: RequestAdapter {
    func adapt(_ urlRequest: URLRequest, for session: Session,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(.success(urlRequest))
    }

    func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var urlRequest = urlRequest
        urlRequest.headers.add(name: "X-Request-ID", value: state.requestID.uuidString)
        completion(.success(urlRequest))
    }
}

enum MoreIdioms {
    static func sendIDs(_ ids: [Int], session: Session) -> DataRequest {
        session.request("https://api.example.com/batch", method: .post, encoding: JSONArrayEncoding(array: ids))
    }

    static func uploadDocument(fileURL: URL, session: Session) -> UploadRequest {
        let form = MultipartFormData()
        form.append(fileURL, withName: "document", fileName: "report.pdf", mimeType: "application/pdf")
        form.append(Data("2024".utf8), withName: "year")
        return session.upload(multipartFormData: form, to: "https://api.example.com/documents",
                              usingThreshold: MultipartFormData.encodingMemoryThreshold,
                              method: .post, headers: ["X-Upload": "1"])
    }

    static func downloadToDocuments(session: Session, completion: @escaping @Sendable (URL?) -> Void) {
        let destination = DownloadRequest.suggestedDownloadDestination(for: .cachesDirectory, in: .userDomainMask,
                                                                       options: [.removePreviousFile])
        session.download("https://api.example.com/files/manual.pdf", to: destination).responseURL { response in
            completion(response.fileURL)
        }
    }

    static func noRedirectNoCache(session: Session) -> DataRequest {
        session.request("https://api.example.com/moved")
            .redirect(using: Redirector(behavior: .doNotFollow))
            .cacheResponse(using: ResponseCacher(behavior: .doNotCache))
    }

    static func withRequestID(session: Session) -> DataRequest {
        session.request("https://api.example.com/status", interceptor: Interceptor(adapters: [RequestIDAdapter()]))
    }

    /// What unit tests of apps build by hand to feed their parsers.
    static func mockResponse(status: Int, body: String) -> AFDataResponse<Data> {
        let url = URL(string: "https://api.example.com/mock")!
        let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)
        return DataResponse(request: URLRequest(url: url), response: http, data: Data(body.utf8), metrics: nil,
                            serializationDuration: 0, result: .success(Data(body.utf8)))
    }

    static func mockFailure() -> AFDataResponse<Data> {
        DataResponse(request: nil, response: nil, data: nil, metrics: nil, serializationDuration: 0,
                     result: .failure(AFError.sessionTaskFailed(error: URLError(.notConnectedToInternet))))
    }

    static func explain(_ reason: AFError.ResponseValidationFailureReason) -> String {
        switch reason {
        case .dataFileNil, .dataFileReadFailed: return "file"
        case .missingContentType(let acceptable): return "missing \(acceptable.joined(separator: ","))"
        case .unacceptableContentType(let acceptable, let actual): return "\(actual) not in \(acceptable)"
        case .unacceptableStatusCode(let code): return "status \(code)"
        case .customValidationFailed(let error): return "custom \(error)"
        }
    }

    static func explain(_ reason: AFError.ResponseSerializationFailureReason) -> String {
        switch reason {
        case .inputDataNilOrZeroLength: return "empty"
        case .inputFileNil, .inputFileReadFailed: return "file"
        case .stringSerializationFailed(let encoding): return "string \(encoding)"
        case .jsonSerializationFailed(let error): return "json \(error)"
        case .decodingFailed(let error): return "decoding \(error)"
        case .customSerializationFailed(let error): return "custom \(error)"
        case .invalidEmptyResponse(let type): return "empty \(type)"
        }
    }

    static func stream(session: Session, completion: @escaping @Sendable ([String]) -> Void) {
        let lines = LinesBox()
        session.streamRequest("https://api.example.com/events").responseStreamString { stream in
            switch stream.event {
            case let .stream(result):
                if case let .success(text) = result { lines.append(text) }
            case let .complete(completion_):
                lines.append(completion_.error == nil ? "done" : "failed")
                completion(lines.all)
            }
        }
    }

    static func suspendAll(session: Session) {
        session.withAllRequests { requests in
            requests.forEach { $0.suspend() }
        }
    }
}

final class LinesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
