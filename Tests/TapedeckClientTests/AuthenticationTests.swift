import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct TokenCredential: AuthenticationCredential, Equatable {
    let token: String
    var requiresRefresh = false
}

/// A bearer-token authenticator that counts its calls; refreshes take 100 ms of virtual time and
/// produce "a1", "a2", ... (or fail, as configured).
final class TokenAuthenticator: Authenticator, @unchecked Sendable {
    // @unchecked Sendable: counters are Boxes; `fails` is immutable.
    let applies = Box(0)
    let refreshes = Box(0)
    let didRequests = Box(0)
    let isRequests = Box(0)
    let fails: Bool

    init(fails: Bool = false) {
        self.fails = fails
    }

    func apply(_ credential: TokenCredential, to urlRequest: inout URLRequest) {
        applies.mutate { $0 += 1 }
        urlRequest.headers.update(.authorization(bearerToken: credential.token))
    }

    func refresh(_ credential: TokenCredential, for session: Session, completion: @escaping @Sendable (Result<TokenCredential, any Error>) -> Void) {
        var number = 0
        refreshes.mutate { $0 += 1; number = $0 }
        let fails = self.fails
        let token = "a\(number)"
        session.rootQueue.asyncAfter(delay: .milliseconds(100)) {
            completion(fails ? .failure(TestError(id: 42)) : .success(TokenCredential(token: token)))
        }
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool {
        didRequests.mutate { $0 += 1 }
        return response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: TokenCredential) -> Bool {
        isRequests.mutate { $0 += 1 }
        return urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.token)"
    }

    var counts: [Int] { [applies.value, refreshes.value, didRequests.value, isRequests.value] }
}

@Suite("Pipeline: AuthenticationInterceptor (§5, 5.12)")
struct AuthenticationTests {
    /// `/secure` answers 200 to `Bearer <accepted>` and 401 otherwise.
    private func fixture(accepted: String) -> ClientFixture {
        let fixture = ClientFixture()
        fixture.network.route(host: "api.test", path: "/secure") { request, _ in
            request.headerFields[.authorization] == "Bearer \(accepted)"
                ? .response(.json(200, #"{"ok":true}"#))
                : .response(ResponsePlan(status: 401))
        }
        return fixture
    }

    private func send(_ count: Int, through fixture: ClientFixture, interceptor: any RequestInterceptor) -> [(DataRequest, Box<ClientError?>)] {
        (0..<count).map { _ in
            let result = Box<ClientError?>(nil)
            let request = fixture.session.request("http://api.test/secure", interceptor: interceptor).validate()
            request.response { result.value = $0.error }
            return (request, result)
        }
    }

    @Test("a valid credential is applied: one apply, nothing else")
    func validCredential() throws {
        let fixture = fixture(accepted: "a0")
        let authenticator = TokenAuthenticator()
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TokenCredential(token: "a0"))
        let sent = send(1, through: fixture, interceptor: interceptor)
        try fixture.run()
        #expect(sent[0].1.value == nil)
        #expect(sent[0].0.request?.value(forHTTPHeaderField: "Authorization") == "Bearer a0")
        #expect(authenticator.counts == [1, 0, 0, 0])
        #expect(sent[0].0.retryCount == 0)
    }

    @Test("a credential that needs refresh: six parallel requests wait for one refresh and all go out with a1")
    func proactiveRefreshIsSingleFlight() throws {
        let fixture = fixture(accepted: "a1")
        let authenticator = TokenAuthenticator()
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TokenCredential(token: "a0", requiresRefresh: true))
        let sent = send(6, through: fixture, interceptor: interceptor)
        try fixture.run()
        #expect(sent.allSatisfy { $0.1.value == nil })
        #expect(sent.allSatisfy { $0.0.request?.value(forHTTPHeaderField: "Authorization") == "Bearer a1" })
        #expect(sent.allSatisfy { $0.0.retryCount == 0 })
        #expect(authenticator.counts == [6, 1, 0, 0])
        #expect(interceptor.credential == TokenCredential(token: "a1"))
    }

    @Test("a failing proactive refresh fails every deferred request with requestAdaptationFailed, unauthenticated")
    func proactiveRefreshFailure() throws {
        let fixture = fixture(accepted: "a1")
        let authenticator = TokenAuthenticator(fails: true)
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TokenCredential(token: "a0", requiresRefresh: true))
        let sent = send(3, through: fixture, interceptor: interceptor)
        try fixture.run()
        for (request, result) in sent {
            guard case let .requestAdaptationFailed(error)? = result.value else {
                Issue.record("expected requestAdaptationFailed, got \(String(describing: result.value))")
                continue
            }
            #expect(error as? TestError == TestError(id: 42))
            #expect(request.request?.value(forHTTPHeaderField: "Authorization") == nil)
            #expect(request.retryCount == 0)
        }
        #expect(authenticator.counts == [0, 1, 0, 0])
    }

    @Test("no credential: requestAdaptationFailed(missingCredential), nothing else called")
    func missingCredential() throws {
        let fixture = fixture(accepted: "a0")
        let authenticator = TokenAuthenticator()
        let sent = send(1, through: fixture, interceptor: AuthenticationInterceptor(authenticator: authenticator))
        try fixture.run()
        guard case let .requestAdaptationFailed(error)? = sent[0].1.value else {
            Issue.record("expected requestAdaptationFailed, got \(String(describing: sent[0].1.value))")
            return
        }
        #expect(error as? AuthenticationError == .missingCredential)
        #expect(authenticator.counts == [0, 0, 0, 0])
    }

    @Test("six parallel 401s: one refresh, every request retried once with the new credential")
    func retryPathRefreshIsSingleFlight() throws {
        let fixture = fixture(accepted: "a1")
        let authenticator = TokenAuthenticator()
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TokenCredential(token: "a0"))
        let sent = send(6, through: fixture, interceptor: interceptor)
        try fixture.run()
        #expect(sent.allSatisfy { $0.1.value == nil })
        #expect(sent.allSatisfy { $0.0.retryCount == 1 })
        #expect(authenticator.counts == [12, 1, 6, 6])
    }

    @Test("a request started during a retry-path refresh is not held back: it goes out with the current credential")
    func adaptNotDeferredDuringRetryRefresh() throws {
        let fixture = fixture(accepted: "a1")
        let authenticator = TokenAuthenticator()
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TokenCredential(token: "a0"))
        let first = send(1, through: fixture, interceptor: interceptor)
        try fixture.scheduler.run(until: seconds(0.05))    // the 401 came back; the refresh is running (100 ms)
        #expect(authenticator.refreshes.value == 1)
        let second = send(1, through: fixture, interceptor: interceptor)
        try fixture.scheduler.runReady()
        #expect(second[0].0.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer a0")
        try fixture.run()
        #expect(first[0].1.value == nil && second[0].1.value == nil)
    }

    @Test("refresh window of 2 in 30 s against an endpoint that always 401s: excessiveRefresh after two refreshes")
    func refreshWindow() throws {
        let fixture = fixture(accepted: "never")
        let authenticator = TokenAuthenticator()
        let interceptor = AuthenticationInterceptor(
            authenticator: authenticator, credential: TokenCredential(token: "a0"),
            refreshWindow: .init(interval: 30, maximumAttempts: 2))
        let sent = send(1, through: fixture, interceptor: interceptor)
        try fixture.run()
        #expect(authenticator.applies.value == 3)
        #expect(authenticator.refreshes.value == 2)
        #expect(sent[0].0.retryCount == 2)
        guard case let .requestRetryFailed(retryError, originalError)? = sent[0].1.value else {
            Issue.record("expected requestRetryFailed, got \(String(describing: sent[0].1.value))")
            return
        }
        #expect(retryError as? AuthenticationError == .excessiveRefresh)
        #expect((originalError as? ClientError)?.responseCode == 401)
    }

    @Test("setting the credential from outside counts as a refresh and clears a failed state")
    func externalCredential() throws {
        let fixture = fixture(accepted: "fresh")
        let authenticator = TokenAuthenticator(fails: true)
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TokenCredential(token: "a0"))
        let failed = send(1, through: fixture, interceptor: interceptor)
        try fixture.run()
        #expect(failed[0].1.value?.isRequestRetryError == true)
        interceptor.credential = TokenCredential(token: "fresh")
        let later = send(1, through: fixture, interceptor: interceptor)
        try fixture.run()
        #expect(later[0].1.value == nil)
        #expect(later[0].0.request?.value(forHTTPHeaderField: "Authorization") == "Bearer fresh")
    }
}
