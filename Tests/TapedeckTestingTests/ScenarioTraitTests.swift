import Foundation
import Synchronization
import Testing
import TapedeckClient
import TapedeckScenarios
import TapedeckTesting

/// Counts the retries it grants, so a test can see its own interceptor was the one used.
private final class CountingRetrier: RequestInterceptor {
    let granted = Atomic<Int>(0)

    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        guard request.retryCount < 5 else { return completion(.doNotRetry) }
        granted.add(1, ordering: .relaxed)
        completion(.retryWithDelay(0.25))
    }
}

/// The `.scenario` trait and `runScenario`: one body run per seed, the user's own client, and
/// failures that name their seed and reproduction line.
@Suite("Testing integration: the .scenario trait")
struct ScenarioTraitTests {
    /// Seeds the trait has run this test body with, in order.
    private static let seen = Mutex<[UInt64]>([])

    @Test("the body runs once per seed with that seed's trial; the file's client gets through the 503s", .scenario("orders-retry.yaml", seeds: 1...12))
    func oncePerSeed() throws {
        let trial = try #require(ScenarioTrial.current)
        #expect(trial.scenario.name == "orders-retry")
        let outcome = try trial.run()
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.seed == trial.seed)
        let seen = Self.seen.withLock { $0.append(trial.seed); return $0 }
        #expect(seen == Array(1...trial.seed), "seeds come one at a time, in order")
    }

    @Test("a body that does not run the scenario gets it run after it, with the file's own seed when none is given", .scenario("orders-retry.yaml"))
    func runsAfterTheBody() throws {
        let trial = try #require(ScenarioTrial.current)
        #expect(trial.seed == 9)
        #expect(!trial.hasRun)
    }

    @Test("the user's own interceptor replaces the file's client: its retries, its 250 ms delays on the virtual clock", .scenario("orders-retry.yaml", seeds: [3, 4]))
    func ownClient() throws {
        let trial = try #require(ScenarioTrial.current)
        let retrier = CountingRetrier()
        let outcome = try trial.run { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: retrier)
        }
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(retrier.granted.load(ordering: .relaxed) == 2)
        let orders = try #require(outcome.requests.first { $0.name == "orders" })
        #expect(orders.attempts == 3)
        #expect(try #require(orders.end) >= .milliseconds(500), "two 250 ms waits, on the virtual clock")
    }

    @Test("a failing seed is an issue naming the seed, the failed check and the command that reproduces it")
    func failingSeedIsReported() async throws {
        let trait = ScenarioTrait.scenario("orders-retry.yaml", seeds: [2, 3])
        let bodies = Mutex(0)
        try await withKnownIssue {
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                bodies.withLock { $0 += 1 }
                let trial = try #require(ScenarioTrial.current)
                var scenario = trial.scenario
                scenario.expectations.requests[0].attempts = IntegerSet([1...1])
                try ScenarioTrial(scenario: scenario, seed: trial.seed, sourceLocation: #_sourceLocation).run()
                // The trial the trait made was not run: it runs it after the body (and that passes).
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("scenario orders-retry, seed \(text.contains("seed 2") ? 2 : 3): 1 failed check(s)")
                && text.contains("expectation orders attempts: expected 1, made 3")
                && text.contains("reproduce: tapedeck run ") && text.contains("orders-retry.yaml --seed")
        }
        #expect(bodies.withLock { $0 } == 2, "a failed check does not stop the other seeds")
    }

    @Test("a scenario file that does not load is one issue with its file, line and key")
    func badFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-trait-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.yaml")
        try Data("name: bad\nscript:\n  - request: GET http://api.test/a\n    repeats: 2\n".utf8).write(to: file)
        let ran = Mutex(false)
        try await withKnownIssue {
            try await ScenarioTrait.scenario(file.path).provideScope(for: Test.current!, testCase: nil) {
                ran.withLock { $0 = true }
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("bad.yaml:4:") && text.contains("repeats") && text.contains("repeat")
        }
        #expect(!ran.withLock { $0 }, "no body runs without a scenario")
    }

    @Test("a scenario found in neither place is one issue naming both places it was looked for")
    func missingFileNamesBothPlaces() async throws {
        try await withKnownIssue {
            try await ScenarioTrait.scenario("no-such-scenario.yaml").provideScope(for: Test.current!, testCase: nil) {}
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("no such file") && text.contains("beside the test file") && text.contains("Scenarios/no-such-scenario.yaml")
        }
    }

    @Test("a negative seed is one issue, not a crash of the test process; the body does not run")
    func negativeSeed() async throws {
        let ran = Mutex(false)
        try await withKnownIssue {
            try await ScenarioTrait.scenario("orders-retry.yaml", seeds: -1...2).provideScope(for: Test.current!, testCase: nil) {
                ran.withLock { $0 = true }
            }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("a seed is a whole number from 0: -1 is not")
        }
        #expect(!ran.withLock { $0 })
    }

    @Test("a failed #expect in the body names its seed and how to rerun it; a failed #require stops the seeds without a second, garbled issue")
    func bodyIssuesNameTheSeed() async throws {
        let trait = ScenarioTrait.scenario("orders-retry.yaml", seeds: [5, 6])
        let issues = Mutex<[String]>([])
        // The issues as reported (after the trait added to them), kept here instead of failing this test.
        let capture: IssueHandlingTrait = .compactMapIssues { issue in
            issues.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: " | ")) }
            return nil
        }
        try await capture.provideScope(for: Test.current!, testCase: nil) {
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                let trial = try #require(ScenarioTrial.current)
                _ = try trial.run { world in Session(provider: world.harness, scheduler: world.scheduler, interceptor: CountingRetrier()) }
                #expect(trial.seed == 0, "a check of the test's own")
            }
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                let trial = try #require(ScenarioTrial.current)
                _ = try #require(trial.seed == 0 ? "zero" : nil, "a required value of the test's own")
            }
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                throw CocoaError(.fileNoSuchFile)
            }
        }
        let texts = issues.withLock { $0 }
        // Two seeds' #expect, then the #require of the first seed only (it stops the loop), then the thrown error once
        #expect(texts.count == 4, "\(texts)")
        #expect(texts.contains { $0.hasPrefix("seed 5: ") && $0.components(separatedBy: "reproduce:").count == 2 }, "one reproduction line: \(texts)")
        #expect(texts.filter { $0.contains("a check of the test's own") && $0.contains("rerun this test with TAPEDECK_SEED=") }.count == 2, "\(texts)")
        #expect(texts.contains { $0.contains("seed 5") } && texts.contains { $0.contains("seed 6") }, "\(texts)")
        #expect(texts.filter { $0.contains("a required value") }.count == 1 && !texts.contains { $0.contains("ExpectationFailedError") }, "\(texts)")
    }

    @Test("TAPEDECK_SEED picks the seeds to run (one, or a list); a bad value is an error, none leaves the trait's")
    func seedOverride() throws {
        #expect(try ScenarioTrait.seedsFromEnvironment(["TAPEDECK_SEED": "7"]) == [7])
        #expect(try ScenarioTrait.seedsFromEnvironment(["TAPEDECK_SEED": "3, 8"]) == [3, 8])
        #expect(try ScenarioTrait.seedsFromEnvironment([:]) == nil)
        #expect(throws: (any Error).self) { try ScenarioTrait.seedsFromEnvironment(["TAPEDECK_SEED": "-2"]) }
    }

    @Test("a failed run's report carries its determinism note: the seed may not reproduce it")
    func reportCarriesTheNote() throws {
        let scenario = try Scenario.load(ScenarioTrait.locate("orders-retry.yaml", filePath: #filePath))
        var outcome = try ScenarioRunner().run(scenario, seed: 1)
        outcome.determinismNote = "this run may not reproduce from its seed: 'retryResult' on a thread of its own"
        #expect(ScenarioTrial.summary(of: outcome).contains("note: this run may not reproduce from its seed"))
    }
}
