import Foundation
import Testing
import TapedeckScenarios

@Suite("Explore: workers, order, stopping, and seed independence")
struct ExploreEngineTests {
    @Test("a seed's record (hash included) does not depend on which seeds its worker ran before it, nor on the kept cassette")
    func seedIndependentOfEarlierSeeds() throws {
        let scenario = try halfFailingRetryStorm()
        let alone = try InProcessSeedWorker(scenario: scenario).run(seed: 9)
        let worker = InProcessSeedWorker(scenario: scenario)
        let earlier = try (1...8).map { try worker.run(seed: UInt64($0)) }
        let after = try worker.run(seed: 9)
        #expect(after == alone)
        let reversed = InProcessSeedWorker(scenario: scenario)
        #expect(try reversed.run(seed: 9) == alone)
        let laterFirst = try (1...8).reversed().map { try reversed.run(seed: UInt64($0)) }
        #expect(laterFirst.reversed() == earlier, "seeds 1-8 after seed 9 equal seeds 1-8 run first")
        let hashes = Set(earlier.map(\.traceHash))
        #expect(hashes.count == 8, "and the seeds do differ from each other")
        #expect(try InProcessSeedWorker(scenario: scenario, reuseCassettes: false).run(seed: 9) == alone,
                "keeping the parsed cassette changes nothing")
        #expect(try SeedRecord(ScenarioRunner().run(scenario, seed: 9)) == alone, "and equals a plain run")
    }

    @Test("records come in seed order whatever the number of workers, and equal a plain run of each seed")
    func seedOrder() throws {
        let scenario = try halfFailingRetryStorm()
        let seeds: [UInt64] = [4, 1, 9, 2, 7, 3]
        let one = try explore(scenario, seeds: seeds, jobs: 1)
        let three = try explore(scenario, seeds: seeds, jobs: 3)
        #expect(one.records.map(\.seed) == seeds)
        #expect(three.records == one.records)
        #expect(one.result.emitted == 6 && !one.result.stoppedEarly)
        #expect(try one.records == seeds.map { SeedRecord(try ScenarioRunner().run(scenario, seed: $0)) })
    }

    @Test("stopAfter K emits seeds up to the K-th failure, in order, and says it stopped early")
    func stopsAfterFailures() throws {
        let scenario = try halfFailingRetryStorm()
        let all = try explore(scenario, seeds: Array(1...20), jobs: 1).records
        let failing = all.filter { !$0.passed }.map(\.seed)
        try #require(failing.count >= 3)
        let stopped = try explore(scenario, seeds: Array(1...20), jobs: 2, stopAfter: 2)
        #expect(stopped.records == Array(all.prefix { $0.seed <= failing[1] }))
        #expect(stopped.result.stoppedEarly)
        let everything = try explore(scenario, seeds: Array(1...20), jobs: 2, stopAfter: 100)
        #expect(everything.records == all && !everything.result.stoppedEarly)
    }

    @Test("a worker's error stops the exploration and is rethrown to the caller")
    func workerErrorStops() throws {
        final class Failing: SeedWorker {
            func run(seed: UInt64) throws -> SeedRecord { throw ExploreError("worker broke on \(seed)") }
            func finish() {}
        }
        var emitted = 0
        #expect(throws: ExploreError("worker broke on 1")) {
            try Explorer(jobs: 1, stopAfter: nil).explore(seeds: [1, 2, 3], makeWorker: { _ in Failing() }) { _ in emitted += 1 }
        }
        #expect(emitted == 0)
    }
}
