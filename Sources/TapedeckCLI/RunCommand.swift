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

    @Option(help: "The seed (default: the file's 'seed', else 1). 0 is plain FIFO order.")
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

    @Option(help: "Timeline width in columns.")
    var width: Int = 100

    func validate() throws {
        if let record, CassetteRecorder.Mode(parsing: record) == nil {
            throw ValidationError("--record takes once, new_episodes or all (got '\(record)')")
        }
        if width < 40 { throw ValidationError("--width must be at least 40") }
    }

    func run() throws {
        let scenario = try loadScenario(file)
        let seed = seed ?? scenario.seed
        var options = ScenarioRunner.Options()
        options.recordMode = record.flatMap(CassetteRecorder.Mode.init(parsing:))
        let runner = ScenarioRunner(options: options)
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
            printError("tapedeck: \(error)")
            throw ExitStatus.badInput
        }
        try writeArtifacts(outcome, steps: steps)
        switch format {
        case .json:
            print(try OutcomeJSON.encode(outcome))
        case .text:
            print(OutcomeText(outcome, width: width).render())
        }
        if !outcome.passed { throw ExitStatus.found }
    }

    private func writeArtifacts(_ outcome: Outcome, steps: [TraceStep]) throws {
        do {
            if let timeline { try Data(SVGTimeline(outcome.timeline).render().utf8).write(to: URL(fileURLWithPath: timeline)) }
            if let report { try Data(HTMLReport(outcome).render().utf8).write(to: URL(fileURLWithPath: report)) }
            if let trace { try Data(TraceJSONLines.render(steps).utf8).write(to: URL(fileURLWithPath: trace)) }
        } catch {
            printError("tapedeck: cannot write: \(error.localizedDescription)")
            throw ExitStatus.otherFailure
        }
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
        printError("tapedeck: \(error)")
        throw ExitStatus.badInput
    }
}
