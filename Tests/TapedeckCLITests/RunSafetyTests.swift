import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

/// `tapedeck run` keeps what the user has: `--record` never goes to a script's own hosts, a failed
/// re-recording says what it did to the cassette, a file that cannot be written is named with its
/// option after the run's results, and a bad `--seed` is a usage error that says why.
@Suite("Scenarios: recording safely, and the run's files and options")
struct RunSafetyTests {
    private let cassette = fixturesDirectory.appendingPathComponent("cassettes/api.har.gz")
    private let planted = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TapedeckScenariosTests/Files/shrink/reset-and-401.yaml")

    /// A scenario file in `directory` over a copy of the api cassette, with `upstream` if given.
    private func scenario(in directory: TemporaryDirectory, upstream: String?) throws -> URL {
        try FileManager.default.copyItem(at: cassette, to: directory.file("api.har.gz"))
        let file = directory.file("record.yaml")
        try Data("""
            traffic:
              cassette: api.har.gz
            \(upstream.map { "  upstream: \($0)" } ?? "")
            script:
              - request: GET http://api.shop.test/api/items
            expect:
              requests:
                items: {status: 200}
            """.utf8).write(to: file)
        return file
    }

    @Test("--record without traffic.upstream is refused as bad input at the file's traffic line, and the cassette is left as it was")
    func recordWithoutUpstream() throws {
        // Given a scenario over a cassette, with no upstream to record from
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try scenario(in: directory, upstream: nil)
        let before = try Data(contentsOf: directory.file("api.har.gz"))
        // When it is run with --record all
        let run = try runTapedeck(["run", file.path, "--record", "all"])
        // Then it exits 2 naming the file, line and key, says to add traffic.upstream, and nothing is recorded
        #expect(run.status == 2, "\(run.output)\(run.errors)")
        #expect(run.errors.hasPrefix("tapedeck: \(file.path):2:3: traffic: --record all needs traffic.upstream: the server to record from — add 'upstream: "),
                "\(run.errors)")
        #expect(run.output.isEmpty)
        #expect(try Data(contentsOf: directory.file("api.har.gz")) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("api.har.gz.journal").path))
    }

    @Test("--record on a file with neither an upstream nor a cassette names both missing pieces at once")
    func recordNamesEverythingMissing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("stubs.yaml")
        try Data("""
            traffic:
              stubs: [{url: http://api.test/a, json: {ok: true}}]
            script:
              - request: GET http://api.test/a
            """.utf8).write(to: file)
        let run = try runTapedeck(["run", file.path, "--record", "once"])
        #expect(run.status == 2, "\(run.output)\(run.errors)")
        #expect(run.errors.contains("needs traffic.upstream: the server to record from, and traffic.cassette: where to record"), "\(run.errors)")
        #expect(run.errors.contains("add 'cassette: NAME.har.gz' under traffic"), "\(run.errors)")
    }

    @Test("a cassette path through a missing directory and back (missing/../x.har) is checked where it leads")
    func recordThroughDotDot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // The parent of `missing/..` is itself: the walk up to an existing directory must end
        try CassetteRecorder.checkWritable(URL(fileURLWithPath: directory.url.path + "/missing/../x.har"), creatingDirectories: true)
        try CassetteRecorder.checkWritable(URL(fileURLWithPath: directory.url.path + "/a/b/../../c/x.har"), creatingDirectories: true)
        try CassetteRecorder.checkWritable(URL(fileURLWithPath: directory.url.path + "/missing/../x.har"))
        #expect(throws: CassetteError.self, "a directory that is really missing") {
            try CassetteRecorder.checkWritable(URL(fileURLWithPath: directory.url.path + "/missing/x.har"))
        }
    }

    @Test("--record where no journal can be written (a file in the way) is refused before any request goes upstream (exit 2, the key's line)")
    func recordWhereNothingCanBeWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try Data("a file".utf8).write(to: directory.file("plain"))
        let file = directory.file("nowhere.yaml")
        try Data("""
            traffic:
              cassette: plain/api.har.gz
              upstream: http://127.0.0.1:\(try closedPort())
            script:
              - request: GET http://api.shop.test/api/items
            """.utf8).write(to: file)
        let run = try runTapedeck(["run", file.path, "--record", "once"])
        #expect(run.status == 2, "\(run.output)\(run.errors)")
        #expect(run.errors.contains("\(file.path):2:13: traffic.cassette: cannot record: ") && run.errors.contains("/plain is a file, not a directory"), "\(run.errors)")
        #expect(run.output.isEmpty, "nothing ran: \(run.output)")
    }

    @Test("a failed --record all keeps the old entries first, adds the new ones after them, and says so and how to drop them")
    func failedRecordAll() throws {
        // Given a scenario whose upstream refuses connections (so the re-recording fails)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try scenario(in: directory, upstream: "http://127.0.0.1:\(try closedPort())")
        let old = try CassetteFile.read(directory.file("api.har.gz")).interactions
        // When it is run with --record all
        let run = try runTapedeck(["run", file.path, "--record", "all"])
        // Then the run fails, the cassette keeps its entries first and the refused request after them
        #expect(run.status == 1, "\(run.output)\(run.errors)")
        let now = try CassetteFile.read(directory.file("api.har.gz")).interactions
        #expect(now.count == old.count + 1)
        #expect(Array(now.prefix(old.count)) == old, "the old entries come first, unchanged")
        #expect(now.last?.response == nil, "the new entry is the recorded refusal")
        // And the output says what happened to the cassette and how to undo it
        #expect(run.output.contains("cassette \(directory.file("api.har.gz").path) (--record all): the run failed, so the cassette was not replaced. "
                                    + "Its \(old.count) entries are kept, and the new entry (1 recorded transport failure, which replays as a failure) "
                                    + "was added after them (entry \(old.count))."), "\(run.output)")
        // Numbered as `cassette inspect` numbers it (from 0).
        let inspect = try runTapedeck(["cassette", "inspect", directory.file("api.har.gz").path])
        let last = try #require(inspect.output.split(separator: "\n").last)
        #expect(last.split(separator: " ").first == "\(old.count)", "\(inspect.output)")
        #expect(run.output.contains("To drop them, restore the file (e.g. git checkout -- "), "\(run.output)")
    }

    @Test("an output file that cannot be written is named with its option, after the run's results; the other files are written")
    func unwritableOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let first = fixturesDirectory.appendingPathComponent("../docs/examples/scenarios/first.yaml").standardizedFileURL
        let svg = directory.file("timeline.svg")
        let run = try runTapedeck(["run", first.path, "--report", "/nonexistent/r.html", "--timeline", svg.path])
        #expect(run.status == 3)
        #expect(run.output.contains("first — seed 1: passed"), "the results are printed: \(run.output)")
        #expect(run.errors == "tapedeck: --report /nonexistent/r.html: cannot write it: the directory /nonexistent does not exist\n")
        #expect(FileManager.default.fileExists(atPath: svg.path))
        // With both streams in one file (`2>&1 | less`), the results still come first: stdout,
        // buffered there, is flushed before the error is written.
        let combined = directory.file("combined.txt")
        _ = FileManager.default.createFile(atPath: combined.path, contents: nil)
        let handle = try FileHandle(forWritingTo: combined)
        let process = Process()
        process.executableURL = try tapedeckExecutable()
        process.arguments = ["run", first.path, "--report", "/nonexistent/r.html"]
        process.standardOutput = handle
        process.standardError = handle
        try launch(process)
        process.waitUntilExit()
        try handle.close()
        let text = try String(contentsOf: combined, encoding: .utf8)
        let results = try #require(text.range(of: "trace hash:"), "\(text)")
        let error = try #require(text.range(of: "cannot write it"), "\(text)")
        #expect(results.lowerBound < error.lowerBound, "\(text)")
        let shrink = try runTapedeck(["shrink", planted.path, "--seed", "2", "--out", "/nonexistent/x.yaml"])
        #expect(shrink.status == 3)
        #expect(shrink.errors == "tapedeck: --out /nonexistent/x.yaml: cannot write it: the directory /nonexistent does not exist\n")
    }

    @Test("an output option that names the scenario, its cassette or a body file — by another path or a link — is refused (64) and the file is left as it was")
    func outputsNeverOverwriteInputs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try scenario(in: directory, upstream: nil)
        let body = directory.file("body.txt")
        try Data("a body".utf8).write(to: body)
        try FileManager.default.createSymbolicLink(at: directory.file("link.yaml"), withDestinationURL: file)
        let text = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "  cassette: api.har.gz", with: "  cassette: api.har.gz\n  stubs: [{url: http://other.test/a, bodyFile: body.txt}]")
        try Data(text.utf8).write(to: file)
        let before = try [file, directory.file("api.har.gz"), body].map { try Data(contentsOf: $0) }
        let attempts: [([String], String)] = [
            (["run", file.path, "--timeline", directory.file("link.yaml").path], "the scenario file itself"),
            (["run", file.path, "--report", directory.url.appendingPathComponent("./api.har.gz").path], "a file the scenario reads"),
            (["run", file.path, "--trace", body.path], "a file the scenario reads"),
            (["explore", "seeds", file.path, "--seeds", "1..2", "--out", file.path], "the scenario file itself"),
            (["shrink", file.path, "--out", file.path], "the scenario file itself"),
        ]
        for (arguments, what) in attempts {
            let run = try runTapedeck(arguments)
            #expect(run.status == 64, "\(arguments): \(run.errors)")
            #expect(run.errors.contains(what) && run.errors.contains("give the output another name"), "\(arguments): \(run.errors)")
        }
        #expect(try [file, directory.file("api.har.gz"), body].map { try Data(contentsOf: $0) } == before, "nothing was written over")
        // What is no regular file is no input to lose: a body from /dev/null, a trace to it.
        let devices = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "bodyFile: body.txt", with: "bodyFile: /dev/null")
        try Data(devices.utf8).write(to: file)
        let run = try runTapedeck(["run", file.path, "--trace", "/dev/null"])
        #expect(run.status == 0, "\(run.errors)")
    }

    @Test("shrink --max-runs counts every run: the recording, the search, the verification and the check of the written file")
    func shrinkRunBudget() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let run = try runTapedeck(["shrink", planted.path, "--seed", "2", "--max-runs", "5", "--out", directory.file("min.yaml").path])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        let summary = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("shrunk ") })
        #expect(summary.contains(" decisions in 5 runs ") && summary.contains("out of runs, not minimal"), "\(summary)")
        #expect(try runTapedeck(["shrink", planted.path, "--max-runs", "3"]).status == 64)
    }

    @Test("the shrunk file's first line names the command as it was typed here: the scenario's path relative to the working directory")
    func shrunkCommentPath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try Data(contentsOf: planted).write(to: directory.file("p.yaml"))
        let run = try runTapedeck(["shrink", "p.yaml", "--seed", "2", "--out", "min.yaml"], in: directory.url)
        #expect(run.status == 0, "\(run.errors)")
        let written = try String(contentsOf: directory.file("min.yaml"), encoding: .utf8)
        #expect(written.hasPrefix("# Written by `tapedeck shrink p.yaml --seed 2`."), "\(written.prefix(200))")
    }

    @Test("a negative --seed is a usage error that says what a seed is")
    func negativeSeed() throws {
        let first = fixturesDirectory.appendingPathComponent("../docs/examples/scenarios/first.yaml").standardizedFileURL
        for command in ["run", "shrink", "check-determinism"] {
            let run = try runTapedeck([command, first.path, "--seed", "-3"])
            #expect(run.status == 64, "\(command)")
            #expect(run.errors.contains("The value '-3' is invalid for '--seed <seed>': a seed is a whole number from 0"), "\(command): \(run.errors)")
        }
    }

    @Test("--report, --trace and explore --out through a link to standard output write into the file the shell redirected it to, after what it held; nothing is renamed over it")
    func outputsThroughStandardOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let link = directory.file("stdout")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/proc/self/fd/1")
        /// Runs tapedeck with standard output appended to a log that already holds a line.
        func appending(_ arguments: [String]) throws -> (status: Int32, log: String) {
            let log = directory.file("log")
            try Data("a line already in the log\n".utf8).write(to: log)
            let handle = try FileHandle(forWritingTo: log)
            try handle.seekToEnd()
            let process = Process()
            process.executableURL = try tapedeckExecutable()
            process.arguments = arguments
            process.standardOutput = handle
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try handle.close()
            return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8))
        }
        let report = try appending(["run", planted.path, "--seed", "2", "--report", link.path])
        #expect(report.status == 1)
        #expect(report.log.hasPrefix("a line already in the log\n") && report.log.contains("<html") && report.log.contains("reproduce: "),
                "the old line, the report and the outcome table: \(report.log.prefix(300))")
        let trace = try appending(["run", planted.path, "--seed", "2", "--trace", link.path])
        #expect(trace.log.hasPrefix("a line already in the log\n") && trace.log.contains("\"queue\":") && trace.log.contains("trace hash: "))
        let explore = try appending(["explore", "seeds", planted.path, "--seeds", "1..3", "--jobs", "1", "--out", link.path])
        #expect(explore.status == 1)
        #expect(explore.log.hasPrefix("a line already in the log\n") && explore.log.components(separatedBy: "\"seed\":").count == 4, "\(explore.log)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "/proc/self/fd/1", "the link stays a link")
    }
}
