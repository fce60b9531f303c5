/// Reads the JSON lines of several `tapedeck explore` runs (shards of one range, usually) and
/// checks they belong together: one format version, one scenario, no seed twice.
///
/// ```swift
/// let records = try ExploreMerge.records(from: [("a.jsonl", textA), ("b.jsonl", textB)])
/// print(ExploreSummary(records).render())
/// ```
public enum ExploreMerge {
    /// The records of every input, by seed. Throws on a malformed line (naming input and line),
    /// on records of another scenario or scenario file, on a seed found twice, on an input given
    /// twice and on an input with no record at all (an empty file is a shard that failed, not
    /// one whose seeds all passed). An input whose shard held no seed says so in an
    /// ``EmptyShardRecord`` line: it counts as run, and adds no seed.
    public static func records(from inputs: [(name: String, text: String)]) throws(ExploreError) -> [SeedRecord] {
        var bySeed: [UInt64: (record: SeedRecord, input: String)] = [:]
        var first: (scenario: String, file: String, input: String)?
        var names: Set<String> = []
        for input in inputs {
            guard names.insert(input.name).inserted else {
                throw ExploreError("merge: \(input.name) is given twice; give each shard's file once")
            }
            let before = bySeed.count
            var ranEmpty = false
            var lineNumber = 0
            for line in input.text.split(separator: "\n", omittingEmptySubsequences: false) {
                lineNumber += 1
                if line.allSatisfy(\.isWhitespace) { continue }
                let record: SeedRecord
                do {
                    if let empty = try EmptyShardRecord(jsonLine: line) {
                        try check(empty.scenario, empty.file, against: &first, input: input.name)
                        ranEmpty = true
                        continue
                    }
                    record = try SeedRecord(jsonLine: line)
                    try check(record.scenario, record.file, against: &first, input: input.name)
                } catch {
                    throw ExploreError("merge: \(input.name):\(lineNumber): \(error.message)")
                }
                if let earlier = bySeed[record.seed] {
                    let place = earlier.input == input.name ? "earlier in the same file" : "also in \(earlier.input)"
                    throw ExploreError("merge: \(input.name):\(lineNumber): seed \(record.seed) is \(place) (the inputs overlap; "
                                       + "shards of one range are disjoint)")
                }
                bySeed[record.seed] = (record, input.name)
            }
            if bySeed.count == before && !ranEmpty {
                throw ExploreError("merge: \(input.name) holds no seed records (an empty file is a shard that did not run, "
                                   + "not one whose seeds passed); run that shard again or leave the file out")
            }
        }
        return bySeed.values.map(\.record).sorted { $0.seed < $1.seed }
    }

    /// The scenario's name as the first line of the inputs that has one gives it — an empty
    /// shard's line too, so that merging shards that all held no seed names the scenario as the
    /// unsharded run does. Nil when no line is readable.
    ///
    /// ```swift
    /// ExploreMerge.scenario(of: [("empty0.jsonl", line)])   // "retry-storm"
    /// ```
    public static func scenario(of inputs: [(name: String, text: String)]) -> String? {
        for input in inputs {
            for line in input.text.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
                if let empty = try? EmptyShardRecord(jsonLine: line) { return empty.scenario }
                if let record = try? SeedRecord(jsonLine: line) { return record.scenario }
            }
        }
        return nil
    }

    /// Refuses a record of another scenario or scenario file than the first one read.
    private static func check(_ scenario: String, _ file: String, against first: inout (scenario: String, file: String, input: String)?,
                              input: String) throws(ExploreError) {
        guard let known = first else {
            first = (scenario, file, input)
            return
        }
        if scenario != known.scenario || file != known.file {
            throw ExploreError("scenario '\(scenario)' (\(file)) but \(known.input) holds '\(known.scenario)' (\(known.file)); "
                               + "merge the shards of one scenario")
        }
    }
}

extension ExploreMerge {
    /// The seeds of `range` that no record holds, and the records' seeds outside it.
    public static func coverage(of records: [SeedRecord], in range: SeedRange) -> (missing: UInt64, outside: [UInt64], firstMissing: [UInt64]) {
        let seeds = Set(records.map(\.seed))
        let outside = seeds.filter { $0 < range.first || $0 > range.last }.sorted()
        let inside = UInt64(seeds.count - outside.count)
        var firstMissing: [UInt64] = []
        var seed = range.first
        while firstMissing.count < 5, inside < range.count {
            if !seeds.contains(seed) { firstMissing.append(seed) }
            if seed == range.last { break }
            seed += 1
        }
        return (range.count - inside, outside, firstMissing)
    }
}
