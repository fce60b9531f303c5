// Runs docs/provider.md's snippets (ProviderDocSnippets.swift, ProviderDocMoyaCode.swift) and
// asserts what the page says.

import Foundation
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

// MARK: - Tests

@Suite("docs/provider.md: the snippets compile and do what the page says")
struct ProviderDocSnippetTests {
    @Test("The example: success(200) at t = 5 s, on session.rootQueue")
    func example() throws {
        // When the example runs, Then its completion ran once: 200, at exactly 5 s, on the session's rootQueue
        let answers = Box<[(Result<Int, ProviderError>, at: VirtualInstant, onRootQueue: Bool)]>([])
        _ = try provider_example(answers: answers)
        let answered = answers.withLock { $0 }
        #expect(answered.count == 1)
        #expect((try? answered.first?.0.get()) == 200)
        #expect(answered.first?.at == VirtualInstant.zero.advanced(by: .seconds(5)))
        #expect(answered.first?.onRootQueue == true)
    }

    @Test("Moya code with its import changed: with no session it sends through the default session (here a harness's); a failure is a MoyaError with a description")
    func moyaCode() throws {
        // Given a harness installed as the default transport, whose network fails every request to api.github.test
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        let seen = Box<[String]>([])
        network.route(host: "api.github.test") { request, _ in
            seen.withLock { $0.append(request.url.absoluteString) }
            return .failure(.notConnectedToInternet)
        }
        // When the Moya code makes its provider (no session given) and sends its request
        let failures = Box<[String]>([])
        DefaultTransport.$current.withValue(DefaultTransport(provider: Harness(network: network), scheduler: scheduler)) {
            provider_moyaCode { text in failures.withLock { $0.append(text) } }
        }
        try scheduler.runUntilIdle()
        // Then the request went to the harness with its parameters in the query, and the failure had a description
        #expect(seen.withLock { $0 } == ["https://api.github.test/users/ada/repos?page=2&sort=pushed"])
        #expect(failures.withLock { $0 }.count == 1)
        #expect(failures.withLock { $0 }.first?.isEmpty == false)
    }

    @Test("Endpoints: the header added by the endpoint closure is sent")
    func endpoints() throws {
        // Given a network that notes the X-App-Version it gets
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        let versions = Box<[String?]>([])
        network.route(host: "api.github.test", path: "/zen") { request, _ in
            versions.withLock { $0.append(request.urlRequest().value(forHTTPHeaderField: "X-App-Version")) }
            return .response(.text(200, "zen"))
        }
        // When the example's provider sends a target, Then the field the endpoint closure added was sent
        let provider = provider_endpoints(session: Session(provider: Harness(network: network), scheduler: scheduler))
        provider.request(.zen) { _ in }
        try scheduler.runUntilIdle()
        #expect(versions.withLock { $0 } == ["1.2"])
        // And "new values win": a value the target already had is replaced
        let replaced = MoyaProvider<GitHub>.defaultEndpointMapping(for: .zen).adding(newHTTPHeaderFields: ["Accept": "text/plain"])
        #expect(replaced.httpHeaderFields?["Accept"] == "text/plain")
    }

    @Test("Stubs: the unauthorized provider answers 401 at once (failing .successCodes), the slow one after 2 s of virtual time")
    func stubs() throws {
        // Given the page's two providers, made while a simulated transport is the default
        let scheduler = SimulatedScheduler(seed: 1)
        let transport = DefaultTransport(provider: Harness(network: SimulatedNetwork(scheduler: scheduler)), scheduler: scheduler)
        let (unauthorized, slow) = DefaultTransport.$current.withValue(transport) { provider_stubs() }
        // When each is asked for .zen
        let answers = Box<[String: (status: Int?, failed: Bool, at: VirtualInstant)]>([:])
        unauthorized.request(.zen) { result in
            let status: Int? = switch result {
            case let .success(response): response.statusCode
            case let .failure(error): error.response?.statusCode
            }
            answers.withLock { $0["unauthorized"] = (status, (try? result.get()) == nil, scheduler.now) }
        }
        slow.request(.zen) { result in answers.withLock { $0["slow"] = (try? result.get().statusCode, (try? result.get()) == nil, scheduler.now) } }
        try scheduler.runUntilIdle()
        // Then the 401 came at once, as a validation failure; the sample data 2 s of the scheduler's clock later
        let seen = answers.withLock { $0 }
        #expect(seen["unauthorized"]?.status == 401)
        #expect(seen["unauthorized"]?.failed == true)
        #expect(seen["slow"]?.failed == false)
        #expect(seen["unauthorized"]?.at == .zero)
        #expect(seen["slow"]?.status == 200)
        #expect(seen["slow"]?.at == VirtualInstant.zero.advanced(by: .seconds(2)))
    }
}
