package import Foundation
public import Testing
public import TapedeckClient
public import TapedeckScenarios
import Synchronization

/// Runs a Swift Testing test once per seed of a scenario file. Inside the test,
/// ``ScenarioTrial/current`` is that seed's trial: run the scenario with the client its file
/// describes (``ScenarioTrial/run()``) or with your own (``ScenarioTrial/run(makeSession:)``), then
/// look at the `Outcome` (TapedeckScenarios) as you like. A run whose expectations or invariants fail
/// is reported as an issue naming the seed, the failed checks and the line that reproduces it; a
/// test body that does not run the scenario itself gets it run after the body, with the file's client.
///
/// ```swift
/// @Test(.scenario("retry-storm.yaml", seeds: 1...50))
/// func retryStormWithOurInterceptor() throws {
///     let trial = try #require(ScenarioTrial.current)
///     let outcome = try trial.run { world in
///         Session(provider: world.harness, scheduler: world.scheduler, interceptor: OurAuthInterceptor())
///     }
///     #expect(outcome.requests.allSatisfy { $0.attempts <= 3 })
/// }
/// ```
public struct ScenarioTrait: TestTrait, TestScoping {
    /// The scenario file: absolute, or relative to the test file's directory (then also looked up
    /// in a `Scenarios/` directory beside the test file).
    public let path: String
    /// The seeds to run, in order (empty: the file's own seed).
    public let seeds: [UInt64]
    /// The test file's path (`#filePath`), which locates the scenario.
    public let filePath: String
    /// Where the trait was written, for the issues it reports.
    public let sourceLocation: SourceLocation

    /// Loads the scenario, then runs the test body once per seed with that seed's trial as
    /// ``ScenarioTrial/current``. The first seed whose body throws ends the loop (reported with the
    /// seed and its reproduction line).
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let scenario: Scenario
        do {
            scenario = try Scenario.load(ScenarioTrait.locate(path, filePath: filePath))
        } catch {
            Issue.record(Comment(rawValue: "\(error)"), sourceLocation: sourceLocation)
            return
        }
        for seed in seeds.isEmpty ? [scenario.seed] : seeds {
            let trial = ScenarioTrial(scenario: scenario, seed: seed, sourceLocation: sourceLocation)
            do {
                try await ScenarioTrial.$current.withValue(trial) { try await function() }
                if !trial.hasRun { try trial.run() }
            } catch {
                Issue.record(Comment(rawValue: "seed \(seed): \(error)\nreproduce: \(trial.reproduction)"), sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// Where a scenario named in a test lives.
    package static func locate(_ path: String, filePath: String) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        let directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        let beside = directory.appendingPathComponent(path)
        if FileManager.default.fileExists(atPath: beside.path) { return beside }
        let nested = directory.appendingPathComponent("Scenarios").appendingPathComponent(path)
        return FileManager.default.fileExists(atPath: nested.path) ? nested : beside
    }
}

extension Trait where Self == ScenarioTrait {
    /// Runs the test once per seed of scenario file `path` (relative to the test file, or in
    /// `Scenarios/` beside it); no seeds: the file's own seed.
    public static func scenario(
        _ path: String, seeds: [Int] = [], filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        ScenarioTrait(path: path, seeds: seeds.map(UInt64.init), filePath: filePath, sourceLocation: sourceLocation)
    }

    /// Runs the test once per seed in `seeds` (`1...50`) of scenario file `path`.
    public static func scenario(
        _ path: String, seeds: ClosedRange<Int>, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        ScenarioTrait(path: path, seeds: seeds.map(UInt64.init), filePath: filePath, sourceLocation: sourceLocation)
    }
}

/// One seed's run of a scenario inside a test using the `.scenario(_:seeds:)` trait
/// (or made by hand for XCTest: see `XCTestCase.runScenario`).
public final class ScenarioTrial: Sendable {
    /// The trial of the seed the test body is running for.
    @TaskLocal public static var current: ScenarioTrial?

    /// The scenario, as loaded from its file.
    public let scenario: Scenario
    /// This trial's seed.
    public let seed: UInt64
    private let sourceLocation: SourceLocation?
    private let outcomes = Mutex<[Outcome]>([])

    /// A trial of `scenario` from `seed`; failed runs are reported as issues at `sourceLocation`
    /// (nil: not reported, for callers that report themselves).
    public init(scenario: Scenario, seed: UInt64, sourceLocation: SourceLocation? = nil) {
        self.scenario = scenario
        self.seed = seed
        self.sourceLocation = sourceLocation
    }

    /// Whether the scenario has been run in this trial.
    public var hasRun: Bool { outcomes.withLock { !$0.isEmpty } }

    /// The outcomes of this trial's runs so far.
    public var runs: [Outcome] { outcomes.withLock { $0 } }

    /// The command that reproduces this seed from a shell.
    public var reproduction: String {
        "tapedeck run \(Outcome.shellQuoted(scenario.source?.path ?? scenario.name)) --seed \(seed)"
    }

    /// Runs the scenario with the client its `client` section describes.
    @discardableResult
    public func run() throws -> Outcome {
        record(try ScenarioRunner().run(scenario, seed: seed))
    }

    /// Runs the scenario with a client your code builds from the world the runner hands it (your
    /// own interceptors, retriers, monitors, on the world's provider and scheduler).
    @discardableResult
    public func run(makeSession: @escaping (ScenarioWorld) -> Session) throws -> Outcome {
        record(try ScenarioRunner().run(scenario, seed: seed, makeSession: makeSession), ownClient: true)
    }

    private func record(_ outcome: Outcome, ownClient: Bool = false) -> Outcome {
        outcomes.withLock { $0.append(outcome) }
        if !outcome.passed, let sourceLocation {
            Issue.record(Comment(rawValue: Self.summary(of: outcome, ownClient: ownClient)), sourceLocation: sourceLocation)
        }
        return outcome
    }

    /// A failed run in a few lines: the seed, each failed check, the reproduction command — which
    /// runs the file's own client, so for a run with the test's own client (`ownClient`) the line
    /// says to rerun the test with that seed instead.
    package static func summary(of outcome: Outcome, ownClient: Bool = false) -> String {
        var lines = ["scenario \(outcome.scenario), seed \(outcome.seed): \(outcome.failures.count) failed check(s)"]
        lines += outcome.failures.map { "  \($0)" }
        if ownClient {
            lines.append("reproduce: run this test with seed \(outcome.seed) (your own client; `\(outcome.reproduction)` runs the file's client instead)")
        } else {
            lines.append("reproduce: \(outcome.reproduction)")
        }
        return lines.joined(separator: "\n")
    }
}
