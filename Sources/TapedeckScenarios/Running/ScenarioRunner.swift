import Foundation
public import TapedeckCassettes
public import TapedeckClient
public import TapedeckScheduling
import Synchronization
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork

/// Runs a scenario on the simulator from a seed and returns its ``Outcome``. It builds the
/// simulated scheduler, network, harness and the client's `Session` exactly as a user would by
/// hand, then sends the script's requests, injects the faults, and checks the expectations and
/// the invariants.
///
/// ```swift
/// let scenario = try Scenario.load(URL(fileURLWithPath: "fixtures/scenarios/retry-storm.yaml"))
/// let outcome = try ScenarioRunner().run(scenario, seed: 7)
/// print(outcome.passed ? "ok" : outcome.failures.map(\.description).joined(separator: "\n"))
/// ```
public struct ScenarioRunner: Sendable {
    /// How a run is made.
    public struct Options: Sendable {
        /// Keep every trace step (needed to show where two runs diverge) or only the hash.
        public var traceMode: TraceMode
        /// Record what the cassette lacks from the traffic's upstream (nil: replay only).
        public var recordMode: CassetteRecorder.Mode?
        /// A run that executes more jobs than this stops (a retry loop that never ends).
        public var maxSteps: Int
        /// Where `tapedeck run` was asked to run the file (for reproduction lines).
        public var commandName: String
        /// Log every decision the seed makes (scheduling choices too, which costs a little per
        /// choice), for ``ScenarioRunner/runRecordingDecisions(_:seed:)``. Fault decisions are
        /// always logged.
        public var recordsDecisions = false

        /// Options for a replay-only run keeping the hash only.
        public init(traceMode: TraceMode = .hashOnly, recordMode: CassetteRecorder.Mode? = nil, maxSteps: Int = 5_000_000,
                    commandName: String = "tapedeck") {
            self.traceMode = traceMode
            self.recordMode = recordMode
            self.maxSteps = maxSteps
            self.commandName = commandName
        }
    }

    /// How it runs scenarios (trace mode, recording, step limit, command name).
    public let options: Options
    /// Cassettes this runner has read: running a scenario again (another seed, the next case of a
    /// trait) replays them without reading and parsing the file again, unless it changed.
    private let cassettes: CassetteCache

    /// A runner with `options`.
    public init(options: Options = Options()) {
        self.options = options
        cassettes = CassetteCache()
    }

    /// A runner with other options sharing `cassettes`.
    private init(options: Options, cassettes: CassetteCache) {
        self.options = options
        self.cassettes = cassettes
    }

    /// What reading the scenario's cassette left out or had to guess (its skipped entries and
    /// load notes), one line each; empty when there is no cassette or it cannot be read yet (the
    /// run says why). Read through this runner's cache, so a run that follows does not read the
    /// file again.
    public func cassetteWarnings(for scenario: Scenario) -> [String] {
        guard let url = scenario.traffic.cassette?.url, FileManager.default.fileExists(atPath: url.path),
              let cassette = try? cassettes.cassette(at: url) else { return [] }
        return cassette.skipped.map { "\(url.path): \($0)" } + cassette.notes.map { "\(url.path): \($0)" }
    }

    /// Throws the error a run of `scenario` would stop with for its cassette (missing, a
    /// directory, damaged), reading it through this runner's cache; nothing when it replays (or
    /// is to be recorded into). A tool that hands seeds to several workers checks once, first,
    /// so the problem is said once.
    public func checkCassette(for scenario: Scenario) throws(ScenarioError) {
        guard options.recordMode == nil, let cassette = scenario.traffic.cassette else { return }
        _ = try CassetteLoader(scenario: scenario, cassettes: cassettes).player(for: cassette)
    }

    /// What the scenario's file says that loads but can never take effect, one line each
    /// (`file:line:column: path: reason — hint`): a fault whose route matches no request of the
    /// script, nor the token endpoint, nor a redirect's target that the stubs or the cassette
    /// name; a cancel during a backoff the client never waits in. Then ``cassetteWarnings(for:)``.
    ///
    /// ```swift
    /// for warning in runner.warnings(for: scenario) { print("warning: " + warning) }
    /// ```
    public func warnings(for scenario: Scenario) -> [String] {
        var redirects: [URL] = []
        if scenario.warnings.items.contains(where: { $0.route != nil }), let url = scenario.traffic.cassette?.url,
           FileManager.default.fileExists(atPath: url.path), let cassette = try? cassettes.cassette(at: url) {
            for interaction in cassette.interactions {
                guard let location = interaction.response?.headers.first(where: { $0.name.lowercased() == "location" })?.value,
                      let target = URL(string: location, relativeTo: interaction.request.url)?.absoluteURL else { continue }
                redirects.append(target)
            }
        }
        let own = scenario.warnings.items.filter { warning in
            guard let route = warning.route else { return true }
            return !redirects.contains { RequestPattern(url: route.url).matches(method: "GET", url: $0) }
        }
        // In file order, as errors are (the checks that find them go by kind).
        let ordered = own.enumerated().sorted { ($0.element.problem.line, $0.element.problem.column, $0.offset)
            < ($1.element.problem.line, $1.element.problem.column, $1.offset) }
        return ordered.map(\.element.problem.description) + cassetteWarnings(for: scenario)
    }

    /// Runs `scenario` from `seed` with the client its `client` section describes.
    public func run(_ scenario: Scenario, seed: UInt64) throws(ScenarioError) -> Outcome {
        try run(scenario, seed: seed, makeSession: nil).outcome
    }

    /// Runs `scenario` from `seed` with a client your code builds from the world the runner
    /// hands it (your own interceptors, retriers, monitors). The scenario's `client` section is
    /// not used; its traffic, script, faults and expectations are.
    public func run(_ scenario: Scenario, seed: UInt64, makeSession: @escaping (ScenarioWorld) -> Session) throws(ScenarioError) -> Outcome {
        try run(scenario, seed: seed, makeSession: Optional(makeSession)).outcome
    }

    /// A run and the trace it left (for determinism checks and `--trace`).
    public func runKeepingTrace(_ scenario: Scenario, seed: UInt64) throws(ScenarioError) -> (outcome: Outcome, trace: [TraceStep]) {
        var options = self.options
        options.traceMode = .full
        let result = try ScenarioRunner(options: options, cassettes: cassettes).run(scenario, seed: seed, makeSession: nil)
        return (result.outcome, result.trace)
    }

    /// A run and every decision it made: the fault firings, the choices between ready roots, the
    /// jitter draws and the metrics orders that were not the default. Replaying them
    /// (`scenario.schedule = decisions`) gives the same run, trace hash and all, from any seed.
    ///
    /// ```swift
    /// let (outcome, decisions) = try ScenarioRunner().runRecordingDecisions(scenario, seed: 42)
    /// var replay = scenario
    /// replay.schedule = decisions
    /// let replayed = try ScenarioRunner().run(replay, seed: 0)
    /// assert(replayed.traceHash == outcome.traceHash)
    /// ```
    public func runRecordingDecisions(_ scenario: Scenario, seed: UInt64) throws(ScenarioError) -> (outcome: Outcome, decisions: Schedule) {
        var options = self.options
        options.recordsDecisions = true
        let run = try Run(scenario: scenario, seed: seed, options: options, makeSession: nil, cassettes: cassettes)
        let outcome = run.execute().outcome
        return (outcome, run.decisions)
    }

    private func run(_ scenario: Scenario, seed: UInt64, makeSession: ((ScenarioWorld) -> Session)?) throws(ScenarioError) -> (outcome: Outcome, trace: [TraceStep]) {
        let run = try Run(scenario: scenario, seed: seed, options: options, makeSession: makeSession, cassettes: cassettes)
        return run.execute()
    }
}

/// One run: the world, the client, the script, and what they did.
final class Run: @unchecked Sendable {
    // @unchecked Sendable: built and read on the caller's thread; while the simulation runs, its
    // jobs (on the scheduler's thread) touch only Mutex-guarded state and immutable references.

    let scenario: Scenario
    let seed: UInt64
    let options: ScenarioRunner.Options
    let world: ScenarioWorld
    let session: Session
    let recorder: RunRecorder
    let sites: FaultSites
    let tokenServer: TokenServer?
    /// Writes the token expiries into the trace at their instants (nil: the file has none).
    let tokenExpiries: TokenExpiryMarks?
    let cassetteRecorder: CassetteRecorder?
    /// The provider the script's `target:` steps go through (the file's `client.provider`).
    let provider: ScenarioProvider?
    /// The network's jitter and metrics-order choices, when recorded or replayed.
    let networkChoices: NetworkChoices?

    init(scenario: Scenario, seed: UInt64, options: ScenarioRunner.Options, makeSession: ((ScenarioWorld) -> Session)?,
         cassettes: CassetteCache? = nil) throws(ScenarioError) {
        self.scenario = scenario
        self.seed = seed
        self.options = options
        let exact = scenario.schedule.flatMap { $0.exact ? $0 : nil }
        let choices: RootChoiceSource = exact.map { .replaying($0.order) } ?? (options.recordsDecisions ? .recording : .seeded)
        let scheduler = SimulatedScheduler(seed: seed, traceMode: options.traceMode, violationPolicy: .record, choices: choices)
        let network = SimulatedNetwork(scheduler: scheduler)
        networkChoices = exact != nil || options.recordsDecisions ? NetworkChoices(replaying: exact) : nil
        network.choices = networkChoices
        let traffic = try TrafficBuilder(scenario: scenario, network: network, recordMode: options.recordMode, cassettes: cassettes).build()
        tokenServer = traffic.tokenServer
        cassetteRecorder = traffic.recorder
        sites = FaultSites(scenario.faults.filter { if case .tokenExpiry = $0.kind { return false } else { return true } },
                           random: scheduler.random, schedule: scenario.schedule)
        network.faults = scenario.traffic.testHooks.nondeterministicStub ? NondeterministicHook(sites) as any FaultHook : sites
        let harness = Harness(network: network)
        // After the harness's own quiescence hook, so it sees what that one submitted.
        tokenExpiries = traffic.tokenServer == nil ? nil : TokenExpiryMarks(scenario.faults, scheduler: scheduler, queue: network.queue)
        world = ScenarioWorld(scheduler: scheduler, network: network, harness: harness,
                              appQueue: scheduler.makeSimulatedQueue(label: "scenario.app", target: nil), scenario: scenario)
        recorder = RunRecorder(scheduler: scheduler)
        if let makeSession {
            session = makeSession(world)
            // A session on anything but this run's world would send its requests elsewhere (the
            // live network) or trap on another simulation's queues: say so instead.
            guard (session.transportProvider as AnyObject?) === harness, (session.scheduler as AnyObject) === scheduler else {
                throw ScenarioError(file: scenario.source?.path ?? "", reason: "the Session makeSession returned does not run on the world "
                                    + "the runner handed it (its provider must be world.harness and its scheduler world.scheduler), so "
                                    + "the scenario's traffic, faults and clock would not reach it",
                                    hint: "build it as Session(provider: world.harness, scheduler: world.scheduler, …) with your interceptors")
            }
        } else {
            session = ClientFactory.session(for: scenario.client, auth: scenario.traffic.auth, world: world, recorder: recorder)
        }
        if let setup = scenario.client.provider {
            provider = ScenarioProvider(setup: setup, session: session, scheduler: scheduler, clientHeaders: scenario.client.headers)
        } else {
            provider = nil
        }
    }

    /// Every decision made so far, as an exact schedule.
    var decisions: Schedule {
        Schedule(faults: sites.fired.map(\.decision), exact: true, order: world.scheduler.recordedChoices,
                 jitter: networkChoices?.jitter ?? [], metrics: networkChoices?.metrics ?? [])
    }

    func execute() -> (outcome: Outcome, trace: [TraceStep]) {
        ScriptDriver(run: self).schedule()
        var stop: String?
        do {
            try world.scheduler.runUntilIdle(maxSteps: options.maxSteps)
        } catch let SimulationError.stepLimitExceeded(steps, time) {
            // A scenario's limit is the runner's option (ScenarioRunner.Options.maxSteps), not a flag.
            stop = "tapedeck: the simulation ran \(steps) jobs without becoming idle (t=\(time)); look for work that "
                + "reschedules itself forever (a retry with no limit, a poll that never ends), or a body sent in very many "
                + "slices (a large body under a bandwidth of a few bytes a second: each slice is a job)"
        } catch {
            stop = "\(error)"
        }
        let trace = options.traceMode == .full ? world.scheduler.trace : []
        var outcome = OutcomeBuilder(run: self, stop: stop).build()
        // Ends the scheduler and invalidates the harness's sessions, so the URLSession is freed
        // (a Session built on something else invalidates its own when it is released).
        world.harness.endSimulation()
        // A failed run never replaces the cassette: what it recorded is added after the old entries.
        if let cassetteRecorder {
            outcome.recording = RecordingReport.finishing(cassetteRecorder, passed: outcome.passed)
            if cassetteRecorder.options.mode == .once, outcome.recording?.recorded == 0 {
                // Nothing was recorded into the cassette that existed: its misses need new_episodes.
                let missed = Set(world.network.records.compactMap { record -> String? in
                    guard case let .failure(failure) = record.outcome, failure.isNoRoute else { return nil }
                    return record.tag
                })
                outcome.recording?.unrecordedMisses = outcome.requests.map(\.name).filter(missed.contains)
            }
        }
        return (outcome, trace)
    }
}
