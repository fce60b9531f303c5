import Foundation
import Testing
import TapedeckScenarios

@Suite("Determinism: every fixture, many seeds, run twice")
struct DeterminismTests {
    static let seedIndependent: Set<String> = ["metrics-order.yaml"]

    @Test("a seed gives the same trace hash and outcome twice; seeds differ from each other; every seed passes",
          arguments: fixtureScenarios.map(\.lastPathComponent))
    func fixture(_ name: String) throws {
        let scenario = try Scenario.load(fixturesDirectory().appendingPathComponent(name))
        var hashes: Set<String> = []
        for seed in UInt64(1)...30 {
            let first = try ScenarioRunner().run(scenario, seed: seed)
            let second = try ScenarioRunner().run(scenario, seed: seed)
            #expect(first.traceHash == second.traceHash, "\(name) seed \(seed)")
            #expect(first == second, "\(name) seed \(seed): the whole outcome repeats")
            #expect(first.passed, "\(name) seed \(seed): \(first.failures.map(\.description))")
            hashes.insert(first.traceHash)
        }
        if Self.seedIndependent.contains(name) {
            // Nothing in it for a seed to decide: its requests never overlap, and it has no jitter
            // and no probability. (If that changes, move it out of this list.)
            #expect(hashes.count == 1, "\(name)")
        } else {
            #expect(hashes.count > 1, "\(name): the seed changes the order of same-instant work")
        }
    }

    @Test("there are fixtures to check")
    func fixturesExist() {
        #expect(fixtureScenarios.count >= 6)
    }

    @Test("the test-only nondeterministic hook makes two runs of one seed differ (what the hash comparison must catch)")
    func nondeterminismIsCaught() throws {
        let scenario = try parse("""
            _test: {nondeterministicStub: true}
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: a}]
            """)
        let first = try ScenarioRunner().run(scenario, seed: 1)
        let second = try ScenarioRunner().run(scenario, seed: 1)
        #expect(first.traceHash != second.traceHash)
    }
}

private func fixturesDirectory() -> URL {
    fixtureScenarios[0].deletingLastPathComponent()
}
