import Foundation

/// Turns a failing seed into the smallest exact schedule that fails the same way.
///
/// It records every decision the seed made (``ScenarioRunner/runRecordingDecisions(_:seed:)``),
/// checks that replaying them alone reproduces the failure, removes whole kinds of decisions that
/// do not matter, runs ddmin (``DeltaDebugging``) over what is left, then simplifies the values
/// (smaller jitter and delays, fewer bytes, earlier attempts, ranks nearer FIFO), keeping a change
/// only when the run still fails with the same ``FailureIdentity``. Each step is reported.
///
/// ```swift
/// let scenario = try Scenario.load(URL(fileURLWithPath: "flaky.yaml"))
/// let result = try Shrinker().shrink(scenario, seed: 17) { print($0) }
/// print(result.original.decisions.count, "→", result.shrunk.decisions.count)
/// ```
public struct Shrinker: Sendable {
    /// The most scenario runs a shrink may make, the run recording the seed's decisions and the
    /// final verification included (at least 3; the result so far is kept when it runs out).
    public var maxRuns: Int
    /// How each run is made.
    public var runner: ScenarioRunner

    /// A shrinker making at most `maxRuns` runs in all (3 at least).
    public init(maxRuns: Int = 3_000, runner: ScenarioRunner = ScenarioRunner()) {
        self.maxRuns = max(3, maxRuns)
        self.runner = runner
    }

    /// One step of a shrink, as printed.
    public struct Step: Sendable, CustomStringConvertible {
        /// `record`, `replay`, `drop`, `ddmin`, `simplify` or `verify`.
        public var phase: String
        /// What happened.
        public var detail: String
        /// Decisions in the schedule after the step.
        public var decisions: Int
        /// Runs made so far.
        public var runs: Int

        /// `ddmin: 214 → 3 decisions (run 57)`.
        public var description: String { "\(phase): \(detail) [\(decisions) decision\(decisions == 1 ? "" : "s"), \(runs) run\(runs == 1 ? "" : "s")]" }
    }

    /// What a shrink found.
    public struct Result: Sendable {
        /// The scenario to write: its faults cut to the sites the schedule uses (and token
        /// expiries), with simplified values and no probabilities, and the exact schedule.
        public var scenario: Scenario
        /// Every decision the seed made.
        public var original: Schedule
        /// The shrunk schedule (also `scenario.schedule`).
        public var shrunk: Schedule
        /// The failure it reproduces.
        public var failure: FailureIdentity
        /// The seeded run.
        public var seededOutcome: Outcome
        /// The last run of the shrunk scenario.
        public var outcome: Outcome
        /// The steps taken.
        public var steps: [Step]
        /// Scenario runs made.
        public var runs: Int
        /// False when the run budget ran out before the search ended.
        public var complete: Bool

        /// A result (the shrinker makes these; tests and tools that write schedules may too).
        public init(scenario: Scenario, original: Schedule, shrunk: Schedule, failure: FailureIdentity, seededOutcome: Outcome,
                    outcome: Outcome, steps: [Step], runs: Int, complete: Bool) {
            self.scenario = scenario
            self.original = original
            self.shrunk = shrunk
            self.failure = failure
            self.seededOutcome = seededOutcome
            self.outcome = outcome
            self.steps = steps
            self.runs = runs
            self.complete = complete
        }
    }

    /// Why nothing could be shrunk.
    public enum Problem: Error, CustomStringConvertible {
        /// The seed passes.
        case passes(Outcome)
        /// Replaying the recorded decisions did not fail the same way (a nondeterministic client).
        case notReproducible(expected: FailureIdentity, got: FailureIdentity)
        /// The scenario could not run.
        case scenario(ScenarioError)

        /// A sentence for the CLI.
        public var description: String {
            switch self {
            case let .passes(outcome): return "seed \(outcome.seed) passes: there is no failure to shrink"
            case let .notReproducible(expected, got):
                return "replaying the seed's decisions does not fail the same way (expected \(expected), got \(got.isPass ? "a pass" : got.description)); the run depends on something the decisions do not capture"
            case let .scenario(error): return "\(error)"
            }
        }
    }

    /// Shrinks `seed`'s failure of `scenario`; `progress` hears each step as it happens.
    public func shrink(_ scenario: Scenario, seed: UInt64, progress: @escaping (Step) -> Void = { _ in }) throws(Problem) -> Result {
        let seeded: (outcome: Outcome, decisions: Schedule)
        do {
            seeded = try runner.runRecordingDecisions(scenario, seed: seed)
        } catch {
            throw .scenario(error)
        }
        let failure = FailureIdentity(seeded.outcome)
        if failure.isPass { throw .passes(seeded.outcome) }
        // Every candidate runs from the seed being shrunk, as the final check does.
        var base = scenario
        base.seed = seed
        var search = Search(base: base, failure: failure, runner: runner, maxRuns: maxRuns, progress: progress)
        search.runs = 1   // the recording run
        search.note("record", "seed \(seed) fails (\(failure)); it made \(Self.summary(seeded.decisions))", seeded.decisions.decisions.count)
        let all = seeded.decisions.decisions
        guard let replayed = search.reproduces(search.sites, all), replayed else {
            throw .notReproducible(expected: failure, got: search.lastIdentity ?? FailureIdentity(seeded.outcome))
        }
        search.note("replay", "replaying the \(all.count) decisions alone fails the same way", all.count)
        var decisions = search.dropKinds(all)
        decisions = search.ddmin(decisions)
        decisions = search.simplify(decisions)
        // A simpler decision (an earlier attempt) can leave others that no longer fire, and sites
        // nothing uses: search again until a pass changes nothing, so the result is 1-minimal and
        // shrinking it again gives it back.
        while search.budgetLeft {
            let sites = search.sites
            let again = search.simplify(search.ddmin(decisions))
            if again == decisions && search.sites == sites { break }
            decisions = again
        }
        var shrunk = Schedule(exactly: decisions)
        shrunk.origin = Schedule.Origin(file: scenario.source?.path ?? "", seed: seed, tool: "tapedeck shrink")
        var result = search.base
        result.faults = search.sites
        result.schedule = shrunk
        result.seed = seed
        search.runs += 1
        let final: Outcome
        do {
            final = try runner.run(result, seed: seed)
        } catch {
            throw .scenario(error)
        }
        guard FailureIdentity(final) == failure else { throw .notReproducible(expected: failure, got: FailureIdentity(final)) }
        search.note("verify", "the shrunk schedule fails with \(FailureIdentity(final)): \(Self.summary(shrunk))", decisions.count)
        return Result(scenario: result, original: seeded.decisions, shrunk: shrunk, failure: failure, seededOutcome: seeded.outcome,
                      outcome: final, steps: search.steps, runs: search.runs, complete: !search.exhausted)
    }

    /// What a schedule holds, counted: `3 fault firings, 1 scheduling choice, 4 jitter draws, 2 metrics orders`.
    public static func summary(_ schedule: Schedule) -> String {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        return [count(schedule.faults.count, "fault firing", "fault firings"), count(schedule.order.count, "scheduling choice", "scheduling choices"),
                count(schedule.jitter.count, "jitter draw", "jitter draws"), count(schedule.metrics.count, "metrics order", "metrics orders")]
            .joined(separator: ", ")
    }
}
