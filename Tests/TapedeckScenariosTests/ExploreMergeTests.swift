import Foundation
import Testing
import TapedeckScenarios

@Suite("Explore: summaries and merging shards")
struct ExploreMergeTests {
    @Test("three shards explored apart and merged equal the unsharded run, seed for seed, hash for hash, summary for summary")
    func threeShardsEqualOneRun() throws {
        let scenario = try halfFailingRetryStorm()
        let range = try SeedRange(first: 1, last: 30)
        let whole = try explore(scenario, seeds: range.seeds(), jobs: 2).records
        var inputs: [(name: String, text: String)] = []
        for index in 0..<3 {
            let shard = try explore(scenario, seeds: range.seeds(in: try Shard(index: index, count: 3)), jobs: 1 + index % 2).records
            inputs.append(("shard\(index).jsonl", try shard.map { try $0.jsonLine() + "\n" }.joined()))
        }
        let merged = try ExploreMerge.records(from: inputs.reversed())
        #expect(merged.map(\.seed) == Array(1...30))
        #expect(merged.map(\.traceHash) == whole.map(\.traceHash))
        #expect(merged == whole)
        #expect(ExploreSummary(merged) == ExploreSummary(whole))
        #expect(ExploreSummary(merged).render() == ExploreSummary(whole).render())
        let summary = ExploreSummary(whole)
        #expect(summary.failed > 0 && summary.failed < 30, "the scenario fails on some seeds only: \(summary.failed)")
    }

    @Test("the summary counts seeds, failures, distinct hashes and site firings, lists the slowest and every failing seed with its reproduction line")
    func summaryCounts() throws {
        let records = try explore(try halfFailingRetryStorm(), seeds: Array(1...20)).records
        let summary = ExploreSummary(records)
        let failing = records.filter { !$0.passed }
        #expect(summary.scenario == "retry-storm" && summary.seeds == 20 && summary.seedBounds == 1...20)
        #expect(summary.failed == failing.count && summary.failing == failing)
        #expect(summary.distinctHashes == Set(records.map(\.traceHash)).count)
        #expect(summary.attempts == records.reduce(0) { $0 + $1.attempts })
        let busy = records.filter { $0.faultCounts["busy"] != nil }
        #expect(summary.sites.map(\.site) == ["busy"])
        #expect(summary.sites.first?.firings == busy.count * 12 && summary.sites.first?.seeds == busy.count)
        #expect(summary.slowest.count == 5)
        #expect(zip(summary.slowest, summary.slowest.dropFirst()).allSatisfy { $0.virtualNanoseconds >= $1.virtualNanoseconds })
        let text = summary.render()
        #expect(text.hasPrefix("retry-storm: 20 seeds (seeds 1..20), \(failing.count) failed, "))
        #expect(text.contains("  busy: \(busy.count * 12) times in \(busy.count) of 20 seeds"))
        for record in failing {
            #expect(text.contains("  seed \(record.seed): expectation exchanges: GET http://api.shop.test/api/items/*: expected 18 exchanges, the network saw 6 (+6 more)"), "\(text)")
            #expect(text.contains("    reproduce: \(record.reproduction)"))
        }
    }

    @Test("merge rejects an overlapping seed, another scenario, another version and a malformed line, naming the input and line")
    func mergeRejectsMismatches() throws {
        let records = try explore(try retryStorm(), seeds: [1, 2, 3], jobs: 1).records
        let lines = try records.map { try $0.jsonLine() }
        let a = lines[0] + "\n" + lines[1] + "\n", b = lines[2] + "\n"
        #expect(throws: ExploreError("merge: b.jsonl:2: seed 2 is also in a.jsonl (the inputs overlap; shards of one range are disjoint)")) {
            try ExploreMerge.records(from: [("a.jsonl", a), ("b.jsonl", b + lines[1] + "\n")])
        }
        #expect(throws: ExploreError("merge: a.jsonl:3: seed 1 is earlier in the same file (the inputs overlap; shards of one range are disjoint)")) {
            try ExploreMerge.records(from: [("a.jsonl", a + lines[0])])
        }
        var other = records[2]
        other.scenario = "token-refresh"
        #expect {
            try ExploreMerge.records(from: [("a.jsonl", a), ("c.jsonl", try other.jsonLine())])
        } throws: { error in
            let message = (error as? ExploreError)?.message ?? ""
            return message.hasPrefix("merge: c.jsonl:1: scenario 'token-refresh'") && message.contains("merge the shards of one scenario")
        }
        #expect(throws: ExploreError("merge: d.jsonl:1: format version 2, this tapedeck reads version 1")) {
            try ExploreMerge.records(from: [("a.jsonl", a), ("d.jsonl", lines[2].replacingOccurrences(of: #""v":1"#, with: #""v":2"#))])
        }
        #expect(throws: ExploreError("merge: e.jsonl:2: not a JSON object")) {
            try ExploreMerge.records(from: [("e.jsonl", b + "{truncated")])
        }
        #expect(try ExploreMerge.records(from: [("a.jsonl", a), ("b.jsonl", "\n" + b + "\n")]) == records, "blank lines are skipped")
        // Counts no run reaches (a hand-edited or damaged file) are refused, not summed into a trap.
        var huge = records[2]
        huge.attempts = .max
        #expect(throws: ExploreError("merge: f.jsonl:1: field 'attempts' is \(Int.max), out of range (0 to 1099511627776): not a record tapedeck wrote")) {
            try ExploreMerge.records(from: [("a.jsonl", a), ("f.jsonl", try huge.jsonLine())])
        }
        var negative = records[2]
        negative.faultCounts = ["busy": -5]
        #expect(throws: ExploreError("merge: g.jsonl:1: field 'faultCounts.busy' is -5, out of range (0 to 1099511627776): not a record tapedeck wrote")) {
            try ExploreMerge.records(from: [("g.jsonl", try negative.jsonLine())])
        }
    }
}
