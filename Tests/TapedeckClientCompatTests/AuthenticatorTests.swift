import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// UserCode/OAuthAuthenticator.swift on the simulated network: AuthenticationInterceptor refreshes
/// the OAuth credential once for every request that got a 401 with it, then retries them.
@Suite("Compat: an Authenticator with an OAuth credential")
struct AuthenticatorTests {
    private let future = Date(timeIntervalSinceNow: 365 * 24 * 3600)

    /// `/inbox` accepts `Bearer <accepted>`; `/token` (auth.example.com) hands out `t1`.
    private func backend(accepting accepted: String) -> SimulatedBackend {
        let backend = SimulatedBackend()
        backend.serve(path: "/inbox") { request in
            request.headerFields[.authorization] == "Bearer \(accepted)" ? .json(200, "[1,2,3]") : ResponsePlan(status: 401)
        }
        backend.serve(.post, host: "auth.example.com", path: "/token") { _ in
            .json(200, #"{"access_token":"t1","refresh_token":"r1","expires_in":3600}"#)
        }
        return backend
    }

    @Test("two requests rejected with the same expired token cause one refresh; both are retried with the new token")
    func oneRefreshForConcurrent401s() throws {
        // Given a credential the server no longer accepts
        let backend = backend(accepting: "t1")
        let inbox = backend.withTransport {
            InboxClient(session: Session(), credential: OAuthCredential(accessToken: "t0", refreshToken: "r0", expiresAt: future))
        }
        let outcomes = Box<[InboxOutcome]>([])

        // When two inbox loads run at once
        inbox.loadInbox { outcome in outcomes.value.append(outcome) }
        inbox.loadInbox { outcome in outcomes.value.append(outcome) }
        try backend.run()

        // Then one refresh served both, and each was retried once with the new token
        #expect(outcomes.value == [.messages(3), .messages(3)])
        #expect(backend.hits("/token") == 1)
        #expect(backend.authorizations("/inbox") == ["Bearer t0", "Bearer t0", "Bearer t1", "Bearer t1"])
        #expect(inbox.interceptor.credential?.accessToken == "t1")
        let form = backend.requests.first { $0.path == "/token" }?.body.map { String(decoding: $0, as: UTF8.self) }
        #expect(form == "grant_type=refresh_token&refresh_token=r0")
    }

    @Test("a credential that requires refresh is refreshed before the request is sent")
    func expiredCredentialIsRefreshedProactively() throws {
        let backend = backend(accepting: "t1")
        let inbox = backend.withTransport {
            InboxClient(session: Session(), credential: OAuthCredential(accessToken: "t0", refreshToken: "r0", expiresAt: .distantPast))
        }
        let outcome = Box<InboxOutcome?>(nil)

        inbox.loadInbox { outcome.value = $0 }
        try backend.run()

        #expect(outcome.value == .messages(3))
        #expect(backend.authorizations("/inbox") == ["Bearer t1"])
        #expect(backend.hits("/token") == 1)
    }

    @Test("a server that keeps refusing makes the interceptor give up with excessiveRefresh")
    func refreshLoopEndsWithExcessiveRefresh() throws {
        let backend = backend(accepting: "nothing")
        let inbox = backend.withTransport {
            InboxClient(session: Session(), credential: OAuthCredential(accessToken: "t0", refreshToken: "r0", expiresAt: future),
                        maximumRefreshes: 2)
        }
        let outcome = Box<InboxOutcome?>(nil)

        inbox.loadInbox { outcome.value = $0 }
        try backend.run()

        #expect(outcome.value == .authenticationGaveUp("excessiveRefresh"))
        #expect(backend.hits("/token") == 2)
    }
}
