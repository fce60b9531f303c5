// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// A session set up as apps set theirs up: a trust manager (on Linux, Alamofire's has no
// evaluators of its own), a cacher that stores nothing, a per-request cacher, a retry policy.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

/// An app's own evaluator type (the only kind Linux has).
struct PinnedHostsTrust: ServerTrustEvaluating {
    let hosts: [String]
}

enum SecureAPI {
    static func makeSession() -> Session {
        let configuration = URLSessionConfiguration.af.default
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let trust = ServerTrustManager(allHostsMustBeEvaluated: false,
                                       evaluators: ["api.example.com": PinnedHostsTrust(hosts: ["api.example.com"])])
        return Session(configuration: configuration, interceptor: .retryPolicy, serverTrustManager: trust,
                       cachedResponseHandler: ResponseCacher(behavior: .doNotCache), eventMonitors: [])
    }

    static func profile(using session: Session) async throws -> String {
        try await session.request("https://api.example.com/me")
            .cacheResponse(using: ResponseCacher.cache)
            .validate()
            .serializingString()
            .value
    }
}
