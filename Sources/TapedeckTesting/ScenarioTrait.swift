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
    /// Seeds given that are no seed (negative): reported as an issue when the test runs.
    var refusedSeeds: [Int] = []

    /// Loads the scenario, then runs the test body once per seed with that seed's trial as
    /// ``ScenarioTrial/current``. Every issue the body records names its seed; the first seed
    /// whose body throws ends the loop (reported with the seed and how to reproduce it).
    /// `TAPEDECK_SEED=N` (or `N,M`) in the environment runs those seeds instead of the trait's:
    /// the way to rerun one failing seed of a test that runs your own client.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard refusedSeeds.isEmpty else {
            Issue.record(Comment(rawValue: "a seed is a whole number from 0: \(refusedSeeds.map(String.init).joined(separator: ", ")) is not"),
                         sourceLocation: sourceLocation)
            return
        }
        let scenario: Scenario
        let chosen: [UInt64]?
        do {
            scenario = try Scenario.load(ScenarioTrait.locate(path, filePath: filePath))
            chosen = try ScenarioTrait.seedsFromEnvironment()
        } catch {
            Issue.record(Comment(rawValue: "\(error)" + ScenarioTrait.searchedPlaces(path, filePath: filePath)), sourceLocation: sourceLocation)
            return
        }
        for seed in chosen ?? (seeds.isEmpty ? [scenario.seed] : seeds) {
            let trial = ScenarioTrial(scenario: scenario, seed: seed, sourceLocation: sourceLocation)
            // An issue the body records (a failed #expect) says which seed it failed for.
            let namingSeed: IssueHandlingTrait = .compactMapIssues { issue in
                var issue = issue
                // (A failed run's own report names it already.)
                guard !issue.comments.contains(where: { $0.rawValue.hasPrefix("scenario \(scenario.name), seed \(seed):") }) else { return issue }
                issue.comments.append(Comment(rawValue: "scenario \(scenario.name), seed \(seed) — \(trial.rerun)"))
                return issue
            }
            do {
                try await namingSeed.provideScope(for: test, testCase: testCase) {
                    try await ScenarioTrial.$current.withValue(trial) { try await function() }
                }
                if !trial.hasRun { try trial.run() }
            } catch is ExpectationFailedError {
                return   // a #require that failed: recorded already, with the seed
            } catch {
                Issue.record(Comment(rawValue: "seed \(seed): \(error)\n\(trial.rerun)"), sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// The seeds `TAPEDECK_SEED` names (`7`, `3,8`), nil when it is not set.
    package static func seedsFromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [UInt64]? {
        guard let value = environment["TAPEDECK_SEED"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        let seeds = value.split(separator: ",").map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        guard !seeds.isEmpty, seeds.allSatisfy({ $0 != nil }) else {
            throw ScenarioSeedError(text: "TAPEDECK_SEED='\(value)' is not a seed (a whole number from 0) or a comma-separated list of seeds")
        }
        return seeds.compactMap { $0 }
    }

    /// For a relative path found in neither place, the two places looked in (appended to the
    /// loader's "no such file"); empty otherwise.
    package static func searchedPlaces(_ path: String, filePath: String) -> String {
        guard !path.hasPrefix("/") else { return "" }
        let directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        let places = [directory.appendingPathComponent(path), directory.appendingPathComponent("Scenarios").appendingPathComponent(path)]
        guard places.allSatisfy({ !FileManager.default.fileExists(atPath: $0.path) }) else { return "" }
        return " (looked for it beside the test file, \(places[0].path), and in Scenarios/, \(places[1].path))"
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
        var trait = ScenarioTrait(path: path, seeds: seeds.compactMap(UInt64.init(exactly:)), filePath: filePath, sourceLocation: sourceLocation)
        trait.refusedSeeds = seeds.filter { $0 < 0 }
        return trait
    }

    /// Runs the test once per seed in `seeds` (`1...50`) of scenario file `path`.
    public static func scenario(
        _ path: String, seeds: ClosedRange<Int>, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        scenario(path, seeds: Array(seeds), filePath: filePath, sourceLocation: sourceLocation)
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

    /// The command that reproduces this seed from a shell, with the file's own client.
    public var reproduction: String {
        "tapedeck run \(Outcome.shellQuoted(scenario.source?.path ?? scenario.name)) --seed \(seed)"
    }

    /// How to run this seed again: ``reproduction`` when only the file's client ran, else (the
    /// test's own client ran) the test itself with `TAPEDECK_SEED`.
    public var rerun: String {
        ranOwnClient.withLock { $0 } ? "rerun this test with TAPEDECK_SEED=\(seed) (it runs your own client)" : "reproduce: \(reproduction)"
    }

    private let ranOwnClient = Mutex(false)

    /// Runs the scenario with the client its `client` section describes.
    @discardableResult
    public func run() throws -> Outcome {
        record(try ScenarioRunner().run(scenario, seed: seed))
    }

    /// Runs the scenario with a client your code builds from the world the runner hands it (your
    /// own interceptors, retriers, monitors, on the world's provider and scheduler).
    @discardableResult
    public func run(makeSession: @escaping (ScenarioWorld) -> Session) throws -> Outcome {
        ranOwnClient.withLock { $0 = true }
        return record(try ScenarioRunner().run(scenario, seed: seed, makeSession: makeSession), ownClient: true)
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
            lines.append("reproduce: rerun this test with TAPEDECK_SEED=\(outcome.seed) (your own client; `\(outcome.reproduction)` runs the file's client instead)")
        } else {
            lines.append("reproduce: \(outcome.reproduction)")
        }
        if !outcome.determinismNote.isEmpty { lines.append("note: \(outcome.determinismNote)") }
        return lines.joined(separator: "\n")
    }
}

/// A `TAPEDECK_SEED` that names no seed.
struct ScenarioSeedError: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}
