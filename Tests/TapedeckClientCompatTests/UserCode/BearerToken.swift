// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// A bearer-token interceptor that adapts every request and retries once after a 401.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

/// Keeps the current access token and knows how to get a new one.
final class TokenStore: @unchecked Sendable {
    private let lock = NSLock()
    private var token: String
    private var renewals = 0
    private let renew: @Sendable (@escaping @Sendable (Result<String, any Error>) -> Void) -> Void

    init(initialToken: String,
         renew: @escaping @Sendable (@escaping @Sendable (Result<String, any Error>) -> Void) -> Void) {
        token = initialToken
        self.renew = renew
    }

    var current: String { lock.withLock { token } }
    var refreshCount: Int { lock.withLock { renewals } }

    func refresh(_ done: @escaping @Sendable (Result<String, any Error>) -> Void) {
        lock.withLock { renewals += 1 }
        renew { [self] result in
            if case let .success(newToken) = result { lock.withLock { token = newToken } }
            done(result)
        }
    }
}

final class BearerTokenInterceptor: RequestInterceptor, Sendable {
    let store: TokenStore
    init(store: TokenStore) { self.store = store }

    func adapt(_ urlRequest: URLRequest, for session: Session,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.headers.add(.authorization(bearerToken: store.current))
        completion(.success(request))
    }

    func retry(_ request: Request, for session: Session, dueTo error: any Error,
               completion: @escaping @Sendable (RetryResult) -> Void) {
        // Only a 401 (surfaced as a validation error) and only once per request.
        guard request.response?.statusCode == 401, request.retryCount == 0 else {
            completion(.doNotRetry)
            return
        }
        store.refresh { result in
            switch result {
            case .success: completion(.retry)
            case let .failure(refreshError): completion(.doNotRetryWithError(refreshError))
            }
        }
    }
}

struct Profile: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
}

enum ProfileOutcome: Equatable, Sendable {
    case hello(String)
    case httpStatus(Int)
    case refreshFailed(String)
    case other(String)
}

/// Owns its Session (a Session released mid-request cancels it, in Alamofire too).
final class ProfileService: Sendable {
    let session: Session

    init(store: TokenStore) {
        session = Session(interceptor: BearerTokenInterceptor(store: store))
    }

    func fetchProfile(completion: @escaping @Sendable (ProfileOutcome) -> Void) {
        session.request("https://api.example.com/me")
            .validate(statusCode: 200..<300)          // makes a 401 an error, so the retrier is asked
            .responseDecodable(of: Profile.self) { response in
                switch response.result {
                case let .success(profile):
                    completion(.hello(profile.name))
                case let .failure(error):
                    if let code = error.responseCode {
                        completion(.httpStatus(code))
                    } else if case let .requestRetryFailed(retryError, _) = error {
                        completion(.refreshFailed("\(retryError)"))
                    } else {
                        completion(.other(error.localizedDescription))
                    }
                }
            }
    }
}
