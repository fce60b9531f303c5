import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckScenarios
import TapedeckScheduling

/// `tapedeck shrink FILE --seed N`: turns a failing seed into a minimal scenario file with an
/// explicit schedule that fails the same way on every run.
struct ShrinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Shrink a failing seed to a minimal, randomness-free scenario file.",
        discussion: """
        Records every decision the seed makes (fault firings, choices between ready work, jitter \
        draws, metrics orders), removes what the failure does not need (ddmin), simplifies the rest \
        (fewer bytes, shorter delays, earlier attempts), and writes a scenario with explicit faults \
        and an exact schedule. Prints each step and the sizes before and after.
        Exit status: 0 shrunk and written; 4 the seed passes (nothing to shrink); 2 bad input \
        (the scenario or its cassette); 3 replaying the decisions does not reproduce the failure; \
        64 bad usage.
        """
    )

    @Argument(help: "The scenario file (YAML or JSON).")
    var file: String

    @Option(parsing: .unconditional, help: "The failing seed (default: the file's 'seed', else 1).", transform: parseSeed)
    var seed: UInt64?

    @Option(help: "Where to write the shrunk scenario (default: FILE's name + .seed-N.shrunk.yaml, beside FILE).")
    var out: String?

    @Option(parsing: .unconditional, help: "The most scenario runs the shrink may make, every one counted: the run recording the seed's decisions, the search, the verification and the check of the written file.")
    var maxRuns: Int = 3_000

    func validate() throws {
        if maxRuns < 4 {
            throw ValidationError("--max-runs must be at least 4 (the recording run, one replay, the verification and the check of the written file)")
        }
        // The shrunk scenario is loaded back from --out to check it: a device or a pipe (/dev/null,
        // /dev/stdout) cannot be read back, and must never be removed as a bad result.
        var kind = stat()
        if let out {
            // Through links: /dev/stdout leads to what the shell redirected it to, never a file to replace.
            guard case .file(let target) = CassetteFile.outputTarget(out), stat(target, &kind) != 0 || kind.st_mode & S_IFMT == S_IFREG else {
                throw ValidationError("--out \(out) is not a regular file: the shrunk scenario is written there and read back to check it; give a file path")
            }
        }
    }

    func run() throws {
        let input = URL(fileURLWithPath: file)
        let scenario = try loadScenario(file)
        for warning in ScenarioRunner().warnings(for: scenario) { printError("tapedeck: warning: " + warning) }
        let seed = seed ?? scenario.seed
        CPUPinning.pinProcess()   // its runs are one after another: their thread hand-offs stay on one CPU
        let output = out.map { URL(fileURLWithPath: $0) }
            ?? input.deletingLastPathComponent().appendingPathComponent("\(input.deletingPathExtension().lastPathComponent).seed-\(seed).shrunk.yaml")
        try refuseOverwritingInputs([(out == nil ? "the shrunk file" : "--out", output.path)], of: scenario)
        // A place the file cannot go is found out before the search, not after it.
        let directory = output.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: directory.path) else {
            printError("tapedeck: \(out == nil ? "" : "--out ")\(output.path): cannot write it: \(describeWriteError(CocoaError(.fileWriteUnknown), path: output.path))")
            throw ExitStatus.otherFailure
        }
        let start = ContinuousClock.now
        let result: Shrinker.Result
        do {
            // One run is kept for checking the written file.
            // Each step as it happens, also into a pipe or a file (a shrink can take minutes).
            result = try Shrinker(maxRuns: maxRuns - 1).shrink(scenario, seed: seed) { step in
                print("  \(step)")
                fflush(nil)   // every stream: standard output among them
            }
        } catch {
            if case let .scenario(problem) = error { printProblem(problem) } else { printError("tapedeck: \(error)") }
            switch error {
            case .passes: throw ExitCode(4)
            case .scenario: throw ExitStatus.badInput
            case .notReproducible: throw ExitStatus.otherFailure
            }
        }
        let elapsed = ContinuousClock.now - start
        do {
            let yaml = try ShrunkScenarioWriter.yaml(result, original: input, output: output)
            try CassetteFile.atomicWrite(Data(yaml.utf8), to: output)
        } catch {
            printError("tapedeck: \(out == nil ? "" : "--out ")\(output.path): cannot write it: \(describeWriteError(error, path: output.path))")
            throw ExitStatus.otherFailure
        }
        // What was written is what users will run: load it back and check it fails the same way.
        let check: Result<FailureIdentity, any Error> = Result { FailureIdentity(try ScenarioRunner().run(try Scenario.load(output), seed: seed)) }
        guard case let .success(identity) = check, identity == result.failure else {
            let why: String
            switch check {
            case let .success(identity): why = "it fails with \(identity)"
            case let .failure(error): why = "it does not load: \(error)"
            }
            var kind = stat()
            if lstat(output.path, &kind) == 0, kind.st_mode & S_IFMT == S_IFREG { try? FileManager.default.removeItem(at: output) }
            printError("tapedeck: the written \(output.path) does not fail the same way (\(why)), so it was removed; please report this with the scenario file")
            throw ExitStatus.otherFailure
        }
        let before = result.original.decisions.count
        let after = result.shrunk.decisions.count
        print("shrunk \(scenario.name) seed \(seed): \(before) → \(after) decisions in \(result.runs + 1) runs "
              + "(\(Int(elapsed.timeInterval * 1_000)) ms)\(result.complete ? "" : " — out of runs, not minimal")")
        print("  before: \(describe(result.original))")
        print("  after:  \(describe(result.shrunk))")
        print("fails with: \(result.failure)")
        // Relative to where the command runs, when it is under it (as the user would type it).
        let here = FileManager.default.currentDirectoryPath + "/"
        let shown = output.path.hasPrefix(here) ? String(output.path.dropFirst(here.count)) : output.path
        print("wrote \(shown)")
        print("run it: tapedeck run \(Outcome.shellQuoted(shown))")
    }

    private func describe(_ schedule: Schedule) -> String {
        Shrinker.summary(schedule)
    }
}
