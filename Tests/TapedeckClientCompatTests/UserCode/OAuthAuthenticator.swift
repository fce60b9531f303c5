// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// An OAuth credential refreshed through AuthenticationInterceptor.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

struct OAuthCredential: AuthenticationCredential, Sendable {
    let accessToken: String
    let refreshToken: String
    let expiresAt: Date
    // Refresh a little early so a token never expires in flight.
    var requiresRefresh: Bool { Date().addingTimeInterval(60) >= expiresAt }
}

final class OAuthAuthenticator: Authenticator {
    private struct TokenReply: Decodable, Sendable {
        let access_token: String
        let refresh_token: String
        let expires_in: Double
    }

    let tokenURL: URL
    init(tokenURL: URL) { self.tokenURL = tokenURL }

    func apply(_ credential: OAuthCredential, to urlRequest: inout URLRequest) {
        urlRequest.headers.add(.authorization(bearerToken: credential.accessToken))
    }

    func refresh(_ credential: OAuthCredential, for session: Session,
                 completion: @escaping @Sendable (Result<OAuthCredential, any Error>) -> Void) {
        let form = ["grant_type": "refresh_token", "refresh_token": credential.refreshToken]
        // The interceptor is attached per request (below), so this call is not itself intercepted.
        session.request(tokenURL, method: .post, parameters: form,
                        encoder: URLEncodedFormParameterEncoder.default)
            .validate()
            .responseDecodable(of: TokenReply.self) { response in
                let mapped = response.result
                    .map { OAuthCredential(accessToken: $0.access_token,
                                           refreshToken: $0.refresh_token,
                                           expiresAt: Date().addingTimeInterval($0.expires_in)) }
                    .mapError { $0 as any Error }
                completion(mapped)
            }
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse,
                    failDueToAuthenticationError error: any Error) -> Bool {
        response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: OAuthCredential) -> Bool {
        urlRequest.headers["Authorization"] == HTTPHeader.authorization(bearerToken: credential.accessToken).value
    }
}

enum InboxOutcome: Equatable, Sendable {
    case messages(Int)
    case authenticationGaveUp(String)
    case failed(String)
}

final class InboxClient: Sendable {
    let session: Session
    let interceptor: AuthenticationInterceptor<OAuthAuthenticator>

    init(session: Session, credential: OAuthCredential, maximumRefreshes: Int = 3) {
        self.session = session
        let authenticator = OAuthAuthenticator(tokenURL: URL(string: "https://auth.example.com/token")!)
        interceptor = AuthenticationInterceptor(authenticator: authenticator,
                                                credential: credential,
                                                refreshWindow: .init(interval: 30, maximumAttempts: maximumRefreshes))
    }

    func loadInbox(completion: @escaping @Sendable (InboxOutcome) -> Void) {
        session.request("https://api.example.com/inbox", interceptor: interceptor)
            .validate()
            .responseData { response in
                if let authError = response.error?.underlyingError as? AuthenticationError {
                    completion(.authenticationGaveUp("\(authError)"))   // e.g. .excessiveRefresh
                } else if let data = response.value {
                    let messages = (try? JSONSerialization.jsonObject(with: data)) as? [Any]
                    completion(.messages(messages?.count ?? -1))
                } else {
                    completion(.failed(String(describing: response.error)))
                }
            }
    }
}
