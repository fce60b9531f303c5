// The Swift snippets of docs/scenarios.md, "Running a scenario from Swift" (the first, which shows
// its imports, is alone in ScenariosDocRunningSnippet.swift). One function per snippet, as written
// plus the least scaffolding (`scenario`, `MyTokenInterceptor`, `OurAuthInterceptor` come from
// parameters or Scaffolding.swift; the trait's `retry-storm.yaml` is `Scenarios/retry-storm.yaml`
// beside this file, a copy of the fixture); lines added for a test are marked `// (test)`.

import Foundation
import Testing
import XCTest
import TapedeckClient
import TapedeckScenarios
import TapedeckTesting

// MARK: - Snippets

/// docs/scenarios.md, "Your own client".
private func scenarios_yourOwnClient(scenario: Scenario) throws -> Outcome {
    let outcome = try ScenarioRunner().run(scenario, seed: 3) { world in
        Session(provider: world.harness, scheduler: world.scheduler, interceptor: MyTokenInterceptor())
    }
    return outcome
}

// MARK: - Tests

@Suite("docs/scenarios.md: the snippets compile and do what the page says")
struct ScenariosDocSnippetTests {
    @Test("Running a scenario from Swift: first.yaml passes from seed 7, and its reproduction line names the seed")
    func runningFromSwift() throws {
        let outcome = try scenarios_runningFromSwift()
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.reproduction.hasPrefix("tapedeck run "))
        #expect(outcome.reproduction.hasSuffix("--seed 7"))
        #expect(outcome.virtualDuration > .zero)
    }

    @Test("Your own client: the runner builds the session the closure returns, and the file's traffic and expectations apply")
    func yourOwnClient() throws {
        let scenario = try Scenario.load(repositoryFile("fixtures/scenarios/retry-storm.yaml"))
        let outcome = try scenarios_yourOwnClient(scenario: scenario)
        #expect(outcome.requests.count == 7)
        #expect(outcome.requests.allSatisfy { $0.attempts <= 3 })
    }

    /// docs/scenarios.md, "In tests" (Swift Testing).
    @Test(.scenario("retry-storm.yaml", seeds: 1...50))
    func retryStormWithOurInterceptor() throws {
        let trial = try #require(ScenarioTrial.current)
        let outcome = try trial.run { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: OurAuthInterceptor())
        }
        #expect(outcome.requests.allSatisfy { $0.attempts <= 3 })
    }

    @Test("The trait's Scenarios/retry-storm.yaml is the fixture, but for the cassette's path")
    func copyMatchesFixture() throws {
        let copy = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scenarios/retry-storm.yaml"), encoding: .utf8)
        let fixture = try String(contentsOf: repositoryFile("fixtures/scenarios/retry-storm.yaml"), encoding: .utf8)
        #expect(copy.replacingOccurrences(of: "../../../fixtures/cassettes/", with: "../cassettes/") == fixture)
    }
}

/// docs/scenarios.md, "In tests" (XCTest).
final class ScenariosDocXCTests: XCTestCase {
    func testRetryStorm() throws {
        let outcomes = try runScenario("retry-storm.yaml", seeds: 1...20)
        XCTAssertTrue(outcomes.allSatisfy { $0.requests.count == 7 })
    }
}
