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

@Suite("Compat: a fifth round of app network layers")
struct RealAppCodeFifthTests {
    @Test("NextcloudKit's download: the file lands at the local path, the task is described, progress ends at 1, the raw response comes on the app's queue")
    func cloudDownload() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "cloud.example.com", path: "/remote.php/dav/files/ada/*") { _ in
            .text(200, "report body", headers: [("ETag", "\"abc\""), ("Content-Length", "11")])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fifth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = folder.appendingPathComponent("sub/report.txt").path
        let files = backend.withTransport { CloudFiles(session: Session()) }
        let descriptions = LinesBox()
        let fractions = LinesBox()
        let outcome = Box<(String, Int?, URL?, String?)?>(nil)

        // When
        files.download(remote: "https://cloud.example.com/remote.php/dav/files/ada/report.txt", toLocalPath: local, account: "ada",
                       taskDescription: "download-42",
                       taskHandler: { descriptions.append($0.taskDescription ?? "nil") },
                       progressHandler: { fractions.append("\($0)") },
                       completion: { account, response in
                           outcome.value = (account, response?.response?.statusCode, response?.fileURL,
                                            response?.response?.headers.value(for: "ETag"))
                       })
        try backend.run()

        // Then (a simulated `.text` plan sends no Content-Length unless given: without it the
        // total is -1 and fractionCompleted stays 0, as URLSession reports an unknown size)
        #expect(outcome.value?.0 == "ada")
        #expect(outcome.value?.1 == 200)
        #expect(outcome.value?.2?.path == local)
        #expect(outcome.value?.3 == "\"abc\"")
        #expect(try String(contentsOfFile: local, encoding: .utf8) == "report body")
        #expect(descriptions.all == ["download-42"])
        #expect(fractions.all.last == "1.0", "\(fractions.all)")
        let sent = try #require(backend.requests.first)
        #expect(sent.headerFields[.authorization] == "Basic " + Data("ada:app-pass".utf8).base64EncodedString())
    }

    @Test("NKInterceptor refuses an unauthorized account before any exchange (requestAdaptationFailed around the app's AFError); NKMonitor sees resume before the URLRequest and flags a path/account mismatch")
    func cloudGateAndMonitor() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "cloud.example.com", path: "/remote.php/dav/files/*") { _ in ResponsePlan(status: 401) }
        cloudUnauthorizedAccounts.value = ["bob"]
        defer { cloudUnauthorizedAccounts.value = [] }
        let monitor = CloudMonitor()
        let files = backend.withTransport { CloudFiles(session: Session(eventMonitors: [monitor])) }
        let refused = Box<AFError?>(nil)
        let mismatch = Box<Int?>(nil)

        // When bob (refused) and carol-on-ada's-path (401) list folders
        files.listFolder(user: "bob", account: "bob") { refused.value = $0.error }
        files.listFolder(user: "ada", account: "carol") { mismatch.value = $0.response?.statusCode }
        try backend.run()

        // Then bob never went out; his error is the adapter's, wrapped
        #expect(backend.requests.count == 1)
        let error = try #require(refused.value)
        #expect(error.isRequestAdaptationError)
        #expect((error.underlyingError as? AFError)?.responseCode == 401)
        #expect(mismatch.value == 401)
        #expect(monitor.lines.all.contains("ACCOUNT MISMATCH pathUser=ada/ headerUser=carol") ||
                monitor.lines.all.contains("ACCOUNT MISMATCH pathUser=ada headerUser=carol"), "\(monitor.lines.all)")
        // As in Alamofire 5.12 (lazy setup), requestDidResume comes before the URLRequest exists
        #expect(monitor.lines.all.filter { $0.hasPrefix("resume") } == ["resume: no URLRequest yet", "resume: no URLRequest yet"],
                "\(monitor.lines.all)")
        #expect(monitor.lines.all.contains("User: carol Code: 401 - ERROR"))
    }

    @Test("Mixin's BaseAPI: the signing adapter replaces every header field, the envelope's data or error is decoded, the server time is read from allHeaderFields, a lost connection is worth retrying")
    func walletEnvelope() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "wallet.example.com", path: "/assets/1") { _ in
            .json(200, #"{"data":{"asset_id":"btc","balance":"0.5"}}"#, headers: [("X-Server-Time", "1700000000000000000")])
        }
        backend.serve(host: "wallet.example.com", path: "/transfers") { _ in
            .json(200, #"{"error":{"status":202,"code":20117,"description":"insufficient balance"}}"#)
        }
        backend.network.route(host: "wallet.example.com", path: "/flaky") { _, _ in .failure(.networkConnectionLost) }
        let api = backend.withTransport { WalletBaseAPI() }
        let asset = Box<Result<WalletAsset, WalletAPIError>?>(nil)
        let transfer = Box<Result<WalletAsset, WalletAPIError>?>(nil)
        let flaky = Box<(Result<WalletAsset, WalletAPIError>, Bool?)?>(nil)

        // When
        api.request(method: .get, url: "/assets/1", parameters: nil, encoding: URLEncoding.default) { asset.value = $0 as Result<WalletAsset, WalletAPIError>; _ = $1 }
        api.request(method: .post, url: "/transfers", parameters: ["amount": "1", "asset_id": "btc"]) { transfer.value = $0; _ = $1 }
        api.request(method: .get, url: "/flaky", encoding: URLEncoding.default) { (result: Result<WalletAsset, WalletAPIError>, error) in
            flaky.value = (result, error?.worthRetrying)
        }
        try backend.run()

        // Then
        #expect(asset.value == .success(WalletAsset(assetId: "btc", balance: "0.5")))
        #expect(transfer.value == .failure(WalletAPIError(status: 202, code: 20117, description: "insufficient balance")))
        #expect(api.serverTimes.all == ["1700000000000000000"])
        #expect(flaky.value?.1 == true)
        // AFError bridged to NSError: `_code` is the case number (sessionTaskFailed, 12 on Linux), not the URL error
        if case let .failure(failure)? = flaky.value?.0 { #expect(failure.code == 12) } else { Issue.record("flaky succeeded") }
        // The signing adapter replaced the fields and kept the JSON content type
        let post = try #require(backend.requests.first { $0.url.path == "/transfers" })
        let expected = SignedHeadersInterceptor.signedHeaders(for: {
            var request = URLRequest(url: URL(string: "https://wallet.example.com/transfers")!)
            request.httpMethod = "POST"
            request.httpBody = post.body
            return request
        }())["Authorization"]
        #expect(post.headerFields[.authorization] == expected)
        #expect(post.headerFields[.contentType] == "application/json")
        #expect(post.headerFields[HTTPField.Name("X-Request-Id")!] == "req-1")
    }

    @Test("music-room-ios: serializingRoom built on serializingResponse with a JSONDecoder subclass as the DataDecoder; an empty 204 DELETE is Empty")
    func roomAsync() async throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "rooms.example.com", path: "/tracks/7") { request in
            request.method == .delete ? ResponsePlan(status: 204)
                : .json(200, #"[{"title":"Intro","addedAt":"2024-03-01T10:00:00"},{"title":"Outro","addedAt":"2024-03-02"}]"#)
        }

        // When
        let (tracks, deleted) = try await backend.withTransport { () async throws -> ([RoomTrack], Empty) in
            let session = Session()
            let tracks = try await session.request("https://rooms.example.com/tracks/7").validate().serializingRoom([RoomTrack].self).value
            let deleted = try await session.request("https://rooms.example.com/tracks/7", method: .delete)
                .validate().serializingRoom(Empty.self, automaticallyCancelling: true).value
            return (tracks, deleted)
        }

        // Then
        #expect(tracks.map(\.title) == ["Intro", "Outro"])
        #expect(tracks.map(\.addedAt.timeIntervalSince1970) == [1_709_287_200, 1_709_337_600])
        #expect(deleted == Empty.value)
    }

    @Test("SplatNet3: a Session subclass retrying through itself once after 0.5 s; the error-envelope validator's thrown error comes back inside customValidationFailed; cURL described per attempt")
    func gameSession() throws {
        // Given a service answering 200 with an error envelope twice
        let backend = SimulatedBackend()
        let times = Box<[Int64]>([])
        let scheduler = backend.scheduler
        backend.serve(host: "game.example.com", path: "/api/results") { _ in
            times.mutate { $0.append(scheduler.now.nanoseconds) }
            return .json(200, #"{"error_message":"token expired"}"#)
        }
        let session = backend.withTransport { GameSession() }
        let outcome = Box<(AFError?, Int, [String])?>(nil)

        // When
        session.results { response, retries, curls in outcome.value = (response.error, retries, curls) }
        try backend.run()

        // Then
        let (error, retries, curls) = try #require(outcome.value)
        #expect(retries == 1)
        #expect(times.value.count == 2)
        if times.value.count == 2 { #expect(times.value[1] - times.value[0] >= 500_000_000) }
        guard case let .responseValidationFailed(reason: .customValidationFailed(error: thrown))? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(thrown as? GameFailure.Service == GameFailure.Service(errorMessage: "token expired"))
        #expect(curls.count == 1, "cURLDescription(calling:) calls once, for the first URLRequest: \(curls)")
        #expect(curls.first?.contains("https://game.example.com/api/results") == true)
    }

    @Test("a RetryPolicy subclass adding 429: GETs are retried with backoff up to the limit, POSTs are not")
    func rateLimitedPolicy() throws {
        // Given
        let backend = SimulatedBackend()
        let feedCalls = Box(0)
        backend.serve(host: "feed.example.com", path: "/feed") { _ in
            feedCalls.mutate { $0 += 1 }
            return feedCalls.value < 3 ? .json(429, "{}") : .json(200, "[]")
        }
        backend.serve(host: "feed.example.com", path: "/like") { _ in .json(429, "{}") }
        let session = backend.withTransport { Session(interceptor: RateLimitedRetryPolicy()) }
        let feed = Box<(Int?, Int)?>(nil)
        let like = Box<(Int?, Int)?>(nil)

        // When
        let feedRequest = session.request("https://feed.example.com/feed").validate()
        feedRequest.responseData { feed.value = ($0.response?.statusCode, feedRequest.retryCount) }
        let likeRequest = session.request("https://feed.example.com/like", method: .post).validate()
        likeRequest.responseData { like.value = ($0.error?.responseCode, likeRequest.retryCount) }
        try backend.run()

        // Then
        #expect(feed.value?.0 == 200)
        #expect(feed.value?.1 == 2)
        #expect(like.value?.0 == 429)
        #expect(like.value?.1 == 0)
    }

    @Test("home-assistant's trust manager subclass (its own evaluator) is kept by the session and requests go through")
    func trustManagerSubclass() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "ha.example.com", path: "/api/") { _ in .json(200, #"{"message":"API running."}"#) }
        let manager = ExceptionsTrustManager(exceptions: ["self-signed"])
        let session = backend.withTransport { Session(serverTrustManager: manager) }
        let message = Box<String?>(nil)

        // When
        session.request("https://ha.example.com/api/").responseDecodable(of: [String: String].self) { message.value = $0.value?["message"] }
        try backend.run()

        // Then
        #expect(session.serverTrustManager === manager)
        #expect(manager.exceptions() == ["self-signed"])
        #expect(message.value == "API running.")
    }
}
