// The Swift snippets of TapedeckScenarios' documentation: its DocC article
// (TapedeckScenarios.docc/TapedeckScenarios.md) and the `///` examples of its public declarations.
// One function per snippet, as written plus the least scaffolding (`scenario`, `outcome`,
// `records`, `textA`, `schedule`, `url`, `write`, `exit` come in as parameters); lines added for a
// test are marked `// (test)`. Paths the snippets give relative to the working directory are
// resolved against the repository (or a scratch directory, for files they write).

import Foundation
import Testing
import TapedeckClient
import TapedeckScenarios
import TapedeckScheduling

// MARK: - Snippets

/// TapedeckScenarios.docc/TapedeckScenarios.md, "Overview".
private func scenariosArticle_overview() throws -> (Outcome, String) {
    let scenario = try Scenario.load(URL(fileURLWithPath: "fixtures/scenarios/retry-storm.yaml", relativeTo: repositoryRoot))   // (test: relativeTo)
    let outcome = try ScenarioRunner().run(scenario, seed: 7)
    print(OutcomeText(outcome, width: 100).render())
    if !outcome.passed { print(outcome.reproduction) }
    return (outcome, OutcomeText(outcome, width: 100).render())   // (test)
}

/// `ExploreMerge`.
private func exploreMerge(textA: String, textB: String) throws -> [SeedRecord] {
    let records = try ExploreMerge.records(from: [("a.jsonl", textA), ("b.jsonl", textB)])
    print(ExploreSummary(records).render())
    return records
}

/// `ExploreProgress` (`write` is the reader's output).
private func exploreProgress(write: (String) -> Void) {
    var progress = ExploreProgress(total: 1_000, terminal: false, interval: 5, start: 0)
    if let text = progress.update(done: 120, failed: 1, now: 6) { write(text) }
    // "explore: 120/1000 seeds (12%), 20.0 seeds/s, 1 failed, ETA 44s\n"
}

/// `ExploreSummary` (`exit` is the test's, so that a failure does not end the test process).
private func exploreSummary(records: [SeedRecord], exit: (Int32) -> Void) {
    let summary = ExploreSummary(records)
    print(summary.render())
    if summary.failed > 0 { exit(1) }
}

/// `Explorer`.
private func explorer(scenario: Scenario) throws -> Explorer.Result {
    let explorer = Explorer(jobs: 2, stopAfter: nil)
    let outcome = try explorer.explore(seeds: Array(1...200), makeWorker: { _ in InProcessSeedWorker(scenario: scenario) }) { record in
        print(try record.jsonLine())
    }
    print(outcome.emitted, outcome.stoppedEarly)
    return outcome
}

/// `InProcessSeedWorker`.
private func inProcessSeedWorker(scenario: Scenario) throws -> SeedRecord {
    let worker = InProcessSeedWorker(scenario: scenario)
    let record = try worker.run(seed: 7)
    return record
}

/// `SeedRecord`.
private func seedRecord(scenario: Scenario) throws -> (String, SeedRecord) {
    let outcome = try ScenarioRunner().run(scenario, seed: 7)
    let line = try SeedRecord(outcome).jsonLine()
    // {"attempts":19,"failures":[],"faultCounts":{"busy":12},...,"seed":7,"traceHash":"…","v":1,...}
    let back = try SeedRecord(jsonLine: line)
    return (line, back)
}

/// `SeedRange`.
private func seedRange() throws -> [UInt64] {
    let range = try SeedRange(parsing: "1..200")
    let shard = try Shard(parsing: "0/3")
    let mine = range.seeds(in: shard)   // 3, 6, 9, ... 198
    return Array(mine)
}

/// `Shard`.
private func shard() throws -> Bool {
    let shard = try Shard(parsing: "2/4")   // seeds 2, 6, 10, ...
    return shard.contains(10)                        // true
}

/// `FaultPlan`.
private func faultPlan(directory: URL) throws -> [String] {
    let plan = try FaultPlan.load(URL(fileURLWithPath: "faults.yaml", relativeTo: directory))   // (test: relativeTo)
    for site in plan.faults { print(site.name, site.kind.name) }
    return plan.faults.map { "\($0.name) \($0.kind.name)" }   // (test)
}

/// `Scenario`.
private func scenario() throws -> Outcome {
    let scenario = try Scenario.load(URL(fileURLWithPath: "fixtures/scenarios/retry-storm.yaml", relativeTo: repositoryRoot))   // (test: relativeTo)
    let outcome = try ScenarioRunner().run(scenario, seed: 7)
    print(outcome.passed, outcome.traceHash)
    return outcome
}

/// `Decision` (`schedule` is a run's recorded decisions).
private func decision(schedule: Schedule) -> Schedule {
    let decisions = schedule.decisions          // faults, then order, jitter and metrics
    let smaller = Schedule(exactly: decisions.dropLast())
    return smaller
}

/// `Schedule`.
private func schedule(url: URL) throws -> Scenario {
    var scenario = try Scenario.load(url)
    scenario.schedule = Schedule(faults: [FaultDecision(site: "flaky", request: "items#2", attempt: 1)], exact: true)
    return scenario   // (test)
}

/// `Outcome`.
private func outcome(scenario: Scenario) throws -> Outcome {
    let outcome = try ScenarioRunner().run(scenario, seed: 7)
    if !outcome.passed { print(outcome.failures.map(\.message), outcome.reproduction) }
    return outcome
}

/// `RecordingReport` (records from the live upstream of a scenario's `traffic.upstream`: compiled, not run).
private func recordingReport(scenario: Scenario) throws {
    let outcome = try ScenarioRunner(options: .init(recordMode: .all)).run(scenario, seed: 1)
    if let recording = outcome.recording { print(recording.note) }
}

/// `HTMLReport`.
private func htmlReport(outcome: Outcome, directory: URL) throws {
    let page = HTMLReport(outcome).render()
    try Data(page.utf8).write(to: URL(fileURLWithPath: "report.html", relativeTo: directory))   // (test: relativeTo)
}

/// `SVGTimeline`.
private func svgTimeline(outcome: Outcome, directory: URL) throws {
    let svg = SVGTimeline(outcome.timeline, width: 960).render()
    try Data(svg.utf8).write(to: URL(fileURLWithPath: "timeline.svg", relativeTo: directory))   // (test: relativeTo)
}

/// `ScenarioRunner`.
private func scenarioRunner() throws -> Outcome {
    let scenario = try Scenario.load(URL(fileURLWithPath: "fixtures/scenarios/retry-storm.yaml", relativeTo: repositoryRoot))   // (test: relativeTo)
    let outcome = try ScenarioRunner().run(scenario, seed: 7)
    print(outcome.passed ? "ok" : outcome.failures.map(\.description).joined(separator: "\n"))
    return outcome
}

/// `ScenarioRunner.runRecordingDecisions(_:seed:)`.
private func runRecordingDecisions(scenario: Scenario) throws -> (String, String) {
    let (outcome, decisions) = try ScenarioRunner().runRecordingDecisions(scenario, seed: 42)
    var replay = scenario
    replay.schedule = decisions
    let replayed = try ScenarioRunner().run(replay, seed: 0)
    assert(replayed.traceHash == outcome.traceHash)
    return (replayed.traceHash, outcome.traceHash)   // (test)
}

/// `ScenarioWorld`.
private func scenarioWorld(scenario: Scenario) throws -> Outcome {
    let outcome = try ScenarioRunner().run(scenario, seed: 3) { world in
        Session(provider: world.harness, scheduler: world.scheduler, interceptor: MyTokenInterceptor())
    }
    return outcome
}

/// `DeltaDebugging`.
private func deltaDebugging() -> [Int] {
    var search = DeltaDebugging(Array(1...8))
    while let candidate = search.candidate {
        search.record(failing: candidate.contains(3) && candidate.contains(6))
    }
    print(search.current)      // [3, 6]
    return search.current
}

/// `FailureIdentity`.
private func failureIdentity(outcome: Outcome, replayed: Outcome) -> Bool {
    let identity = FailureIdentity(outcome)
    let same = FailureIdentity(replayed) == identity
    return same
}

/// `Shrinker` (`flaky.yaml` is written to a scratch directory by the test).
private func shrinker(directory: URL) throws -> Shrinker.Result {
    let scenario = try Scenario.load(URL(fileURLWithPath: "flaky.yaml", relativeTo: directory))   // (test: relativeTo)
    let result = try Shrinker().shrink(scenario, seed: 17) { print($0) }
    print(result.original.decisions.count, "→", result.shrunk.decisions.count)
    return result
}

/// `ShrunkScenarioWriter`.
private func shrunkScenarioWriter(scenario: Scenario, input: URL, directory: URL) throws -> String {
    let result = try Shrinker().shrink(scenario, seed: 17)
    let yaml = try ShrunkScenarioWriter.yaml(result, original: input, output: URL(fileURLWithPath: "min.yaml", relativeTo: directory))   // (test: relativeTo)
    try yaml.write(to: URL(fileURLWithPath: "min.yaml", relativeTo: directory), atomically: true, encoding: .utf8)   // (test: relativeTo)
    return yaml
}

// MARK: - Tests

@Suite("TapedeckScenarios' DocC and /// snippets compile and do what they say")
struct TapedeckScenariosSnippetTests {
    private let retryStorm = repositoryFile("fixtures/scenarios/retry-storm.yaml")

    @Test("The article's, Scenario's, ScenarioRunner's and Outcome's examples: retry-storm passes from seed 7")
    func retryStormRuns() throws {
        // When the examples run retry-storm from seed 7, Then it passes, the same way each time
        let (article, text) = try scenariosArticle_overview()
        #expect(article.passed)
        #expect(!text.isEmpty)
        #expect(try scenario().passed)
        #expect(try scenarioRunner().traceHash == article.traceHash)
        #expect(try outcome(scenario: Scenario.load(retryStorm)).passed)
    }

    @Test("SeedRecord: seed 7 of retry-storm is 19 attempts and twelve busy faults, and the line reads back")
    func seedRecords() throws {
        // When SeedRecord's example runs retry-storm from seed 7
        let (line, back) = try seedRecord(scenario: Scenario.load(retryStorm))
        // Then the line holds what its comment shows (six items, three attempts each, plus /me; two busy faults each)
        #expect(line.contains(#""attempts":19"#), "\(line)")
        #expect(line.contains(#""faultCounts":{"busy":12}"#))
        #expect(line.contains(#""seed":7"#))
        // And it reads back, and InProcessSeedWorker's example makes the same record
        #expect(try back.jsonLine() == line)
        #expect(try inProcessSeedWorker(scenario: Scenario.load(retryStorm)) == back)
    }

    @Test("ExploreMerge and ExploreSummary: two shards merge, and a failure calls exit(1)")
    func merging() throws {
        // Given the records of seeds 1-8 of flaky.yaml, split into two shards' JSON lines
        let scenario = try Scenario.parse(flakyScenario, file: "flaky.yaml", source: nil)
        let lines = try (1...8).map { try SeedRecord(ScenarioRunner().run(scenario, seed: $0)).jsonLine() }
        // When ExploreMerge's example joins them
        let records = try exploreMerge(textA: lines[0..<4].joined(separator: "\n") + "\n", textB: lines[4...].joined(separator: "\n") + "\n")
        // Then every seed is there once, in order
        #expect(records.map(\.seed) == Array(1...8))
        // And ExploreSummary's example, seeing failures among them, calls exit(1) once
        #expect(records.contains { !$0.failures.isEmpty })
        var exits: [Int32] = []
        exploreSummary(records: records, exit: { exits.append($0) })
        #expect(exits == [1])
    }

    @Test("ExploreProgress writes the line its comment shows")
    func progress() {
        var written: [String] = []
        exploreProgress { written.append($0) }
        #expect(written == ["explore: 120/1000 seeds (12%), 20.0 seeds/s, 1 failed, ETA 44s\n"])
    }

    @Test("Explorer: 200 seeds on two workers, every record emitted")
    func exploring() throws {
        // When Explorer's example runs flaky.yaml's seeds 1-200, Then all 200 records are emitted
        let scenario = try Scenario.parse(flakyScenario, file: "flaky.yaml", source: nil)
        let result = try explorer(scenario: scenario)
        #expect(result.emitted == 200)
        #expect(!result.stoppedEarly)
    }

    @Test("SeedRange and Shard: shard 0/3 of 1..200 is 3, 6, … 198; shard 2/4 holds 10")
    func selection() throws {
        #expect(try seedRange() == Array(stride(from: 3, through: 198, by: 3)))
        #expect(try shard())
    }

    @Test("FaultPlan lists the sites of a faults file")
    func plan() throws {
        // Given a faults file with two sites, When FaultPlan's example reads it, Then it lists both, in order
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try "faults:\n  - name: busy\n    kind: status\n    status: 503\n  - kind: reset\n    name: cut\n    afterBytes: 10\n"
            .write(to: directory.file("faults.yaml"), atomically: true, encoding: .utf8)
        #expect(try faultPlan(directory: directory.url) == ["busy status", "cut reset"])
    }

    @Test("Schedule and Decision: an exact schedule fires the one fault it names; dropping a decision keeps the rest")
    func schedules() throws {
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try flakyScenario.write(to: directory.file("flaky.yaml"), atomically: true, encoding: .utf8)
        // When Schedule's example sets an exact schedule of one fault on items#2, Then only items#2 fails, whatever the seed
        let scheduled = try schedule(url: directory.file("flaky.yaml"))
        let outcome = try ScenarioRunner().run(scheduled, seed: 99)
        #expect(outcome.requests.map(\.status) == [200, 503, 200])
        // And Decision's example keeps all of a run's decisions but the last
        let (_, recorded) = try ScenarioRunner().runRecordingDecisions(scheduled, seed: 5)
        #expect(decision(schedule: recorded).decisions == Array(recorded.decisions.dropLast()))
    }

    @Test("HTMLReport and SVGTimeline write their files")
    func reports() throws {
        // When the examples render retry-storm's outcome into a directory, Then both files are there
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let outcome = try ScenarioRunner().run(Scenario.load(retryStorm), seed: 7)
        try htmlReport(outcome: outcome, directory: directory.url)
        try svgTimeline(outcome: outcome, directory: directory.url)
        #expect(try String(contentsOf: directory.file("report.html"), encoding: .utf8).contains("<html"))
        #expect(try String(contentsOf: directory.file("timeline.svg"), encoding: .utf8).contains("<svg"))
    }

    @Test("runRecordingDecisions: replaying the decisions under another seed gives the same trace hash")
    func recordingDecisions() throws {
        let (replayed, original) = try runRecordingDecisions(scenario: Scenario.load(retryStorm))
        #expect(replayed == original)
    }

    @Test("ScenarioWorld: the runner uses the session the closure builds")
    func world() throws {
        let outcome = try scenarioWorld(scenario: Scenario.load(retryStorm))
        #expect(outcome.requests.count == 7)
    }

    @Test("DeltaDebugging finds [3, 6]")
    func ddmin() {
        #expect(deltaDebugging() == [3, 6])
    }

    @Test("FailureIdentity: a replay of the same failing seed fails the same way")
    func identity() throws {
        // Given a seed of flaky.yaml that fails, When it is run again, Then FailureIdentity's example calls the failures the same
        let scenario = try Scenario.parse(flakyScenario, file: "flaky.yaml", source: nil)
        let failing = try ScenarioRunner().run(scenario, seed: 17)
        #expect(!failing.passed)
        #expect(failureIdentity(outcome: failing, replayed: try ScenarioRunner().run(scenario, seed: 17)))
    }

    @Test("Shrinker and ShrunkScenarioWriter: seed 17 of flaky.yaml shrinks to fewer decisions, written as an exact schedule")
    func shrinking() throws {
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try flakyScenario.write(to: directory.file("flaky.yaml"), atomically: true, encoding: .utf8)
        // When Shrinker's example shrinks seed 17, Then fewer decisions remain
        let result = try shrinker(directory: directory.url)
        #expect(result.shrunk.decisions.count < result.original.decisions.count)
        // And ShrunkScenarioWriter's example writes the YAML it returns
        let yaml = try shrunkScenarioWriter(scenario: Scenario.load(directory.file("flaky.yaml")), input: directory.file("flaky.yaml"), directory: directory.url)
        #expect(try String(contentsOf: directory.file("min.yaml"), encoding: .utf8) == yaml)
    }
}
