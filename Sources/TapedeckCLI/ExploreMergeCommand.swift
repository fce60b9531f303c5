import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckScenarios

/// `tapedeck explore merge A.jsonl B.jsonl ...`: the summary of several explore runs together.
struct ExploreMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the JSON lines of sharded explore runs into the summary one run would print.",
        discussion: """
        The inputs must hold records of one scenario file, format version 1, and no seed twice; an \
        empty input is refused (a shard that did not run), while the one line a shard with no seeds \
        writes counts as a shard that ran. With --seeds, every seed of the range must \
        be in an input and no other; without it, seeds missing between the lowest and the highest \
        are named in a warning.
        Exit status: 0 every seed passed; 1 a seed failed; 2 bad input (unreadable, empty, malformed, \
        mismatched or overlapping inputs, or seeds missing from --seeds); 64 bad usage.
        """
    )

    @Argument(help: "JSON-lines files written by 'tapedeck explore --out' (or its --format jsonl output).")
    var files: [String]

    @Option(help: "Write the merged JSON lines (in seed order) to this file.")
    var out: String?

    @Option(parsing: .unconditional, help: "The range the shards together must cover, A..B or A...B (e.g. the --seeds the shards ran).")
    var seeds: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one JSON-lines file") }
        if let seeds {
            do { _ = try SeedRange(parsing: seeds) } catch { throw ValidationError(error.message) }
        }
    }

    func run() throws {
        var inputs: [(name: String, text: String)] = []
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else {
                printError("tapedeck: merge: cannot read \(path)")
                throw ExitStatus.badInput
            }
            inputs.append((path, String(decoding: data, as: UTF8.self)))
        }
        let records: [SeedRecord]
        do {
            records = try ExploreMerge.records(from: inputs)
        } catch {
            printError("tapedeck: \(error)")
            throw ExitStatus.badInput
        }
        if let seeds, let range = try? SeedRange(parsing: seeds) {
            let (missing, outside, firstMissing) = ExploreMerge.coverage(of: records, in: range)
            if missing > 0 || !outside.isEmpty {
                var problems: [String] = []
                if missing > 0 {
                    problems.append("\(missing == 1 ? "1 seed" : "\(missing) seeds") of \(seeds) \(missing == 1 ? "is" : "are") in no input (first: \(firstMissing.map(String.init).joined(separator: ", ")))")
                }
                if !outside.isEmpty {
                    problems.append("\(outside.count == 1 ? "1 seed is" : "\(outside.count) seeds are") outside \(seeds) (first: \(outside.prefix(5).map(String.init).joined(separator: ", ")))")
                }
                printError("tapedeck: merge: " + problems.joined(separator: "; ") + "; give every shard's file")
                throw ExitStatus.badInput
            }
        } else if let low = records.first?.seed, let high = records.last?.seed, high - low >= UInt64(records.count) {
            // high − low + 1 overflows for seeds 0 and 2⁶⁴ − 1: counted without the + 1.
            let missing = high - low - UInt64(records.count - 1)
            printError("tapedeck: warning: merge: \(missing == 1 ? "1 seed" : "\(missing) seeds") between \(low) and \(high) \(missing == 1 ? "is" : "are") in no input "
                       + "(a shard left out? --seeds \(low)..\(high) makes this an error)")
        }
        if let out {
            do {
                let lines = try records.map { try $0.jsonLine() + "\n" }.joined()
                try CassetteFile.atomicWrite(Data(lines.utf8), to: URL(fileURLWithPath: out))
            } catch {
                printError("tapedeck: cannot write \(out): \(describeWriteError(error, path: out))")
                throw ExitStatus.otherFailure
            }
        }
        var summary = ExploreSummary(records)
        if summary.scenario.isEmpty { summary.scenario = ExploreMerge.scenario(of: inputs) ?? "" }
        print(summary.render(allFailing: out.map { "all are in \($0)" } ?? "all are in the merged files; --out FILE writes them in seed order"))
        if summary.failed > 0 { throw ExitStatus.found }
    }
}
