/// A ``SeedWorker`` that runs seeds in this process. Each seed gets a fresh scheduler, network,
/// harness, URLSession and client, built as ``ScenarioRunner`` builds them; only the scenario's
/// cassette is read once and kept (an immutable value — each run gets its own player), so nothing
/// a run changes is kept and a seed's trace hash does not depend on the seeds run before it.
///
/// ```swift
/// let worker = InProcessSeedWorker(scenario: scenario)
/// let record = try worker.run(seed: 7)
/// ```
public final class InProcessSeedWorker: SeedWorker {
    /// Where a worker's time went, in nanoseconds of the clock it was given, summed over seeds.
    public struct PhaseTimes: Hashable, Sendable {
        /// Building the world: scheduler, network, traffic, harness, client.
        public var setup: UInt64 = 0
        /// Running the simulation and building the outcome.
        public var simulation: UInt64 = 0
        /// Turning the outcome into its record and JSON line.
        public var encoding: UInt64 = 0
        /// Seeds timed.
        public var seeds: Int = 0

        /// No time yet.
        public init() {}
    }

    private let scenario: Scenario
    private let options: ScenarioRunner.Options
    private let clock: (@Sendable () -> UInt64)?
    private let cassettes: CassetteCache?
    /// The time spent so far, by phase (all zero unless a clock was given).
    public private(set) var times = PhaseTimes()

    /// A worker for `scenario`. Give `clock` (monotonic nanoseconds) only to measure where the time
    /// goes; the simulation itself never reads it. `reuseCassettes: false` reads the cassette for
    /// every seed, as `tapedeck run` does (the benchmark compares the two). Recording runs
    /// (`options.recordMode`) always open the cassette afresh.
    public init(scenario: Scenario, options: ScenarioRunner.Options = ScenarioRunner.Options(), clock: (@Sendable () -> UInt64)? = nil,
                reuseCassettes: Bool = true) {
        self.scenario = scenario
        self.options = options
        self.clock = clock
        cassettes = reuseCassettes ? CassetteCache() : nil
    }

    /// Runs `seed` and returns its record.
    public func run(seed: UInt64) throws -> SeedRecord {
        guard let clock else {
            return SeedRecord(try Run(scenario: scenario, seed: seed, options: options, makeSession: nil, cassettes: cassettes).execute().outcome)
        }
        let start = clock()
        let run = try Run(scenario: scenario, seed: seed, options: options, makeSession: nil, cassettes: cassettes)
        let built = clock()
        let outcome = run.execute().outcome
        let simulated = clock()
        let record = SeedRecord(outcome)
        _ = try record.jsonLine()
        let encoded = clock()
        times.setup += built - start
        times.simulation += simulated - built
        times.encoding += encoded - simulated
        times.seeds += 1
        return record
    }

    /// Nothing to release.
    public func finish() {}
}
