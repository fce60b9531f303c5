import ArgumentParser
import Foundation
import TapedeckScenarios

/// `tapedeck explore merge A.jsonl B.jsonl ...`: the summary of several explore runs together.
struct ExploreMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the JSON lines of sharded explore runs into the summary one run would print.",
        discussion: """
        The inputs must hold records of one scenario file, format version 1, and no seed twice.
        Exit status: 0 every seed passed; 1 a seed failed; 2 bad input (unreadable, malformed, \
        mismatched or overlapping inputs); 64 bad usage.
        """
    )

    @Argument(help: "JSON-lines files written by 'tapedeck explore --out' (or its --format jsonl output).")
    var files: [String]

    @Option(help: "Write the merged JSON lines (in seed order) to this file.")
    var out: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one JSON-lines file") }
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
        if let out {
            do {
                let lines = try records.map { try $0.jsonLine() + "\n" }.joined()
                try Data(lines.utf8).write(to: URL(fileURLWithPath: out))
            } catch {
                printError("tapedeck: cannot write \(out): \(error.localizedDescription)")
                throw ExitStatus.otherFailure
            }
        }
        let summary = ExploreSummary(records)
        print(summary.render())
        if summary.failed > 0 { throw ExitStatus.found }
    }
}
