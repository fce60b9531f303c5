import Foundation

/// The one line a shard that holds no seed of its range writes (shard `0/4` of `1..3`: no seed
/// of 1, 2, 3 leaves 0 when divided by 4), so that its `--out` file says it ran: `tapedeck
/// explore merge` accepts it as a shard that contributes no seeds, while an empty file is still a
/// shard that did not run. A fixed CI matrix over a small range then merges cleanly.
///
/// ```swift
/// let line = try EmptyShardRecord(scenario: scenario, seeds: try SeedRange(parsing: "1..3"),
///                                 shard: try Shard(parsing: "0/4")).jsonLine()
/// // {"emptyShard":"0/4","file":"feed.yaml","scenario":"feed","seeds":"1..3","v":1}
/// ```
public struct EmptyShardRecord: Codable, Hashable, Sendable {
    /// The format version (1, as seed records).
    public var v: Int
    /// The scenario's name.
    public var scenario: String
    /// The scenario file as the run saw it (as in seed records).
    public var file: String
    /// The shard that held no seed, `i/n` (the field that tells this line from a seed record).
    public var emptyShard: String
    /// The range it was a shard of, `A..B`.
    public var seeds: String

    /// The record of running `shard` of `seeds` for `scenario`, which held no seed.
    public init(scenario: Scenario, seeds: SeedRange, shard: Shard) {
        v = SeedRecord.currentVersion
        self.scenario = scenario.name
        file = OutcomeBuilder.displayPath(scenario.source?.path ?? "")
        emptyShard = shard.description
        self.seeds = seeds.description
    }

    /// The record a line holds, or nil when the line is not one (it has no `emptyShard` field:
    /// a seed record, or not a record at all). A line that has the field but is malformed or of
    /// another version throws.
    public init?(jsonLine: some StringProtocol) throws(ExploreError) {
        let data = Data(jsonLine.utf8)
        guard let probe = try? JSONDecoder().decode(Probe.self, from: data), probe.emptyShard != nil else { return nil }
        guard probe.v == SeedRecord.currentVersion else {
            throw ExploreError(probe.v.map { "format version \($0), this tapedeck reads version \(SeedRecord.currentVersion)" }
                               ?? "no format version (\"v\"): not a tapedeck explore record")
        }
        guard let record = try? JSONDecoder().decode(Self.self, from: data) else {
            throw ExploreError("not a version \(SeedRecord.currentVersion) empty-shard record (it needs scenario, file, emptyShard and seeds)")
        }
        self = record
    }

    /// The record as one line of JSON (keys sorted, no newline).
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    private struct Probe: Decodable {
        let v: Int?
        let emptyShard: String?
    }
}
