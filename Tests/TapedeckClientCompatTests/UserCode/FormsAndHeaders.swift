// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Form-encoded Encodable parameters, headers built from dictionaries, per-request interceptors,
// RetryPolicy configured by hand, cancellation.
import Foundation
import TapedeckClient

struct LoginForm: Encodable, Sendable {
    let username: String
    let password: String
    let rememberMe: Bool
}

struct Reminder: Encodable, Sendable {
    let title: String
    let due: Date
    let note: String?
    let owner: Owner

    struct Owner: Encodable, Sendable {
        let displayName: String
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(due, forKey: .due)
        try container.encode(note, forKey: .note)   // an explicit null when there is no note
        try container.encode(owner, forKey: .owner)
    }

    private enum CodingKeys: String, CodingKey {
        case title, due, note, owner
    }
}

struct SearchQuery: Encodable, Sendable {
    let term: String
    let categories: [String]
}

final class FormsClient: Sendable {
    let session: Session

    init(session: Session) {
        self.session = session
    }

    func login(_ form: LoginForm) -> DataRequest {
        session.request("https://api.example.com/login", method: .post, parameters: form,
                        encoder: URLEncodedFormParameterEncoder.default)
    }

    func search(_ query: SearchQuery) -> DataRequest {
        let encoder = URLEncodedFormParameterEncoder(encoder: URLEncodedFormEncoder(arrayEncoding: .noBrackets),
                                                     destination: .queryString)
        return session.request("https://api.example.com/search", parameters: query, encoder: encoder)
    }

    func signup(_ form: LoginForm) -> DataRequest {
        let encoder = URLEncodedFormParameterEncoder(encoder: URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase))
        return session.request("https://api.example.com/signup", method: .post, parameters: form, encoder: encoder)
    }

    func remind(_ reminder: Reminder) -> DataRequest {
        let formEncoder = URLEncodedFormEncoder(dateEncoding: .iso8601, keyEncoding: .convertToSnakeCase,
                                                keyPathEncoding: .dots, spaceEncoding: .plusReplaced)
        return session.request("https://api.example.com/reminders", parameters: reminder,
                               encoder: URLEncodedFormParameterEncoder(encoder: formEncoder, destination: .queryString))
    }

    func headersFromDictionary(token: String) -> DataRequest {
        var raw: [String: String] = ["Accept": "application/json"]
        raw["Authorization"] = "Bearer \(token)"
        let headers = HTTPHeaders(raw)
        return session.request("https://api.example.com/me", headers: headers)
    }

    func withPerRequestRetry() -> DataRequest {
        let policy = RetryPolicy(retryLimit: 3, exponentialBackoffBase: 2, exponentialBackoffScale: 0.25,
                                 retryableHTTPMethods: [.get], retryableHTTPStatusCodes: [503])
        return session.request("https://api.example.com/flaky", interceptor: policy)
    }

    func cancelEverything() {
        session.cancelAllRequests()
    }
}

extension HTTPHeaders {
    static var apiDefaults: HTTPHeaders {
        var headers = HTTPHeaders.default
        headers.add(name: "X-Platform", value: "iOS")
        headers.add(HTTPHeader(name: "X-App-Version", value: "3.2.1"))
        return headers
    }
}
