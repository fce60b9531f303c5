import Foundation
import Testing
import TapedeckScenarios

@Suite("Decision recording: replaying a seed's decisions reproduces its run without randomness")
struct ShrinkReplayTests {
    @Test("replaying the recorded decisions gives the seeded run's trace hash, from any seed",
          arguments: fixtureScenarios.map(\.lastPathComponent))
    func replayMatchesSeededRun(_ name: String) throws {
        let scenario = try Scenario.load(fixtureScenarios.first { $0.lastPathComponent == name }!)
        for seed: UInt64 in [1, 2, 7, 13] {
            let seeded = try ScenarioRunner().run(scenario, seed: seed)
            let (recorded, decisions) = try ScenarioRunner().runRecordingDecisions(scenario, seed: seed)
            #expect(recorded.traceHash == seeded.traceHash, "\(name) seed \(seed): recording changes nothing")
            var replay = scenario
            replay.schedule = decisions
            for replaySeed: UInt64 in [0, seed, 99] {
                let replayed = try ScenarioRunner().run(replay, seed: replaySeed)
                #expect(replayed.traceHash == seeded.traceHash, "\(name) seed \(seed) replayed under seed \(replaySeed)")
                #expect(replayed.failures == seeded.failures)
            }
        }
    }

    @Test("a seeded run with an interleaving makes scheduling decisions FIFO would not (the list is not trivially empty)")
    func decisionsIncludeSchedulingChoices() throws {
        let scenario = try Scenario.load(fixtureScenarios.first { $0.lastPathComponent == "token-refresh.yaml" }!)
        let (_, decisions) = try ScenarioRunner().runRecordingDecisions(scenario, seed: 3)
        #expect(!decisions.order.isEmpty)
        #expect(decisions.exact)
    }

    @Test("an empty exact schedule runs like FIFO seed 0 without faults")
    func emptyExactScheduleIsFIFO() throws {
        let scenario = try parse("""
            traffic: {stubs: [{match: GET http://api.test/a*, latency: 10ms, jitter: 5ms}]}
            script: [{request: GET http://api.test/a, repeat: 3}]
            schedule: {exact: true}
            """)
        var plain = scenario
        plain.schedule = nil
        plain.traffic.stubs[0].jitter = .zero
        let exact = try ScenarioRunner().run(scenario, seed: 5)
        let fifo = try ScenarioRunner().run(plain, seed: 0)
        #expect(exact.traceHash == fifo.traceHash)
    }
}
