/// Reads the JSON lines of several `tapedeck explore` runs (shards of one range, usually) and
/// checks they belong together: one format version, one scenario, no seed twice.
///
/// ```swift
/// let records = try ExploreMerge.records(from: [("a.jsonl", textA), ("b.jsonl", textB)])
/// print(ExploreSummary(records).render())
/// ```
public enum ExploreMerge {
    /// The records of every input, by seed. Throws on a malformed line (naming input and line),
    /// on records of another scenario or scenario file, and on a seed found twice.
    public static func records(from inputs: [(name: String, text: String)]) throws(ExploreError) -> [SeedRecord] {
        var bySeed: [UInt64: (record: SeedRecord, input: String)] = [:]
        var first: (record: SeedRecord, input: String)?
        for input in inputs {
            var lineNumber = 0
            for line in input.text.split(separator: "\n", omittingEmptySubsequences: false) {
                lineNumber += 1
                if line.allSatisfy(\.isWhitespace) { continue }
                let record: SeedRecord
                do {
                    record = try SeedRecord(jsonLine: line)
                } catch {
                    throw ExploreError("merge: \(input.name):\(lineNumber): \(error.message)")
                }
                if let first, record.scenario != first.record.scenario || record.file != first.record.file {
                    throw ExploreError("merge: \(input.name):\(lineNumber): scenario '\(record.scenario)' (\(record.file)) but "
                                       + "\(first.input) holds '\(first.record.scenario)' (\(first.record.file)); merge the shards of one scenario")
                }
                if let earlier = bySeed[record.seed] {
                    let place = earlier.input == input.name ? "earlier in the same file" : "also in \(earlier.input)"
                    throw ExploreError("merge: \(input.name):\(lineNumber): seed \(record.seed) is \(place) (the inputs overlap; "
                                       + "shards of one range are disjoint)")
                }
                bySeed[record.seed] = (record, input.name)
                if first == nil { first = (record, input.name) }
            }
        }
        return bySeed.values.map(\.record).sorted { $0.seed < $1.seed }
    }
}
