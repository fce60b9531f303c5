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
        // When the page's code runs first.yaml from seed 7, Then it passes, and its reproduction line ends with the seed
        let outcome = try scenarios_runningFromSwift()
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.reproduction.hasPrefix("tapedeck run "))
        #expect(outcome.reproduction.hasSuffix("--seed 7"))
        #expect(outcome.virtualDuration > .zero)
    }

    @Test("Your own client: the runner uses the session the closure returns, with the file's traffic, script, faults and expectations")
    func yourOwnClient() throws {
        // Given retry-storm, whose own client waits the 2 s each 503's Retry-After asks (so items end after 4 s)
        let scenario = try Scenario.load(repositoryFile("fixtures/scenarios/retry-storm.yaml"))
        let fileClient = try ScenarioRunner().run(scenario, seed: 3)
        let fileItems = fileClient.requests.filter { $0.name.hasPrefix("item") }
        #expect(fileItems.count == 6 && fileItems.allSatisfy { ($0.end ?? .zero) > .seconds(4) })

        // When the page's code runs it with a Session whose RetryPolicy ignores Retry-After
        let outcome = try scenarios_yourOwnClient(scenario: scenario)

        // Then the script's seven requests ran, each item through the file's two 503s to a 200, sooner than the
        // file's client could; and the expectations were checked (they hold: three attempts, done by 4.5 s)
        #expect(outcome.requests.count == 7)
        let items = outcome.requests.filter { $0.name.hasPrefix("item") }
        #expect(items.count == 6 && items.allSatisfy { $0.attempts == 3 && $0.status == 200 && ($0.end ?? .zero) < .seconds(4) })
        #expect(outcome.passed, "\(outcome.failures)")
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
        // Given the copy beside this file and the fixture, Then they differ only in the cassette's relative path
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
