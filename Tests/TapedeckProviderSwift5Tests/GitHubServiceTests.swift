import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckProvider
import TapedeckSimulatedBackend

/// UserCode/GitHubAPI.swift and AuthedAPI.swift (Moya 15 app code, Swift 5 mode) on the simulated network.
@Suite("Compat: Moya app code")
struct GitHubServiceTests {
    private func backend() -> SimulatedBackend {
        let backend = SimulatedBackend()
        backend.serve(host: "gh.example.com", path: "/zen") { _ in .text(200, "Keep it simple.") }
        backend.serve(host: "gh.example.com", path: "/users/*") { request in
            request.url.path.contains("broken") ? .json(500, "{}") : .json(200, #"[{"name":"moya","stars":3}]"#)
        }
        backend.serve(host: "accounts.example.com", path: "/api/*") { request in
            request.url.path.hasSuffix("settings") ? .json(200, #"{"saved":true}"#) : .json(200, "{}")
        }
        return backend
    }

    @Test("an endpoint closure's headers, a plugin's prepare and didReceive, map on a filtered response, a MoyaError switch")
    func endpointAndRequestClosuresWithAPlugin() throws {
        // Given
        let backend = backend()
        let plugin = HeaderPlugin()
        let service = backend.withTransport { GitHubService(plugins: [plugin]) }
        var zen: String?
        var repos: [Repo]?
        var broken: [Repo]?

        // When
        service.zen { zen = $0 }
        service.repos(of: "ada") { repos = $0 }
        service.repos(of: "broken") { broken = $0 }
        try backend.run()

        // Then
        #expect(zen == "Keep it simple.")
        #expect(repos == [Repo(name: "moya", stars: 3)])
        #expect(broken == [])
        // validationType .successCodes fails in the client's validate(), so Moya's error is .underlying
        #expect(service.lastError == "underlying response validation failed: unacceptableStatusCode(code: 500) 500")
        #expect(plugin.willSendCount == 3)
        #expect(plugin.received.sorted() == [200, 200])   // the plugin counts successes only
        let request = try #require(backend.requests.first { $0.url.path == "/zen" })
        // (Foundation on Linux re-cases a URLRequest's field names: APP_NAME arrives as App_Name)
        #expect(request.headerFields.first { $0.name.canonicalName == "app_name" }?.value == "MY_AWESOME_APP")
        #expect(request.headerFields.first { $0.name.canonicalName == "x-app" }?.value == "gh-app")
        #expect(backend.requests.first { $0.url.path == "/users/ada/repos" }?.url.query == "sort=pushed")
    }

    @Test("stubs through an endpoint closure built with Moya.EndpointSampleResponse (aliased as apps do)")
    func stubbedEndpoints() throws {
        // Given
        let backend = backend()
        let provider = backend.withTransport { GitHubStubs.provider() }
        var zen: String?
        var profileStatus: Int?

        // When
        provider.request(.zen) { zen = try? $0.get().mapString() }
        provider.request(.userProfile("ada")) { profileStatus = try? $0.get().statusCode }
        try backend.run()

        // Then nothing reached the network
        #expect(zen == "Half measures are as bad as nothing at all.")
        #expect(profileStatus == 401)
        #expect(backend.requests.isEmpty)
    }

    @Test("AccessTokenPlugin through AccessTokenAuthorizable, MultiTarget, composite parameters on a custom Session")
    func authorizedTargets() throws {
        // Given
        let backend = backend()
        let service = backend.withTransport { AccountService() }
        var status: Int?
        var saved: String?

        // When
        service.me { status = $0 }
        service.settings { saved = $0 }
        try backend.run()

        // Then
        #expect(status == 200)
        #expect(saved == #"{"saved":true}"#)
        let me = try #require(backend.requests.first { $0.url.path == "/api/me" })
        #expect(me.headerFields[.authorization] == "Bearer abc")
        let settings = try #require(backend.requests.first { $0.url.path == "/api/me/settings" })
        #expect(settings.method == .put)
        #expect(settings.url.query == "v=2")
        #expect(settings.body.map { String(decoding: $0, as: UTF8.self) } == #"{"theme":"dark"}"#)
        #expect(settings.headerFields[.authorization] == "Bearer abc")
    }

    @Test("Moya's documented set-ups: stubs chosen per target, a utility callback queue, a cookie-less request closure, a token per target type through MultiTarget, a Session with a ServerTrustManager")
    func documentedSetUps() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "notes.example.com", path: "/*") { request in .json(200, #"{"path":"\#(request.url.path)"}"#) }
        let (stubbed, utility, cookieless, multi, trusting) = backend.withTransport {
            (DocsIdioms.perTargetStubs(), DocsIdioms.utilityCallbacks(), DocsIdioms.noCookies(), DocsIdioms.tokenPerTarget(),
             DocsIdioms.trustingSession())
        }
        var bodies: [String: String] = [:]
        func keep(_ name: String) -> (Result<Moya.Response, MoyaError>) -> Void {
            { result in bodies[name] = (try? result.get().mapString()) ?? "failed" }
        }

        // When
        stubbed.request(.list, completion: keep("stubbed list"))
        stubbed.request(.login, completion: keep("stubbed login"))
        utility.request(.list, completion: keep("utility"))
        cookieless.request(.list, completion: keep("cookieless"))
        multi.request(MultiTarget(NotesService.login), completion: keep("multi"))
        trusting.request(.list, completion: keep("trusting"))
        try backend.run()

        // Then
        #expect(bodies == [
            "stubbed list": "[]", "stubbed login": #"{"path":"/login"}"#, "utility": #"{"path":"/notes"}"#,
            "cookieless": #"{"path":"/notes"}"#, "multi": #"{"path":"/login"}"#, "trusting": #"{"path":"/notes"}"#,
        ])
        #expect(backend.requests.count == 5)
        #expect(backend.requests.filter { $0.method == .post }.map { $0.headerFields[.authorization] ?? "-" }
            == ["-", "Bearer notes-token"])
    }
}
