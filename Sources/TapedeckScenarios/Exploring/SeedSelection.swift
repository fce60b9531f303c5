/// An inclusive range of seeds, written `A..B` on the command line (`1..10000`; `A...B` too, as
/// Swift writes it; a single `7` is the range `7..7`).
///
/// ```swift
/// let range = try SeedRange(parsing: "1..200")
/// let shard = try Shard(parsing: "0/3")
/// let mine = range.seeds(in: shard)   // 3, 6, 9, ... 198
/// ```
public struct SeedRange: Hashable, Sendable, CustomStringConvertible {
    /// The first seed.
    public let first: UInt64
    /// The last seed (included).
    public let last: UInt64

    /// The most seeds one range may hold (a run or a shard of it lists its seeds up front).
    public static let maximumCount: UInt64 = 100_000_000

    /// The seeds `first` through `last`; `first` must not be greater than `last`, and the range
    /// must hold at most ``maximumCount`` seeds.
    public init(first: UInt64, last: UInt64) throws(ExploreError) {
        guard first <= last else { throw ExploreError("the seed range \(first)..\(last) is empty: the first seed must not be greater than the last") }
        guard last - first < Self.maximumCount else {
            throw ExploreError("the seed range \(first)..\(last) holds more than \(Self.maximumCount) seeds: split it into several runs")
        }
        self.first = first
        self.last = last
    }

    /// Reads `A..B` or `A...B` (or a single seed `A`).
    public init(parsing text: String) throws(ExploreError) {
        let parts = text.components(separatedBy: text.contains("...") ? "..." : "..")
        guard (1...2).contains(parts.count), let first = UInt64(parts[0]), let last = UInt64(parts.last ?? "") else {
            throw ExploreError("--seeds takes A..B (or A...B) with whole numbers, e.g. 1..1000 (got '\(text)')")
        }
        try self.init(first: first, last: last)
    }

    /// How many seeds the range holds.
    public var count: UInt64 { last - first + 1 }

    /// The range's seeds that belong to `shard`, ascending.
    public func seeds(in shard: Shard = .whole) -> [UInt64] {
        guard shard.count > 1 else { return Array(first...last) }
        let count = UInt64(shard.count), index = UInt64(shard.index)
        let (start, past) = first.addingReportingOverflow((index + count - first % count) % count)
        guard !past else { return [] }
        var seed = start
        var seeds: [UInt64] = []
        while seed <= last {
            seeds.append(seed)
            let (next, overflow) = seed.addingReportingOverflow(count)
            if overflow { break }
            seed = next
        }
        return seeds
    }

    /// `A..B`.
    public var description: String { "\(first)..\(last)" }
}

/// One of `count` disjoint parts of a seed range: seed `s` belongs to shard `s mod count`, so the
/// shards `0/n` ... `(n-1)/n` together hold every seed exactly once. Written `i/n`.
///
/// ```swift
/// let shard = try Shard(parsing: "2/4")   // seeds 2, 6, 10, ...
/// shard.contains(10)                        // true
/// ```
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    /// Which part (0-based).
    public let index: Int
    /// How many parts.
    public let count: Int

    /// The whole range (shard `0/1`).
    public static let whole = Shard(checkedIndex: 0, count: 1)

    private init(checkedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Part `index` of `count`; needs `0 <= index < count`.
    public init(index: Int, count: Int) throws(ExploreError) {
        guard count >= 1, (0..<count).contains(index) else {
            throw ExploreError("--shard takes i/n with 0 <= i < n, e.g. 0/4 (got \(index)/\(count))")
        }
        self.init(checkedIndex: index, count: count)
    }

    /// Reads `i/n`.
    public init(parsing text: String) throws(ExploreError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ExploreError("--shard takes i/n with 0 <= i < n, e.g. 0/4 (got '\(text)')")
        }
        try self.init(index: index, count: count)
    }

    /// Whether `seed` belongs to this shard.
    public func contains(_ seed: UInt64) -> Bool { seed % UInt64(count) == UInt64(index) }

    /// `i/n`.
    public var description: String { "\(index)/\(count)" }
}

/// Why an exploration could not run or its results could not be merged; the message says what to do.
///
/// ```
/// merge: b.jsonl: seed 7 is also in a.jsonl (shards overlap)
/// ```
public struct ExploreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
