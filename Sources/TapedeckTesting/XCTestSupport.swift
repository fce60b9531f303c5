#if canImport(XCTest)
public import XCTest
public import TapedeckCassettes
public import TapedeckClient
public import TapedeckScenarios

extension XCTestCase {
    /// A ``Tape`` bound to cassette `name` (`Cassettes/<name>.har.gz` beside the test file, or in
    /// `TAPEDECK_CASSETTES`), finished when the test ends: recordings merged into the cassette, and
    /// each request the cassette could not answer reported as a failure naming the closest entries.
    /// A test that failed does not replace its cassette when re-recording (`all`). For the test's
    /// duration, `Session()`, `AF` and `MoyaProvider<API>()` use the tape (`DefaultTransport.installForProcess(_:)`).
    /// `faults` names a fault plan file (relative to the test file's folder) whose faults strike
    /// the tape's traffic, drawn from its `seed:` or else `seed`, as the `.cassette` trait's do
    /// (``Tape/injectFaults(from:seed:)``; `tape.faults` reads what fired).
    ///
    /// ```swift
    /// func testLogin() throws {
    ///     let tape = try useCassette("login", faults: "flaky.yaml")
    ///     let (_, response) = try tape.perform(URL(string: "https://api.example/login")!)
    ///     XCTAssertEqual(response.statusCode, 200)
    /// }
    /// ```
    public func useCassette(
        _ name: String, mode: TapeMode = .fromEnvironment, playback: CassetteRecorder.Playback = .strict,
        matching rules: MatchRules = MatchRules(), redactor: Redactor = Redactor(), timing: Tape.Timing = .asRecorded,
        seed: UInt64 = 1, faults: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Tape {
        // The plan first: a bad file fails the test before a tape holds the cassette.
        let plan = try faults.map { faults in
            let folder = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
            return try FaultPlan.load(faults.hasPrefix("/") ? URL(fileURLWithPath: faults) : folder.appendingPathComponent(faults))
        }
        let tape = try Tape(
            cassette: RecordSettings.cassetteURL(named: name, filePath: "\(file)"), mode: mode, playback: playback,
            matching: rules, redactor: redactor, timing: timing, seed: seed)
        if let plan { tape.injectFaults(plan) }
        // `Session()`, `AF` and `MoyaProvider<API>()` made during the test use the tape, as under
        // the trait, instead of the live network (XCTest gives the body no task-local scope).
        let transport = tape.makeClientTransport()
        DefaultTransport.installForProcess(transport)
        addTeardownBlock { [weak self] in
            DefaultTransport.uninstallForProcess(transport)
            do {
                try tape.finish(succeeded: self?.testRun?.hasSucceeded ?? true)
            } catch let TapeError.unansweredRequests(misses) {
                for miss in misses { XCTFail(miss, file: file, line: line) }
            } catch {
                XCTFail("\(error)", file: file, line: line)
            }
        }
        return tape
    }
}

extension XCTestCase {
    /// Runs scenario file `path` (absolute, or relative to the test file's directory or its
    /// `Scenarios/` directory) once per seed, with the file's client or the one `makeSession`
    /// builds, and fails the test for each run whose expectations or invariants fail, naming the
    /// seed and the line that reproduces it. Returns every outcome, for further checks.
    /// `TAPEDECK_SEED=N` (or `N,M`) in the environment runs those seeds instead; a negative seed
    /// is an error.
    ///
    /// ```swift
    /// func testRetryStorm() throws {
    ///     let outcomes = try runScenario("retry-storm.yaml", seeds: 1...20)
    ///     XCTAssertTrue(outcomes.allSatisfy { $0.requests.count == 7 })
    /// }
    /// ```
    @discardableResult
    public func runScenario(
        _ path: String, seeds: [Int] = [], makeSession: ((ScenarioWorld) -> Session)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [Outcome] {
        let scenario = try Scenario.load(ScenarioTrait.locate(path, filePath: "\(file)"))
        let refused = seeds.filter { $0 < 0 }
        guard refused.isEmpty else {
            throw ScenarioSeedError(text: "a seed is a whole number from 0: \(refused.map(String.init).joined(separator: ", ")) is not")
        }
        var outcomes: [Outcome] = []
        for seed in try ScenarioTrait.seedsFromEnvironment() ?? (seeds.isEmpty ? [scenario.seed] : seeds.map(UInt64.init)) {
            let trial = ScenarioTrial(scenario: scenario, seed: seed)
            let outcome = try makeSession.map { try trial.run(makeSession: $0) } ?? trial.run()
            if !outcome.passed { XCTFail(ScenarioTrial.summary(of: outcome, ownClient: makeSession != nil), file: file, line: line) }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// ``runScenario(_:seeds:makeSession:file:line:)`` over a range of seeds (`1...20`).
    @discardableResult
    public func runScenario(
        _ path: String, seeds: ClosedRange<Int>, makeSession: ((ScenarioWorld) -> Session)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [Outcome] {
        try runScenario(path, seeds: Array(seeds), makeSession: makeSession, file: file, line: line)
    }
}
#endif
