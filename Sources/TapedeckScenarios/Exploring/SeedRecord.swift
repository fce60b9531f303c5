import Foundation

/// One seed's result: one JSON line of `tapedeck explore --format jsonl` (and of `--out`), the
/// contract between exploring shards and `tapedeck explore merge`. Every line carries `"v":1`;
/// readers ignore fields they do not know, and `v` changes only when a field changes meaning or
/// goes away (docs/explore.md lists the fields).
///
/// ```swift
/// let outcome = try ScenarioRunner().run(scenario, seed: 7)
/// let line = try SeedRecord(outcome).jsonLine()
/// // {"attempts":19,"failures":[],"faultCounts":{"busy":12},...,"seed":7,"traceHash":"…","v":1,...}
/// let back = try SeedRecord(jsonLine: line)
/// ```
public struct SeedRecord: Codable, Hashable, Sendable {
    /// The format version this build writes.
    public static let currentVersion = 1

    /// The format version (1).
    public var v: Int
    /// The scenario's name.
    public var scenario: String
    /// The scenario file as given on the command line.
    public var file: String
    /// The seed.
    public var seed: UInt64
    /// True when every expectation and invariant held.
    public var passed: Bool
    /// What did not hold (empty when passed).
    public var failures: [Failure]
    /// The trace hash (sixteen hex digits).
    public var traceHash: String
    /// Virtual time the run took, in nanoseconds.
    public var virtualNanoseconds: Int64
    /// Jobs the simulation ran.
    public var jobs: Int
    /// Requests put on the network, retries included (the scripted requests' attempts).
    public var attempts: Int
    /// How often each fault site fired, by site name.
    public var faultCounts: [String: Int]
    /// Every fault that fired, in order (site, request, attempt, exchange, what, when).
    public var faults: [FiredFaultRecord]
    /// The command that reproduces this seed: `tapedeck run FILE --seed N`.
    public var reproduction: String

    /// The record of `outcome`.
    public init(_ outcome: Outcome) {
        v = Self.currentVersion
        scenario = outcome.scenario
        file = outcome.file
        seed = outcome.seed
        passed = outcome.passed
        failures = outcome.failures
        traceHash = outcome.traceHash
        virtualNanoseconds = outcome.virtualNanoseconds
        jobs = outcome.jobs
        attempts = outcome.requests.reduce(0) { $0 + $1.attempts }
        faultCounts = outcome.faults.reduce(into: [:]) { $0[$1.site, default: 0] += 1 }
        faults = outcome.faults
        reproduction = outcome.reproduction
    }

    /// Reads one line; an unknown version or a malformed line throws.
    public init(jsonLine: some StringProtocol) throws(ExploreError) {
        let data = Data(jsonLine.utf8)
        guard let version = try? JSONDecoder().decode(RecordVersion.self, from: data) else {
            throw ExploreError("not a JSON object")
        }
        guard version.v == Self.currentVersion else {
            throw ExploreError(version.v.map { "format version \($0), this tapedeck reads version \(Self.currentVersion)" }
                               ?? "no format version (\"v\"): not a tapedeck explore record")
        }
        do {
            self = try JSONDecoder().decode(SeedRecord.self, from: data)
        } catch {
            throw ExploreError("not a version \(Self.currentVersion) record: \(Self.describe(error))")
        }
        // Counts no run reaches are not a record's (and would overflow a merge's sums).
        // (Virtual time is never summed, and a run may span hours: it need only not be negative.)
        guard virtualNanoseconds >= 0 else {
            throw ExploreError("field 'virtualNanoseconds' is \(virtualNanoseconds), negative: not a record tapedeck wrote")
        }
        let counts = [("jobs", Int64(jobs)), ("attempts", Int64(attempts))]
            + faultCounts.sorted { $0.key < $1.key }.map { ("faultCounts.\($0.key)", Int64($0.value)) }
        if let (field, value) = counts.first(where: { !(0...Self.countLimit).contains($0.1) }) {
            throw ExploreError("field '\(field)' is \(value), out of range (0 to \(Self.countLimit)): not a record tapedeck wrote")
        }
    }

    /// The largest count a record may hold: 2⁴⁰, far past any run's jobs, attempts or firings.
    static let countLimit: Int64 = 1 << 40

    /// The record as one line of JSON (keys sorted, no newline).
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, _): "missing field '\(key.stringValue)'"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        default: "\(error)"
        }
    }
}

/// The one field every record version has.
private struct RecordVersion: Decodable {
    let v: Int?
}
