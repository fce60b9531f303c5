// The Swift snippets of TapedeckTesting's documentation: its DocC article
// (TapedeckTesting.docc/TapedeckTesting.md) and the `///` examples of its public declarations.
// Tests written as the snippets write them run here as tests, with the cassettes in `Cassettes/`
// and the scenario in `Scenarios/` beside this file; other snippets are functions with the least
// scaffolding (`cassettesDirectory`, `mySession`, `url`, `OurAuthInterceptor`, `Profile`). Lines
// added for a test are marked `// (test)`. Snippets written for real Alamofire are given in the
// nearest form that compiles here (the client's own URLSession), as noted at each.

import Foundation
import Testing
import XCTest
import TapedeckClient
import TapedeckScenarios
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Profile`: what `https://api.example/me` answers.
private typealias Profile = User

/// `cassettesDirectory`: the `Cassettes/` folder beside this file.
private let cassettesDirectory = snippetCassettes

// MARK: - Snippets that are not tests

/// `Tape`.
private func tapeSnippet() async throws -> (Data, HTTPURLResponse, Tape) {
    let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"))
    let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
    try tape.finish()       // merges anything recorded; throws if a request had no answer
    return (data, response, tape)
}

/// `Tape.configuration(base:)` — nearest form: `Alamofire.Session(configuration:)` is the
/// client's own `URLSession(configuration:)` here (Alamofire is not a dependency), decoding the
/// body itself; the cassette's user is at `/me`.
private func configuration(tape: Tape) async throws -> User {
    let session = URLSession(configuration: tape.configuration())
    let user = try await tape.serving {
        try JSONDecoder().decode(User.self, from: try await session.data(from: URL(string: "https://api.example/me")!).0)
    }
    return user
}

/// `Tape.serving(pacing:timeout:_:)`.
private func serving(tape: Tape, mySession: URLSession, url: URL) async throws -> Data {
    let (data, _) = try await tape.serving { try await mySession.data(from: url) }
    return data
}

// MARK: - Snippets that are tests

@Suite("TapedeckTesting's DocC and /// snippets compile and do what they say")
struct TapedeckTestingSnippetTests {
    /// TapedeckTesting.docc/TapedeckTesting.md, first example.
    @Test(.cassette("login"))
    func logsIn() async throws {
        let tape = try #require(Tape.current)
        let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
        #expect(response.statusCode == 200)
        #expect(!data.isEmpty)   // (test)
    }

    /// TapedeckTesting.docc/TapedeckTesting.md, second example.
    @Test(.scenario("retry-storm.yaml", seeds: 1...50))
    func retryStorm() throws {
        let trial = try #require(ScenarioTrial.current)
        let outcome = try trial.run()
        #expect(outcome.requests.allSatisfy { $0.attempts <= 3 })
    }

    /// `CassetteTrait`.
    @Test(.cassette("login"))
    func login() async throws {
        let tape = try #require(Tape.current)
        let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
        #expect(response.statusCode == 200)
        #expect(!data.isEmpty)   // (test)
    }

    /// `ScenarioTrait`.
    @Test(.scenario("retry-storm.yaml", seeds: 1...50))
    func retryStormWithOurInterceptor() throws {
        let trial = try #require(ScenarioTrial.current)
        let outcome = try trial.run { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: OurAuthInterceptor())
        }
        #expect(outcome.requests.allSatisfy { $0.attempts <= 3 })
    }

    @Test("Tape: perform answers from the cassette, finish merges nothing and throws nothing")
    func tapeExample() async throws {
        // When Tape's example asks the login cassette, Then it gets the recorded 200, and finishing throws nothing
        let (data, response, tape) = try await tapeSnippet()
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("ada"))
        #expect(tape.harness.lateRequests.isEmpty)
    }

    @Test("Tape.configuration and Tape.serving: a client's own URLSession is answered while the test awaits")
    func ownSession() async throws {
        // Given a replay-only tape, When the examples' clients ask it on their own sessions, one at a time,
        // Then each gets its recorded answer, reproducibly
        let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        #expect(try await configuration(tape: tape).name == "Ada")
        let data = try await serving(tape: tape, mySession: URLSession(configuration: tape.configuration()),
                                     url: URL(string: "https://api.example/login")!)
        #expect(String(decoding: data, as: UTF8.self).contains("ada"))
        #expect(tape.determinism.isReproducible)
        try tape.finish()
    }
}

/// `XCTestCase.useCassette(...)`, `XCTestCase.runScenario(...)` and `Tape.makeClientTransport()`.
final class TapedeckTestingSnippetXCTests: XCTestCase {
    /// `useCassette`.
    func testLogin() throws {
        let tape = try useCassette("login")
        let (_, response) = try tape.perform(URL(string: "https://api.example/login")!)
        XCTAssertEqual(response.statusCode, 200)
    }

    /// `runScenario`.
    func testRetryStorm() throws {
        let outcomes = try runScenario("retry-storm.yaml", seeds: 1...20)
        XCTAssertTrue(outcomes.allSatisfy { $0.requests.count == 7 })
    }

    /// `makeClientTransport()`.
    func testClientTransport() async throws {
        let tape = try useCassette("login")
        try await DefaultTransport.$current.withValue(tape.makeClientTransport()) {
            let profile = try await AF.request("https://api.example/me").serializingDecodable(Profile.self).value
            XCTAssertEqual(profile.name, "Ada")   // (test)
        }
    }
}
