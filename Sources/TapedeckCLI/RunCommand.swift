import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckScenarios
import TapedeckScheduling

/// `tapedeck run FILE`: runs a scenario from a seed and prints what happened.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario file on the virtual clock and check its expectations.",
        discussion: """
        Prints a table of the requests' outcomes, a timeline (one lane per request on the virtual \
        time axis), the failed checks with a line that reproduces them, and the trace hash.
        Exit status: 0 every check held; 1 an expectation or invariant failed; 2 bad input (the \
        scenario or its cassette); 64 bad usage; 3 any other failure.
        """
    )

    @Argument(help: "The scenario file (YAML or JSON).")
    var file: String

    @Option(parsing: .unconditional, help: "The seed (default: the file's 'seed', else 1). 0 is plain FIFO order.", transform: parseSeed)
    var seed: UInt64?

    @Option(help: "text (a table and a timeline) or json (the whole outcome).")
    var format: OutputFormat = .text

    @Option(help: "Write the timeline as an SVG file.")
    var timeline: String?

    @Option(help: "Write a self-contained HTML report (timeline, outcomes, failures).")
    var report: String?

    @Option(help: "Write every trace step as JSON lines.")
    var trace: String?

    @Option(help: "Record what the cassette lacks from the traffic's upstream: once, new_episodes or all.")
    var record: String?

    @Option(help: "Timeline width in columns (at least 40; by default the terminal's, up to 160, or 100 when the output is not a terminal).")
    var width: Int?

    func validate() throws {
        if let record, CassetteRecorder.Mode(parsing: record) == nil {
            throw ValidationError("--record takes once, new_episodes or all (got '\(record)')")
        }
        if let width, width < 40 { throw ValidationError("--width must be at least 40") }
    }

    func run() throws {
        let scenario = try loadScenario(file)
        let seed = seed ?? scenario.seed
        try refuseOverwritingInputs([("--timeline", timeline), ("--report", report), ("--trace", trace)], of: scenario)
        CPUPinning.pinProcess()   // one sequential simulation: its thread hand-offs stay on one CPU
        var options = ScenarioRunner.Options()
        options.recordMode = record.flatMap(CassetteRecorder.Mode.init(parsing:))
        let runner = ScenarioRunner(options: options)
        // As `serve` does at start: a request that misses an entry dropped at load has the reason on screen.
        for warning in runner.warnings(for: scenario) { printError("tapedeck: warning: " + warning) }
        let outcome: Outcome
        let steps: [TraceStep]
        do {
            if trace != nil {
                (outcome, steps) = try runner.runKeepingTrace(scenario, seed: seed)
            } else {
                outcome = try runner.run(scenario, seed: seed)
                steps = []
            }
        } catch {
            printProblem(error)
            throw ExitStatus.badInput
        }
        // The results first: a file that cannot be written does not hide what the run found.
        switch format {
        case .json:
            print(try OutcomeJSON.encode(outcome))
        case .text:
            print(OutcomeText(outcome, width: width ?? Self.terminalWidth() ?? 100).render())
        }
        let written = writeArtifacts(outcome, steps: steps)
        if let problem = outcome.recording?.problem {
            printError("tapedeck: \(outcome.recording?.cassette ?? "the cassette"): \(problem)")
            throw ExitStatus.otherFailure
        }
        guard written else { throw ExitStatus.otherFailure }
        if !outcome.passed { throw ExitStatus.found }
    }

    /// Writes each file asked for; one that cannot be written is reported (with its option) and
    /// the others are still written. Returns whether every one was.
    private func writeArtifacts(_ outcome: Outcome, steps: [TraceStep]) -> Bool {
        var files: [(option: String, path: String, contents: () -> String)] = []
        if let timeline { files.append(("--timeline", timeline, { SVGTimeline(outcome.timeline).render() })) }
        if let report { files.append(("--report", report, { HTMLReport(outcome).render() })) }
        if let trace { files.append(("--trace", trace, { TraceJSONLines.render(steps) })) }
        var allWritten = true
        for file in files {
            do {
                try CassetteFile.atomicWrite(Data(file.contents().utf8), to: URL(fileURLWithPath: file.path))
            } catch {
                printError("tapedeck: \(file.option) \(file.path): cannot write it: \(describeWriteError(error, path: file.path))")
                allWritten = false
            }
        }
        return allWritten
    }
}

/// How `run` prints.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

/// Loads a scenario for a command, turning its error into exit status 2.
func loadScenario(_ path: String) throws -> Scenario {
    do {
        return try Scenario.load(URL(fileURLWithPath: path))
    } catch {
        printProblem(error)
        throw ExitStatus.badInput
    }
}

/// Prints a scenario error to standard error, each of its problems on a line of its own.
func printProblem(_ error: ScenarioError) {
    for line in error.description.split(separator: "\n", omittingEmptySubsequences: false) {
        printError("tapedeck: \(line)")
    }
}

/// Reads `--seed`: a whole number from 0 (a negative one is reported as such, not as a missing value).
func parseSeed(_ text: String) throws -> UInt64 {
    guard let seed = UInt64(text) else {
        throw ValidationError("a seed is a whole number from 0 to \(UInt64.max)")
    }
    return seed
}

/// Why a file could not be written, in words: the directory is missing, permission denied, ...
func describeWriteError(_ error: any Error, path: String) -> String {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
        return "the directory \(directory) does not exist"
    }
    if !isDirectory.boolValue { return "\(directory) is not a directory" }
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return "it is a directory" }
    if !FileManager.default.isWritableFile(atPath: directory) { return "no permission to write in \(directory)" }
    if let error = error as? CassetteError { return error.reason }
    return (error as NSError).localizedFailureReason ?? error.localizedDescription
}

extension RunCommand {
    /// The width of the terminal standard output writes to, kept within 40–160 columns (a wider
    /// timeline is harder to read, not more exact); nil when it is no terminal (a pipe, a file),
    /// so what a script reads does not depend on the window it ran in.
    static func terminalWidth() -> Int? {
        guard isatty(STDOUT_FILENO) != 0 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return min(160, max(40, Int(size.ws_col)))
    }
}
