import Testing
import TapedeckScenarios

@Suite("Explore: seed ranges and shards")
struct ExploreSelectionTests {
    @Test("shards i/n of a range are disjoint, hold exactly the seeds s with s mod n == i, and together are the range",
          arguments: [(1, 100, 3), (0, 9, 4), (7, 7, 2), (5, 12, 1), (10, 14, 8), (1, 1_000, 7)])
    func shardsPartitionTheRange(first: Int, last: Int, count: Int) throws {
        let range = try SeedRange(first: UInt64(first), last: UInt64(last))
        var union: [UInt64] = []
        for index in 0..<count {
            let shard = try Shard(index: index, count: count)
            let seeds = range.seeds(in: shard)
            #expect(seeds.allSatisfy { $0 % UInt64(count) == UInt64(index) && shard.contains($0) }, "\(shard)")
            #expect(seeds == seeds.sorted(), "ascending")
            union += seeds
        }
        #expect(union.sorted() == Array(UInt64(first)...UInt64(last)), "every seed exactly once")
        #expect(range.seeds() == Array(UInt64(first)...UInt64(last)))
    }

    @Test("a shard near the top of the seed space stops instead of overflowing")
    func noOverflow() throws {
        let range = try SeedRange(first: UInt64.max - 5, last: UInt64.max)
        let seeds = range.seeds(in: try Shard(index: Int((UInt64.max - 5) % 4), count: 4))
        #expect(seeds == [UInt64.max - 5, UInt64.max - 1])
    }

    @Test("ranges and shards parse from the command line's text; a range is A..B or, as Swift writes it, A...B")
    func parses() throws {
        #expect(try SeedRange(parsing: "1..10000") == SeedRange(first: 1, last: 10_000))
        #expect(try SeedRange(parsing: "1...2000") == SeedRange(first: 1, last: 2_000))
        #expect(try SeedRange(parsing: "7") == SeedRange(first: 7, last: 7))
        #expect(try SeedRange(parsing: "3..5").count == 3)
        #expect(try Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        #expect(try Shard(parsing: "0/1") == .whole)
    }

    @Test("bad ranges and shards are rejected with a message saying what the option takes",
          arguments: ["5..1", "a..b", "1....3", "1...", "...3", "1...2...3", "1..2...3", "", "..4", "1..", "-1..3", "1..2..3",
                     "0..18446744073709551615", "1..100000001"])
    func badRange(_ text: String) {
        #expect {
            try SeedRange(parsing: text)
        } throws: { error in
            let message = (error as? ExploreError)?.message ?? ""
            return message.contains("--seeds takes A..B") || message.contains("is empty") || message.contains("split it into several runs")
        }
    }

    @Test("the largest allowed range is accepted")
    func largestRange() throws {
        #expect(try SeedRange(parsing: "1..100000000").count == SeedRange.maximumCount)
    }

    @Test("bad shards are rejected", arguments: ["3/3", "-1/2", "1/0", "x", "1/2/3", "0/-1", "/2"])
    func badShard(_ text: String) {
        #expect {
            try Shard(parsing: text)
        } throws: { error in
            (error as? ExploreError)?.message.contains("--shard takes i/n") == true
        }
    }
}
