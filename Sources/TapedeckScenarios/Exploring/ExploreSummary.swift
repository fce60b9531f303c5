import TapedeckScheduling

/// What an exploration found, computed from its seed records alone — so a single run and a merge
/// of its shards' records give equal summaries: seeds run, failures, distinct trace hashes, how
/// often each fault site fired, the slowest seeds in virtual time, and the failing seeds with the
/// lines that reproduce them.
///
/// ```swift
/// let summary = ExploreSummary(records)
/// print(summary.render())
/// if summary.failed > 0 { exit(1) }
/// ```
public struct ExploreSummary: Hashable, Sendable {
    /// A fault site's tally.
    public struct SiteTally: Hashable, Sendable {
        /// The site's name.
        public var site: String
        /// Times it fired, over all seeds.
        public var firings: Int
        /// Seeds in which it fired at least once.
        public var seeds: Int
    }

    /// The scenario's name (empty when there were no records).
    public var scenario: String
    /// Seeds run.
    public var seeds: Int
    /// The lowest and highest seed run (nil when none ran).
    public var seedBounds: ClosedRange<UInt64>?
    /// Seeds that failed.
    public var failed: Int
    /// Distinct trace hashes among the seeds.
    public var distinctHashes: Int
    /// Requests put on the network over all seeds, retries included.
    public var attempts: Int
    /// Fault sites by firings (most first, then by name).
    public var sites: [SiteTally]
    /// The slowest seeds in virtual time (up to five, slowest first, ties by seed).
    public var slowest: [SeedRecord]
    /// Every failing seed, by seed.
    public var failing: [SeedRecord]

    /// The summary of `records` (in any order).
    public init(_ records: [SeedRecord]) {
        let sorted = records.sorted { $0.seed < $1.seed }
        scenario = sorted.first?.scenario ?? ""
        seeds = sorted.count
        seedBounds = sorted.first.map { $0.seed...sorted[sorted.count - 1].seed }
        failing = sorted.filter { !$0.passed }
        failed = failing.count
        distinctHashes = Set(sorted.map(\.traceHash)).count
        // Saturating: records from a file are range-checked, but sums of many must not trap.
        attempts = sorted.reduce(0) { $0.addingReportingOverflow($1.attempts).overflow ? .max : $0 + $1.attempts }
        var tallies: [String: SiteTally] = [:]
        for record in sorted {
            for (site, count) in record.faultCounts {
                let firings = tallies[site]?.firings ?? 0
                tallies[site, default: SiteTally(site: site, firings: 0, seeds: 0)].firings =
                    firings.addingReportingOverflow(count).overflow ? .max : firings + count
                tallies[site]?.seeds += 1
            }
        }
        sites = tallies.values.sorted { ($0.firings, $1.site) > ($1.firings, $0.site) }
        slowest = Array(sorted.sorted { ($0.virtualNanoseconds, $1.seed) > ($1.virtualNanoseconds, $0.seed) }.prefix(5))
    }

    /// The summary as text; at most `failingShown` failing seeds are listed one by one, and
    /// `allFailing` says where the rest are (e.g. "all are in seeds.jsonl"), or how to keep them.
    /// With `partial` (an interrupted run: not every seed of the range ran), a run without
    /// failures says that every seed that ran passed, not every seed.
    public func render(failingShown: Int = 20, allFailing: String = "all are in the JSON lines", partial: Bool = false) -> String {
        var lines: [String] = []
        let bounds = seedBounds.map { " (seeds \($0.lowerBound)..\($0.upperBound))" } ?? ""
        lines.append("\(scenario.isEmpty ? "explore" : scenario): \(Self.count(seeds, "seed"))\(bounds), \(failed) failed, "
                     + "\(Self.count(distinctHashes, "distinct trace hash", plural: "distinct trace hashes")), \(Self.count(attempts, "attempt")) (retries included)")
        if sites.isEmpty {
            lines.append("faults fired: none")
        } else {
            lines.append("faults fired:")
            for tally in sites {
                lines.append("  \(tally.site): \(Self.count(tally.firings, "time")) in \(tally.seeds) of \(Self.count(seeds, "seed"))")
            }
        }
        if !slowest.isEmpty {
            lines.append("slowest seeds (virtual time): " + slowest.map { "\($0.seed) (\(Self.seconds($0.virtualNanoseconds)))" }.joined(separator: ", "))
        }
        if failing.isEmpty {
            lines.append(!partial ? "every seed passed" : seeds == 0 ? "no seed ran" : "every seed that ran passed")
        } else {
            lines.append("failing seeds:")
            for record in failing.prefix(failingShown) {
                let first = record.failures.first?.description ?? "failed"
                let more = record.failures.count > 1 ? " (+\(record.failures.count - 1) more)" : ""
                lines.append("  seed \(record.seed): \(first)\(more)")
                lines.append("    reproduce: \(record.reproduction)")
            }
            if failing.count > failingShown {
                lines.append("  ... and \(failing.count - failingShown) more failing seeds (\(allFailing))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `1 seed`, `2 seeds`.
    static func count(_ number: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// `4.013s`.
    static func seconds(_ nanoseconds: Int64) -> String {
        Duration.nanoseconds(nanoseconds).compactText   // as `tapedeck run` prints times
    }
}
