import Foundation
import Testing
import TapedeckScenarios

/// The planted-bug scenarios under Files/shrink/.
let shrinkDirectory = filesDirectory.appendingPathComponent("shrink")

@Suite("Shrinking planted bugs to the decisions that matter")
struct ShrinkTests {
    @Test("a 401 and a reset on the same request, among many harmless faults, shrink to exactly those two", arguments: [UInt64(1), 2, 5, 8])
    func resetAnd401(_ seed: UInt64) throws {
        let scenario = try Scenario.load(shrinkDirectory.appendingPathComponent("reset-and-401.yaml"))
        let result = try Shrinker().shrink(scenario, seed: seed)
        #expect(result.original.decisions.count > 20, "the seed made many decisions")
        #expect(result.shrunk.order.isEmpty && result.shrunk.jitter.isEmpty && result.shrunk.metrics.isEmpty)
        let faults = result.shrunk.faults
        #expect(faults.count == 2)
        #expect(Set(faults.map(\.site)) == ["unauthorized", "reset"])
        #expect(Set(faults.map(\.request)).count == 1, "both on the same request")
        #expect(result.scenario.faults.map(\.name).sorted() == ["reset", "unauthorized"], "harmless sites are gone")
        #expect(result.failure == FailureIdentity(result.seededOutcome))
        #expect(FailureIdentity(result.outcome) == result.failure)
        #expect(result.complete)
    }

    @Test("a reset's byte count is simplified to zero")
    func valuesAreSimplified() throws {
        let scenario = try Scenario.load(shrinkDirectory.appendingPathComponent("reset-and-401.yaml"))
        let result = try Shrinker().shrink(scenario, seed: 1)
        let reset = try #require(result.scenario.faults.first { $0.name == "reset" })
        #expect(reset.kind == .reset(afterBytes: 0))
        #expect(reset.probabilityPerMille == 1_000 && reset.enabledPerMille == 1_000)
    }

    @Test("a jitter draw shrinks to the least there is (1 ns), whether it was under a millisecond or over", arguments: [UInt64(1), 3])
    func jitterToTheLeast(_ seed: UInt64) throws {
        let scenario = try Scenario.load(shrinkDirectory.appendingPathComponent("late-by-jitter.yaml"))
        let result = try Shrinker().shrink(scenario, seed: seed)
        #expect(result.original.jitter.count == 1 && result.original.jitter[0].nanoseconds > 1)
        #expect(result.shrunk.jitter.map(\.nanoseconds) == [1], "\(result.shrunk.jitter)")
        #expect(FailureIdentity(result.outcome) == result.failure)
    }

    @Test("an ordering bug shrinks to the one scheduling choice that matters")
    func orderingChoice() throws {
        let scenario = try Scenario.load(shrinkDirectory.appendingPathComponent("first-come.yaml"))
        #expect(try ScenarioRunner().run(scenario, seed: 0).passed, "FIFO order passes")
        let result = try Shrinker().shrink(scenario, seed: 6)
        #expect(result.shrunk.faults.isEmpty)
        #expect(result.shrunk.order.count == 1)
        #expect(result.shrunk.order.first?.rank == 1)
    }

    @Test("a decision moved to an earlier attempt leaves none that no longer fire: the result is 1-minimal, and shrinking it again gives it back",
          arguments: [UInt64(1), 20, 28, 29, 35])
    func shrinkingIsIdempotent(_ seed: UInt64) throws {
        let scenario = try Scenario.load(shrinkDirectory.appendingPathComponent("items-chaos.yaml"))
        let once = try Shrinker().shrink(scenario, seed: seed)
        let twice = try Shrinker().shrink(once.scenario, seed: seed)
        #expect(twice.shrunk.decisions == once.shrunk.decisions, "\(once.shrunk.decisions) then \(twice.shrunk.decisions)")
        #expect(twice.scenario.faults == once.scenario.faults)
        // Every decision left fires: as many firings as fault decisions
        #expect(once.outcome.requests.reduce(0) { $0 + $1.faults.count } == once.shrunk.faults.count, "\(once.outcome.requests.map(\.faults))")
    }

    @Test("a passing seed has nothing to shrink")
    func passingSeed() throws {
        let scenario = try Scenario.load(shrinkDirectory.appendingPathComponent("first-come.yaml"))
        #expect(throws: Shrinker.Problem.self) { try Shrinker().shrink(scenario, seed: 0) }
    }

    @Test("the written scenario fails the same way under any seed, from its own directory")
    func writtenScenarioReproduces() throws {
        let input = shrinkDirectory.appendingPathComponent("reset-and-401.yaml")
        let result = try Shrinker().shrink(try Scenario.load(input), seed: 2)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-\(UUID().uuidString)/nested")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let output = directory.appendingPathComponent("min.yaml")
        try ShrunkScenarioWriter.yaml(result, original: input, output: output).write(to: output, atomically: true, encoding: .utf8)
        let written = try Scenario.load(output)
        #expect(written.schedule?.exact == true)
        #expect(written.schedule?.origin?.seed == 2)
        #expect(written.faults.allSatisfy { $0.probabilityPerMille == 1_000 && $0.enabledPerMille == 1_000 })
        var hashes: Set<String> = []
        for seed: UInt64 in [0, 1, 2, 5, 1234] {
            let outcome = try ScenarioRunner().run(written, seed: seed)
            #expect(FailureIdentity(outcome) == result.failure, "seed \(seed)")
            hashes.insert(outcome.traceHash)
        }
        #expect(hashes.count == 1, "no randomness left")
    }

    @Test("a cassette path is rewritten to resolve from the written file")
    func cassettePathsAreRebased() throws {
        let input = fixtureScenarios.first { $0.lastPathComponent == "reset-mid-body.yaml" }!
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenario = try Scenario.load(input)
        let (outcome, decisions) = try ScenarioRunner().runRecordingDecisions(scenario, seed: 1)
        var shrunk = scenario
        shrunk.schedule = decisions
        let result = Shrinker.Result(scenario: shrunk, original: decisions, shrunk: decisions, failure: FailureIdentity(outcome),
                                     seededOutcome: outcome, outcome: outcome, steps: [], runs: 1, complete: true)
        let output = directory.appendingPathComponent("copy.yaml")
        try ShrunkScenarioWriter.yaml(result, original: input, output: output).write(to: output, atomically: true, encoding: .utf8)
        let written = try Scenario.load(output)
        #expect(try ScenarioRunner().run(written, seed: 9).traceHash == outcome.traceHash)
    }
    @Test("a multipart part's file:, a stub's bodyFile: and a relative $schema are rewritten to resolve from a written file in another directory")
    func multipartFilePathsAreRebased() throws {
        // Given a scenario whose upload reads bodies/photo.jpg beside it
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-\(UUID().uuidString)")
        let bodies = root.appendingPathComponent("scen/bodies"), out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("photo bytes".utf8).write(to: bodies.appendingPathComponent("photo.jpg"))
        try Data(#"{"ok": true}"#.utf8).write(to: bodies.appendingPathComponent("ok.json"))
        let input = root.appendingPathComponent("scen/upload.yaml")
        try Data("""
            $schema: scenario.schema.json
            name: upload
            traffic:
              stubs:
                - match: PUT http://api.test/photo
                  bodyFile: bodies/ok.json
            script:
              - request: PUT http://api.test/photo
                name: photo
                multipart:
                  - {name: photo, file: bodies/photo.jpg}
              - request: PUT http://api.test/photo
                name: single
                multipart: {name: photo, file: bodies/photo.jpg}
            faults:
              - {name: busy, kind: status, status: 503}
            expect:
              requests:
                photo: {status: 200}
            """.utf8).write(to: input)
        let scenario = try Scenario.load(input)
        let (outcome, decisions) = try ScenarioRunner().runRecordingDecisions(scenario, seed: 1)
        var shrunk = scenario
        shrunk.schedule = decisions
        let result = Shrinker.Result(scenario: shrunk, original: decisions, shrunk: decisions, failure: FailureIdentity(outcome),
                                     seededOutcome: outcome, outcome: outcome, steps: [], runs: 1, complete: true)
        // When it is written into another directory
        let output = out.appendingPathComponent("min.yaml")
        let text = try ShrunkScenarioWriter.yaml(result, original: input, output: output)
        try text.write(to: output, atomically: true, encoding: .utf8)
        // Then both parts' files resolve from there: it loads, sends the same bytes, and replays the same trace
        #expect(text.contains("../scen/bodies/photo.jpg"), "\(text)")
        #expect(text.contains("$schema: '../scen/scenario.schema.json'") || text.contains("$schema: \"../scen/scenario.schema.json\""), "\(text)")
        let written = try Scenario.load(output)
        let parts = written.script.compactMap { step -> [MultipartPart]? in
            if case let .request(request) = step { return request.multipart } else { return nil }
        }
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.first?.content == Data("photo bytes".utf8) && $0.first?.fileName == "photo.jpg" })
        #expect(try ScenarioRunner().run(written, seed: 9).traceHash == outcome.traceHash)
    }
}

@Suite("ddmin as a value")
struct DeltaDebuggingTests {
    @Test("finds the two elements that together fail, and only them")
    func findsPair() {
        var search = DeltaDebugging(Array(1...40))
        var tests = 0
        while let candidate = search.candidate {
            tests += 1
            search.record(failing: candidate.contains(7) && candidate.contains(31))
        }
        #expect(search.current == [7, 31])
        #expect(tests < 100)
    }

    @Test("an empty list fails: the result is empty after one test")
    func emptyFails() {
        var search = DeltaDebugging([1, 2, 3])
        search.record(failing: true)
        #expect(search.current.isEmpty)
        #expect(search.isDone)
    }

    @Test("a single necessary element is kept")
    func single() {
        var search = DeltaDebugging(Array(0..<9))
        while let candidate = search.candidate { search.record(failing: candidate.contains(4)) }
        #expect(search.current == [4])
    }
}
