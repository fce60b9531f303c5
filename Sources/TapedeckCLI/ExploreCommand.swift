import ArgumentParser
import Foundation
import TapedeckCassettes
import Synchronization
import TapedeckScenarios

/// `tapedeck explore`: runs a scenario over a range of seeds (`explore FILE --seeds A..B`) and
/// merges the JSON lines of several such runs (`explore merge`).
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Run a scenario over many seeds in parallel workers, or merge the results of sharded runs.",
        subcommands: [ExploreSeedsCommand.self, ExploreMergeCommand.self, ExploreWorkerCommand.self],
        defaultSubcommand: ExploreSeedsCommand.self
    )
}

/// `tapedeck explore FILE --seeds A..B`: the seeds of a range (or of one shard of it) over N workers.
struct ExploreSeedsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seeds",
        abstract: "Run every seed of a range (or of one shard of it) and summarise what failed.",
        discussion: """
        Writes one JSON line per seed (format version 1, see docs/explore.md) to --out and, with \
        --format jsonl, to standard output; prints a summary (seeds, failures, distinct trace hashes, \
        fault sites, slowest seeds, failing seeds with reproduction lines). Progress goes to standard \
        error: a bar on a terminal, a plain line every few seconds otherwise.
        Ctrl-C stops handing out seeds: the seeds under way finish, and the summary covers those run \
        (their JSON lines are kept); a second Ctrl-C quits at once.
        Exit status: 0 every seed passed; 1 a seed failed; 2 bad input (the scenario or its cassette); \
        64 bad usage; 3 any other failure; 130 interrupted (no seed failed before).
        """
    )

    @Argument(help: "The scenario file (YAML or JSON).")
    var file: String

    @Option(parsing: .unconditional, help: "The seeds, A..B inclusive (e.g. 1..10000; A...B too).")
    var seeds: String

    // Optional, so that the help names the default once, in words (it differs between machines).
    @Option(name: .customLong("jobs"), parsing: .unconditional,
            help: ArgumentHelp("Parallel workers (default: the number of cores).", valueName: "jobs"))
    var jobsOption: Int?

    /// `--jobs`, or the number of cores.
    var jobs: Int { jobsOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(help: "Run only shard i of n: the seeds s with s mod n == i (e.g. 0/4).")
    var shard: String?

    @Option(help: "text (a summary) or jsonl (one JSON line per seed on standard output, the summary on standard error).")
    var format: ExploreFormat = .text

    @Option(help: "Also write the JSON lines to this file (the input of 'tapedeck explore merge').")
    var out: String?

    @Option(parsing: .unconditional, help: "Stop after this many failing seeds.")
    var stopAfter: Int?

    @Option(help: "threads (in this process) or processes (worker processes); default: threads for --jobs 1, else processes (measured faster; docs/explore.md).")
    var workers: WorkerKind?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between progress lines when standard error is not a terminal.", visibility: .hidden))
    var progressInterval: Double = 5

    func validate() throws {
        do {
            _ = try SeedRange(parsing: seeds)
            if let shard { _ = try Shard(parsing: shard) }
        } catch {
            throw ValidationError(error.message)
        }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let stopAfter, stopAfter < 1 { throw ValidationError("--stop-after must be at least 1") }
        if progressInterval < 0 { throw ValidationError("--progress-interval must not be negative") }
    }

    func run() throws {
        let scenario = try loadScenario(file)
        try refuseOverwritingInputs([("--out", out)], of: scenario)
        let runner = ScenarioRunner()
        for warning in runner.warnings(for: scenario) { printError("tapedeck: warning: " + warning) }
        let range = try SeedRange(parsing: seeds)
        let part = try shard.map { try Shard(parsing: $0) } ?? .whole
        let selected = range.seeds(in: part)
        var output = ExploreOutput(scenario: scenario.name, format: format, progress: ExploreProgress(
            total: selected.count, terminal: isatty(STDERR_FILENO) != 0, interval: progressInterval, start: monotonicSeconds()))
        if let out {
            // Checked now, written once the first line is there: bad input found when the first
            // seed runs (a missing cassette) leaves an existing file as it was.
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory)
            let directory = URL(fileURLWithPath: out).deletingLastPathComponent().path
            guard !isDirectory.boolValue,
                  exists ? FileManager.default.isWritableFile(atPath: out) : FileManager.default.isWritableFile(atPath: directory) else {
                printError("tapedeck: --out \(out): cannot write it: \(describeWriteError(CocoaError(.fileWriteNoPermission), path: out))")
                throw ExitStatus.otherFailure
            }
            output.outPath = out
        }
        if selected.isEmpty {
            // A shard whose residue class holds no seed of the range: its lines say it ran, so that
            // merge tells it from a shard that did not (an empty file).
            do {
                try output.emitEmptyShard(EmptyShardRecord(scenario: scenario, seeds: range, shard: part))
            } catch {
                output.abandon()
                // Opening --out says which file and why itself; a failed write is named here.
                printError("tapedeck: " + ((error as? ExploreOutput.OutFileError)?.description
                                            ?? "--out \(out ?? "-"): cannot write it: \(error.localizedDescription)"))
                throw ExitStatus.otherFailure
            }
        }
        let kind = workers ?? (jobs > 1 ? .processes : .threads)
        // A damaged or missing cassette is said once here, not once by every worker (a shard
        // with no seed reads no cassette, and passes as before).
        do {
            if !selected.isEmpty { try runner.checkCassette(for: scenario) }
        } catch {
            output.abandon()
            printProblem(error)
            throw ExitStatus.badInput
        }
        // A worker process that dies must not take this one with it when a seed is written to it.
        if kind == .processes { signal(SIGPIPE, SIG_IGN) }
        // One CPU per sequential simulation: the in-process worker when it is alone, each worker
        // process its own (several threads in this process share it, so it is not pinned then).
        if kind == .threads && jobs == 1 { CPUPinning.pinProcess() }
        let firstCPU = CPUPinning.currentCPUIndex() ?? 0   // workers count on from this process's CPU
        let explorer = Explorer(jobs: jobs, stopAfter: stopAfter)
        let file = file
        let stop = ExploreStop()
        let interrupts = InterruptWatch {
            printError("\ntapedeck: interrupted: finishing the seeds under way (Ctrl-C again to quit now)")
            stop.request()
        }
        defer { interrupts.cancel() }
        let result: Explorer.Result
        do {
            result = try explorer.explore(seeds: selected, stop: stop, makeWorker: { index in
                switch kind {
                case .threads: InProcessSeedWorker(scenario: scenario)
                case .processes: try ProcessSeedWorker(file: file, cpu: firstCPU + index)
                }
            }, emit: { try output.emit($0) })
        } catch let error as ScenarioError {
            output.abandon()
            printProblem(error)
            throw ExitStatus.badInput
        } catch let gone as ProcessSeedWorker.WorkerGone where gone.status == 2 {
            output.abandon()   // the worker has said why (bad input) on standard error
            throw ExitStatus.badInput
        } catch {
            output.abandon()
            printError("tapedeck: \(error)")
            throw ExitStatus.otherFailure
        }
        output.finish(stoppedEarly: result.stoppedEarly ? stopAfter : nil, interruptedOf: result.interrupted ? selected.count : nil)
        if output.failed > 0 { throw ExitStatus.found }
        if result.interrupted { throw ExitCode(130) }
    }
}

/// How `explore` prints.
enum ExploreFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case jsonl
}

/// Where `explore` runs its seeds.
enum WorkerKind: String, ExpressibleByArgument, CaseIterable {
    case threads
    case processes
}

/// Seconds of monotonic time (for the progress line only; never on the simulated path).
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// What `explore` writes as records arrive: JSON lines, progress, and the summary at the end.
struct ExploreOutput {
    /// The scenario's name (the summary's first word, also when no seed ran).
    let scenario: String
    let format: ExploreFormat
    var progress: ExploreProgress
    /// `--out`: created (or emptied) when the first line is written.
    var outPath: String?
    private var file: CassetteFile.Output?
    private(set) var records: [SeedRecord] = []
    private(set) var failed = 0
    private var emptyShard: EmptyShardRecord?

    init(scenario: String, format: ExploreFormat, progress: ExploreProgress) {
        self.scenario = scenario
        self.format = format
        self.progress = progress
    }

    /// Writes the line of a shard that holds no seed where seed lines go.
    mutating func emitEmptyShard(_ record: EmptyShardRecord) throws {
        emptyShard = record
        let line = Data((try record.jsonLine() + "\n").utf8)
        if format == .jsonl { try? FileHandle.standardOutput.write(contentsOf: line) }
        try writeToOut(line)
    }

    mutating func emit(_ record: SeedRecord) throws {
        records.append(record)
        if !record.passed { failed += 1 }
        let line = Data((try record.jsonLine() + "\n").utf8)
        if format == .jsonl { try? FileHandle.standardOutput.write(contentsOf: line) }
        try writeToOut(line)
        if let text = progress.update(done: records.count, failed: failed, now: monotonicSeconds()) {
            try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
        }
    }

    /// Writes `line` to `--out`, opening it (emptied) for the first line: a file is created
    /// (through a link, the file it names), a device or standard output written into.
    private mutating func writeToOut(_ line: Data) throws {
        if file == nil, let outPath {
            do {
                file = try CassetteFile.Output(path: outPath)
            } catch {
                throw OutFileError(path: outPath, reason: nil)
            }
        }
        do {
            try file?.write(line)
        } catch {
            throw OutFileError(path: outPath ?? "-", reason: error.reason)
        }
    }

    /// `--out` could not be opened or written.
    struct OutFileError: Error, CustomStringConvertible {
        let path: String
        /// Why a write failed (nil: it could not be opened; the reason is looked for).
        let reason: String?
        var description: String {
            "--out \(path): cannot write it: \(reason ?? describeWriteError(CocoaError(.fileWriteUnknown), path: path))"
        }
    }

    /// Ends the progress bar after an error, so the error starts on a line of its own.
    mutating func abandon() {
        if progress.terminal { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        file?.close()
    }

    mutating func finish(stoppedEarly stopAfter: Int?, interruptedOf total: Int? = nil) {
        try? FileHandle.standardError.write(contentsOf: Data(progress.finish(done: records.count, failed: failed, now: monotonicSeconds()).utf8))
        file?.close()
        var totals = ExploreSummary(records)
        if totals.scenario.isEmpty { totals.scenario = scenario }
        var summary = totals.render(allFailing: outPath.map { "all are in \($0)" }
            ?? (format == .jsonl ? "all are in the JSON lines on standard output" : "--out FILE keeps every seed's line"),
                                    partial: total != nil)
        if let emptyShard {
            summary += "\nshard \(emptyShard.emptyShard) of \(emptyShard.seeds) holds no seed; its JSON lines say so, and merge counts it as run"
        }
        if let stopAfter { summary += "\nstopped after \(stopAfter) failing seed\(stopAfter == 1 ? "" : "s") (--stop-after)" }
        if let total { summary += "\ninterrupted: \(records.count) of \(total) seeds ran (Ctrl-C); the rest did not" }
        if format == .jsonl {
            printError(summary)
        } else {
            print(summary)
        }
    }
}

/// Ctrl-C for a long command: the first one calls `first` (the command winds down and reports what
/// it did), a second one quits at once with status 130.
final class InterruptWatch: @unchecked Sendable {
    // @unchecked Sendable: `source` is set once in init and only cancelled after.
    private let source: any DispatchSourceSignal
    private final class Presses: Sendable {
        let count = Atomic<Int>(0)
    }

    init(_ first: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let presses = Presses()
        source.setEventHandler {
            if presses.count.add(1, ordering: .relaxed).newValue == 1 { first() } else { exit(130) }
        }
        source.resume()
    }

    /// Stops watching; Ctrl-C ends the process again.
    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
