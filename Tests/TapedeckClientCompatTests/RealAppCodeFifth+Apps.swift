import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A fifth round of open-source network layers, re-typed in our own words with our own names; each
// piece says the app it follows. Only the `import Alamofire` line differs from the app's shape.
// Sources: nextcloud/NextcloudKit (NextcloudKit+Download.swift, NKInterceptor.swift, NKMonitor.swift),
// MixinNetwork/ios-app (BaseAPI.swift, AccessTokenInterceptor.swift, AFError+RetryDetermination.swift),
// a music-room-ios layer (Alamofire+APIDecoder.swift: serializingAPI, a JSONDecoder subclass),
// tkgstrator/SplatNet3 (DataRequest.swift: validationWithNXError; Authorize+RequestInterceptor.swift:
// `extension Session: RequestInterceptor`), a RetryPolicy subclass adding 429 (a bilibili client),
// and home-assistant's CustomServerTrustManager (a ServerTrustManager that is its own evaluator).

// MARK: - NextcloudKit: download to a local path, task description, progress, account gate, monitor

/// Accounts the app has marked as unauthorized (NextcloudKit keeps them in group defaults).
let cloudUnauthorizedAccounts = Box<[String]>([])

/// Refuses, before it goes out, a request made for an account known to be unauthorized; a request
/// may opt out with `X-NC-CheckUnauthorized: false`. (NKInterceptor's shape.)
struct CloudAccountGate: RequestInterceptor {
    func adapt(_ urlRequest: URLRequest, for session: Session,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        if urlRequest.value(forHTTPHeaderField: "X-NC-CheckUnauthorized") == "false" {
            return completion(.success(urlRequest))
        }
        if let account = urlRequest.value(forHTTPHeaderField: "X-NC-Account"), cloudUnauthorizedAccounts.value.contains(account) {
            return completion(.failure(AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: 401))))
        }
        completion(.success(urlRequest))
    }
}

/// NKMonitor's shape: skips a resume that has no URLRequest yet, notes each parsed result, and
/// flags a 401 whose WebDAV path names another user than the request's account header.
final class CloudMonitor: EventMonitor, @unchecked Sendable {
    let logQueue = DispatchQueue(label: "com.example.cloud.monitor", qos: .utility)
    let lines = LinesBox()

    func requestDidResume(_ request: Request) {
        guard let urlRequest = request.request else {
            lines.append("resume: no URLRequest yet")
            return
        }
        lines.append("resume \(urlRequest.url?.path ?? "-")")
    }

    func request<Value>(_ request: DataRequest, didParseResponse response: AFDataResponse<Value>) {
        let account = request.request?.value(forHTTPHeaderField: "X-NC-Account") ?? "unknown"
        if response.response?.statusCode == 401 {
            let pathUser = request.request?.url?.path.components(separatedBy: "/files/").dropFirst().first
            if let pathUser, pathUser != account {
                lines.append("ACCOUNT MISMATCH pathUser=\(pathUser) headerUser=\(account)")
            }
        }
        let code = response.response?.statusCode ?? 0
        lines.append("User: \(account) Code: \(code) - \((200..<300).contains(code) ? "SUCCESS" : "ERROR")")
    }
}

/// NextcloudKit's download call, reshaped: a URL or a String, headers with the account, the gate as
/// interceptor, a destination that replaces the local file, the task described, progress reported,
/// and the raw `AFDownloadResponse<URL?>` handed back on the app's background queue.
final class CloudFiles: @unchecked Sendable {
    let session: Session
    let backgroundQueue = DispatchQueue(label: "com.example.cloud.background")

    init(session: Session) {
        self.session = session
    }

    func download(remote: Any, toLocalPath path: String, account: String, taskDescription: String,
                  taskHandler: @escaping @Sendable (URLSessionTask) -> Void,
                  progressHandler: @escaping @Sendable (Double) -> Void,
                  completion: @escaping @Sendable (String, AFDownloadResponse<URL?>?) -> Void) {
        var convertible: (any URLConvertible)?
        if remote is URL {
            convertible = remote as? any URLConvertible
        } else if let text = remote as? String {
            convertible = text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)
        }
        guard let url = convertible else { return completion(account, nil) }
        let localURL = URL(fileURLWithPath: path)   // NextcloudKit: NSURL.fileURL(withPath:), which corelibs lacks
        let destination: DownloadRequest.Destination = { _, _ in
            (localURL, [.removePreviousFile, .createIntermediateDirectories])
        }
        let headers: HTTPHeaders = [.authorization(username: account, password: "app-pass"),
                                    HTTPHeader(name: "X-NC-Account", value: account), HTTPHeader(name: "OCS-APIRequest", value: "true")]
        session.download(url, method: .get, encoding: URLEncoding.default, headers: headers, interceptor: CloudAccountGate(), to: destination)
            .validate(statusCode: 200..<300)
            .onURLSessionTaskCreation { task in
                task.taskDescription = taskDescription
                taskHandler(task)
            }
            .downloadProgress { progress in progressHandler(progress.fractionCompleted) }
            .response(queue: backgroundQueue) { response in completion(account, response) }
    }

    /// A PROPFIND-like data call through the same gate (for the monitor and the refusal).
    func listFolder(user: String, account: String, completion: @escaping @Sendable (AFDataResponse<Data?>) -> Void) {
        session.request("https://cloud.example.com/remote.php/dav/files/\(user)/", method: .get,
                        headers: [HTTPHeader(name: "X-NC-Account", value: account)], interceptor: CloudAccountGate())
            .responseData { completion($0.map { Optional($0) }) }
    }
}

// MARK: - Mixin: envelope decoding, a signing adapter that replaces all header fields, retry judgement

struct WalletAPIError: Decodable, Error, Sendable, Equatable {
    let status: Int
    let code: Int
    let description: String
}

struct WalletAsset: Decodable, Sendable, Equatable {
    let assetId: String
    let balance: String

    enum CodingKeys: String, CodingKey {
        case assetId = "asset_id"
        case balance
    }
}

/// Mixin's AccessTokenInterceptor: the signed fields replace `allHTTPHeaderFields` wholesale.
struct SignedHeadersInterceptor: RequestInterceptor {
    static func signedHeaders(for request: URLRequest) -> [String: String] {
        var headers = request.allHTTPHeaderFields ?? [:]
        let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let digest = "\(request.httpMethod ?? "GET")\(request.url?.path ?? "")\(body)".utf8.reduce(UInt32(5381)) { ($0 &* 33) ^ UInt32($1) }
        headers["Authorization"] = "Bearer sig-\(digest)"
        headers["X-Request-Id"] = "req-1"
        return headers
    }

    func adapt(_ urlRequest: URLRequest, for session: Session,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.allHTTPHeaderFields = Self.signedHeaders(for: request)
        completion(.success(request))
    }
}

extension AFError {
    /// Mixin's judgement: only a few URL errors are worth trying again.
    var worthRetrying: Bool {
        guard let underlying = underlyingError as NSError?, underlying.domain == NSURLErrorDomain else { return false }
        return [NSURLErrorNotConnectedToInternet, NSURLErrorTimedOut, NSURLErrorNetworkConnectionLost].contains(underlying.code)
    }
}

/// Mixin's BaseAPI, reshaped: one session, `validate(statusCode: 200...299)`, `responseData`, an
/// envelope with `data` or `error`, the server clock read from a response header.
final class WalletBaseAPI: @unchecked Sendable {
    private struct ResponseObject<ResultType: Decodable>: Decodable {
        let data: ResultType?
        let error: WalletAPIError?
    }

    let session: Session = {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 10
        return Session(configuration: configuration, interceptor: SignedHeadersInterceptor())
    }()
    let serverTimes = LinesBox()

    @discardableResult
    func request<ResultType: Decodable & Sendable>(method: HTTPMethod, url: String, parameters: Parameters? = nil,
                                        encoding: any ParameterEncoding = JSONEncoding.default,
                                        completion: @escaping @Sendable (Result<ResultType, WalletAPIError>, AFError?) -> Void) -> Request {
        session.request("https://wallet.example.com" + url, method: method, parameters: parameters, encoding: encoding)
            .validate(statusCode: 200...299)
            .responseData { response in
                let status = response.response?.statusCode ?? -1
                if let serverTime = response.response?.allHeaderFields["X-Server-Time"] as? String {
                    self.serverTimes.append(serverTime)
                }
                switch response.result {
                case let .success(data):
                    do {
                        let object = try JSONDecoder().decode(ResponseObject<ResultType>.self, from: data)
                        if let value = object.data {
                            completion(.success(value), nil)
                        } else if let error = object.error {
                            completion(.failure(error), nil)
                        } else {
                            completion(.success(try JSONDecoder().decode(ResultType.self, from: data)), nil)
                        }
                    } catch {
                        completion(.failure(WalletAPIError(status: status, code: -2, description: "decoding")), nil)
                    }
                case let .failure(error):
                    completion(.failure(WalletAPIError(status: status, code: error._code, description: "transport")), error)
                }
            }
    }
}

// MARK: - music-room-ios: a JSONDecoder subclass as DataDecoder, serializingAPI over serializingResponse

struct RoomTrack: Decodable, Sendable, Equatable {
    let title: String
    let addedAt: Date
}

extension DataRequest {
    /// The app's decoder: a JSONDecoder subclass with a date strategy accepting two spellings.
    final class RoomDecoder: JSONDecoder, @unchecked Sendable {
        override init() {
            super.init()
            dateDecodingStrategy = .custom { decoder in
                let container = try decoder.singleValueContainer()
                let text = try container.decode(String.self)
                let full = DateFormatter()
                full.calendar = Calendar(identifier: .iso8601)
                full.timeZone = TimeZone(identifier: "UTC")
                full.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
                let day = DateFormatter()
                day.calendar = Calendar(identifier: .iso8601)
                day.timeZone = TimeZone(identifier: "UTC")
                day.dateFormat = "yyyy-MM-dd"
                if let date = full.date(from: text) ?? day.date(from: text) { return date }
                throw DecodingError.typeMismatch(Date.self, .init(codingPath: container.codingPath,
                                                                  debugDescription: "neither a date-time nor a day"))
            }
        }
    }

    func serializingRoom<Value: Decodable>(
        _ type: Value.Type = Value.self,
        automaticallyCancelling shouldAutomaticallyCancel: Bool = false,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<Value>.defaultDataPreprocessor,
        decoder: any DataDecoder = RoomDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<Value>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<Value>.defaultEmptyRequestMethods
    ) -> DataTask<Value> {
        serializingResponse(using: DecodableResponseSerializer<Value>(dataPreprocessor: dataPreprocessor, decoder: decoder,
                                                                      emptyResponseCodes: emptyResponseCodes,
                                                                      emptyRequestMethods: emptyRequestMethods),
                            automaticallyCancelling: shouldAutomaticallyCancel)
    }
}

// MARK: - SplatNet3: an error-envelope validator after cURLDescription, a Session that is its own retrier

enum GameFailure: Error, Equatable {
    struct Service: Decodable, Error, Equatable {
        let errorMessage: String
    }
    case status(Int)
}

extension DataRequest {
    @discardableResult
    func validatingGameErrors(curl: @escaping @Sendable (String) -> Void) -> Self {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return cURLDescription(calling: { curl($0) })
            .validate { _, response, data in
                DataRequest.ValidationResult(catching: {
                    if let data, let failure = try? decoder.decode(GameFailure.Service.self, from: data) {
                        throw failure
                    }
                    if response.statusCode < 200 || response.statusCode >= 400 {
                        throw GameFailure.status(response.statusCode)
                    }
                })
            }
    }
}

/// The app's session class; requests pass the session itself as their interceptor.
final class GameSession: Session, @unchecked Sendable {
    func results(completion: @escaping @Sendable (AFDataResponse<Data>, Int, [String]) -> Void) {
        let curls = LinesBox()
        let request = self.request("https://game.example.com/api/results", interceptor: self)
        request.validatingGameErrors { curls.append($0) }
            .responseData { response in completion(response, request.retryCount, curls.all) }
    }
}

extension GameSession: RequestInterceptor {
    func retry(_ request: Request, for session: Session, dueTo error: any Error,
               completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(request.retryCount == 0 ? .retryWithDelay(0.5) : .doNotRetry)
    }
}

// MARK: - A RetryPolicy subclass adding 429 to the retryable codes

struct FeedNetworkError: Error {}

final class RateLimitedRetryPolicy: RetryPolicy, @unchecked Sendable {
    init() {
        super.init(retryLimit: 2,
                   exponentialBackoffBase: RetryPolicy.defaultExponentialBackoffBase,
                   exponentialBackoffScale: RetryPolicy.defaultExponentialBackoffScale,
                   retryableHTTPMethods: RetryPolicy.defaultRetryableHTTPMethods,
                   retryableHTTPStatusCodes: RetryPolicy.defaultRetryableHTTPStatusCodes.union([429]),
                   retryableURLErrorCodes: RetryPolicy.defaultRetryableURLErrorCodes)
    }

    override func shouldRetry(request: Request, dueTo error: any Error) -> Bool {
        // The app's own error short-cut still respects the limit and the idempotent methods.
        if error is FeedNetworkError {
            guard request.retryCount < retryLimit, let method = request.request?.method else { return false }
            return retryableHTTPMethods.contains(method)
        }
        return super.shouldRetry(request: request, dueTo: error)
    }
}

// MARK: - home-assistant: a ServerTrustManager that is its own evaluator

final class ExceptionsTrustManager: ServerTrustManager, ServerTrustEvaluating, @unchecked Sendable {
    let exceptions: @Sendable () -> [String]

    init(exceptions: [String]) {
        self.exceptions = { exceptions }
        super.init(evaluators: [:])
    }
    // The app also overrides `serverTrustEvaluator(forHost:)` to return `self`, and implements
    // `evaluate(_:forHost:)`; neither exists here (nor in Alamofire on Linux): see the report.
}

// MARK: - Tests
