import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// UserCode/BearerToken.swift on the simulated network: the interceptor adapts every attempt,
/// refreshes once after a 401 and retries once.
@Suite("Compat: a bearer-token interceptor written for Alamofire")
struct BearerTokenTests {
    /// `/me` answers 200 with a profile for `Bearer <accepted>`, 401 otherwise.
    private func backend(accepting accepted: String) -> SimulatedBackend {
        let backend = SimulatedBackend()
        backend.serve(path: "/me") { request in
            request.headerFields[.authorization] == "Bearer \(accepted)"
                ? .json(200, #"{"id":7,"name":"Ada"}"#)
                : ResponsePlan(status: 401)
        }
        return backend
    }

    @Test("a stale token gets a 401, the store refreshes once, the retry carries the new token and succeeds")
    func staleTokenIsRefreshedAndRetriedOnce() throws {
        // Given a store holding a stale token that renews to "fresh"
        let backend = backend(accepting: "fresh")
        let store = TokenStore(initialToken: "stale") { done in done(.success("fresh")) }
        let service = backend.withTransport { ProfileService(store: store) }
        let outcome = Box<ProfileOutcome?>(nil)

        // When the user code fetches the profile
        service.fetchProfile { outcome.value = $0 }
        try backend.run()

        // Then both attempts were adapted, the second with the refreshed token
        #expect(outcome.value == .hello("Ada"))
        #expect(backend.authorizations("/me") == ["Bearer stale", "Bearer fresh"])
        #expect(store.refreshCount == 1)
        #expect(store.current == "fresh")
    }

    @Test("a token that is still refused is not retried a second time: the 401 reaches the caller")
    func aSecond401IsNotRetried() throws {
        let backend = backend(accepting: "never-this-one")
        let store = TokenStore(initialToken: "stale") { done in done(.success("also-stale")) }
        let service = backend.withTransport { ProfileService(store: store) }
        let outcome = Box<ProfileOutcome?>(nil)

        service.fetchProfile { outcome.value = $0 }
        try backend.run()

        #expect(outcome.value == .httpStatus(401))
        #expect(backend.authorizations("/me") == ["Bearer stale", "Bearer also-stale"])
        #expect(store.refreshCount == 1)
    }

    @Test("a failed refresh ends the request with requestRetryFailed carrying the refresh error")
    func failedRefreshIsReported() throws {
        struct RefreshDenied: Error, CustomStringConvertible { var description: String { "denied" } }
        let backend = backend(accepting: "fresh")
        let store = TokenStore(initialToken: "stale") { done in done(.failure(RefreshDenied())) }
        let service = backend.withTransport { ProfileService(store: store) }
        let outcome = Box<ProfileOutcome?>(nil)

        service.fetchProfile { outcome.value = $0 }
        try backend.run()

        #expect(outcome.value == .refreshFailed("denied"))
        #expect(backend.hits("/me") == 1)
    }

    @Test("the Session made with Alamofire's initialiser runs on the installed transport's scheduler")
    func sessionUsesTheInstalledTransport() {
        let backend = backend(accepting: "fresh")
        let service = backend.withTransport { ProfileService(store: TokenStore(initialToken: "t") { _ in }) }
        #expect(service.session.scheduler === backend.scheduler)
        #expect(service.session.transportProfile == .simulated)
    }
}
