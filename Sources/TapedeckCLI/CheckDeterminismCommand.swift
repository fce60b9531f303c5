import ArgumentParser
import Foundation
import TapedeckScenarios
import TapedeckScheduling

/// `tapedeck check-determinism FILE`: runs a scenario several times from one seed, in this process
/// and in a second one, and compares the traces step by step.
struct CheckDeterminismCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-determinism",
        abstract: "Run a scenario repeatedly from one seed and prove every run took the same steps.",
        discussion: """
        Runs the scenario --runs times in this process, then once more in a second tapedeck \
        process, and compares their trace hashes. On a difference it prints the first step at \
        which the runs diverged, with the steps just before it, from both runs.
        Exit status: 0 every run took the same steps; 1 they differed; 2 bad input; 64 bad usage; \
        3 any other failure (the second process could not run).
        """
    )

    @Argument(help: "The scenario file (YAML or JSON).")
    var file: String

    @Option(parsing: .unconditional, help: "The seed (default: the file's 'seed', else 1).", transform: parseSeed)
    var seed: UInt64?

    @Option(parsing: .unconditional, help: "Runs in this process (at least 2).")
    var runs: Int = 3

    @Flag(help: "Skip the run in a second process.")
    var inProcessOnly = false

    func validate() throws {
        if runs < 2 { throw ValidationError("--runs must be at least 2") }
    }

    func run() throws {
        let scenario = try loadScenario(file)
        let seed = seed ?? scenario.seed
        let runner = ScenarioRunner()
        for warning in runner.warnings(for: scenario) { printError("tapedeck: warning: " + warning) }
        var traces: [[TraceStep]] = []
        var hashes: [String] = []
        do {
            for _ in 0..<runs {
                let (outcome, trace) = try runner.runKeepingTrace(scenario, seed: seed)
                traces.append(trace)
                hashes.append(outcome.traceHash)
            }
        } catch {
            printProblem(error)
            throw ExitStatus.badInput
        }
        let reproduce = "tapedeck check-determinism \(Outcome.shellQuoted(file)) --seed \(seed)"
        if let run = (1..<runs).first(where: { hashes[$0] != hashes[0] || traces[$0] != traces[0] }) {
            report(Divergence(run: run, first: traces[0], other: traces[run]), seed: seed, where: "in this process", hashes: hashes)
            print("reproduce: \(reproduce)")
            throw ExitStatus.found
        }
        if !inProcessOnly {
            let (hash, trace) = try secondProcess(seed: seed)
            if hash != hashes[0] {
                report(Divergence(run: runs, first: traces[0], other: trace), seed: seed, where: "in a second process (run \(runs))",
                       hashes: hashes + [hash])
                print("reproduce: \(reproduce)")
                throw ExitStatus.found
            }
        }
        let count = inProcessOnly ? "\(runs) runs in this process" : "\(runs) runs in this process and 1 in a second process"
        print("deterministic: \(scenario.name), seed \(seed), \(count), \(traces[0].count) steps, trace hash \(hashes[0])")
    }

    private func report(_ divergence: Divergence, seed: UInt64, where place: String, hashes: [String]) {
        print("NOT deterministic: \(file), seed \(seed): runs differ \(place)")
        print("trace hashes: \(hashes.joined(separator: " "))")
        print(divergence)
    }

    /// Runs `tapedeck run FILE --seed N --trace TMP --format json` in a new process and reads back
    /// its trace hash and steps.
    private func secondProcess(seed: UInt64) throws -> (hash: String, trace: [TraceStep]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-determinism-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let traceFile = directory.appendingPathComponent("trace.jsonl")
            let process = Process()
            process.executableURL = currentExecutable()
            process.arguments = ["run", file, "--seed", String(seed), "--trace", traceFile.path, "--format", "json"]
            // Unpinned, as this process is: the runs compared meet whatever thread timings the system gives.
            var environment = ProcessInfo.processInfo.environment
            environment[CPUPinning.environmentVariable] = "any"
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            // 0 and 1 both mean the run happened (1: a check failed, which is not this command's business).
            guard [0, 1].contains(process.terminationStatus) else {
                printError("tapedeck: the second process ended with status \(process.terminationStatus)")
                throw ExitStatus.otherFailure
            }
            struct Summary: Decodable { let traceHash: String }
            let hash = try JSONDecoder().decode(Summary.self, from: data).traceHash
            let trace = try TraceJSONLines.parse(String(decoding: try Data(contentsOf: traceFile), as: UTF8.self))
            return (hash, trace)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError("tapedeck: cannot run the second process: \(error)")
            throw ExitStatus.otherFailure
        }
    }
}

/// This program's own executable, for the second processes it starts (a determinism check's
/// second run, explore's workers): `/proc/self/exe` on Linux, the bundle's executable elsewhere.
func currentExecutable() -> URL {
    #if os(Linux)
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
    Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    #endif
}
