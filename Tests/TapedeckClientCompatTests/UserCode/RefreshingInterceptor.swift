// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// The hand-rolled token refresher older apps carry: a lock, a queue of waiting retries,
// a refresh call on its own Session, RetryResult answers.
import Foundation
import TapedeckClient

final class SessionTokenStore: @unchecked Sendable {
    private let lock = NSLock()
    private var _accessToken: String
    private var _refreshToken: String

    init(accessToken: String, refreshToken: String) {
        _accessToken = accessToken
        _refreshToken = refreshToken
    }

    var accessToken: String {
        get { lock.lock(); defer { lock.unlock() }; return _accessToken }
        set { lock.lock(); _accessToken = newValue; lock.unlock() }
    }

    var refreshToken: String {
        lock.lock(); defer { lock.unlock() }
        return _refreshToken
    }
}

struct TokenPair: Decodable, Sendable {
    let access_token: String
}

final class RefreshingInterceptor: RequestInterceptor, @unchecked Sendable {
    typealias RefreshCompletion = @Sendable (_ succeeded: Bool, _ accessToken: String?) -> Void

    private let store: SessionTokenStore
    private let refreshSession: Session
    private let lock = NSLock()
    private var isRefreshing = false
    private var requestsToRetry: [(RetryResult) -> Void] = []
    private let retryLimit = 2

    init(store: SessionTokenStore, refreshSession: Session) {
        self.store = store
        self.refreshSession = refreshSession
    }

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping (Result<URLRequest, any Error>) -> Void) {
        var urlRequest = urlRequest
        if let url = urlRequest.url, url.path.hasPrefix("/secure") {
            urlRequest.setValue("Bearer " + store.accessToken, forHTTPHeaderField: "Authorization")
        }
        completion(.success(urlRequest))
    }

    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping (RetryResult) -> Void) {
        lock.lock(); defer { lock.unlock() }

        guard let response = request.task?.response as? HTTPURLResponse, response.statusCode == 401,
              request.retryCount < retryLimit else {
            return completion(.doNotRetryWithError(error))
        }
        requestsToRetry.append(completion)
        guard !isRefreshing else { return }

        refreshTokens { [weak self] succeeded, accessToken in
            guard let self else { return }
            self.lock.lock(); defer { self.lock.unlock() }
            if let accessToken { self.store.accessToken = accessToken }
            self.requestsToRetry.forEach { $0(succeeded ? .retry : .doNotRetry) }
            self.requestsToRetry.removeAll()
        }
    }

    private func refreshTokens(completion: @escaping RefreshCompletion) {
        guard !isRefreshing else { return }
        isRefreshing = true
        let parameters: Parameters = ["refresh_token": store.refreshToken, "grant_type": "refresh_token"]
        refreshSession.request("https://auth.example.com/oauth/token", method: .post, parameters: parameters,
                               encoding: JSONEncoding.default)
            .validate()
            .responseDecodable(of: TokenPair.self) { [weak self] response in
                guard let self else { return }
                self.lock.lock(); self.isRefreshing = false; self.lock.unlock()
                switch response.result {
                case .success(let pair): completion(true, pair.access_token)
                case .failure: completion(false, nil)
                }
            }
    }
}
