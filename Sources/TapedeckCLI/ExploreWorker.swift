import ArgumentParser
import Foundation
import TapedeckScenarios

/// `tapedeck explore worker FILE` (hidden): the worker process of `explore --workers processes`.
/// Reads one seed per line on standard input and answers each with its JSON line on standard output.
struct ExploreWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run seeds read from standard input; write one JSON line each (used by explore --workers processes).",
        shouldDisplay: false
    )

    @Argument(help: "The scenario file.")
    var file: String

    @Option(help: "Which of the CPUs this process may use to run on (modulo their count).")
    var cpu: Int?

    func run() throws {
        // A parent that went away (Ctrl-C, a crash) closes the pipe: the write below then fails
        // with EPIPE and the worker ends quietly, instead of dying of SIGPIPE or a trap.
        signal(SIGPIPE, SIG_IGN)
        // Ctrl-C is the parent's to handle (it lets the seed under way finish, then closes this
        // worker's input); a worker sharing the terminal's process group must not die of it.
        signal(SIGINT, SIG_IGN)
        let scenario = try loadScenario(file)
        CPUPinning.pinProcess(toCPUAt: cpu)
        let worker = InProcessSeedWorker(scenario: scenario)
        while let line = readLine() {
            guard let seed = UInt64(line.trimmingCharacters(in: .whitespaces)) else {
                printError("tapedeck: explore worker: not a seed: '\(line)'")
                throw ExitStatus.badInput
            }
            let answer: Data
            do {
                answer = Data((try worker.run(seed: seed).jsonLine() + "\n").utf8)
            } catch {
                printError("tapedeck: \(error)")
                throw ExitStatus.badInput
            }
            guard (try? FileHandle.standardOutput.write(contentsOf: answer)) != nil else { return }
        }
    }
}

/// The parent's side of one worker process: sends it a seed, reads back the seed's JSON line.
final class ProcessSeedWorker: SeedWorker {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    /// `cpu`: the worker's index, so that each worker process keeps to a CPU of its own.
    init(file: String, cpu: Int) throws {
        process.executableURL = currentExecutable()
        process.arguments = ["explore", "worker", file, "--cpu", String(cpu)]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    func run(seed: UInt64) throws -> SeedRecord {
        try input.fileHandleForWriting.write(contentsOf: Data("\(seed)\n".utf8))
        guard let line = readLine() else {
            process.waitUntilExit()
            throw WorkerGone(status: process.terminationStatus)
        }
        return try SeedRecord(jsonLine: line)
    }

    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            // availableData returns what one read gives (read(upToCount:) waits for the whole count).
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }

    /// A worker process ended before answering.
    struct WorkerGone: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "a worker process ended with status \(status) before answering" }
    }
}
