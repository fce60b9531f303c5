import Foundation
import Testing
import TapedeckTestSupport

/// `tapedeck run` and `tapedeck check-determinism` as real processes: what a user reads, the files
/// they ask for, and the exit statuses (0 pass, 1 a check failed, 2 bad input, 64 usage).
@Suite("Scenarios: the tapedeck run and check-determinism commands")
struct ScenarioCommandTests {
    private let retryStorm = fixturesDirectory.appendingPathComponent("scenarios/retry-storm.yaml")

    /// A copy of a fixture with `edit` applied, in `directory`, its cassette path made absolute.
    private func edited(_ name: String, in directory: TemporaryDirectory, _ edit: (String) -> String) throws -> URL {
        let text = try String(contentsOf: fixturesDirectory.appendingPathComponent("scenarios/\(name)"), encoding: .utf8)
        let absolute = text.replacingOccurrences(of: "../cassettes/", with: fixturesDirectory.appendingPathComponent("cassettes").path + "/")
        let file = directory.file(name)
        try Data(edit(absolute).utf8).write(to: file)
        return file
    }

    @Test("run prints the outcome table, a timeline that fits the width, the fired faults and the trace hash; the same seed prints the same")
    func runPrints() throws {
        let run = try runTapedeck(["run", retryStorm.path, "--width", "80"])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("retry-storm — seed 1: passed") == true, "\(run.output)")
        #expect(lines.contains { $0.hasPrefix("item#6") && $0.contains("200") && $0.contains(" 3 ") })
        #expect(lines.filter { $0.contains("▕") }.count == 7, "one lane per request")
        let timeline = lines.drop { !$0.contains("▕") }.prefix { !$0.isEmpty }
        #expect(timeline.count == 10, "7 lanes, the axis and the legend (under the axis, on two lines): \(timeline)")
        #expect(timeline.suffix(2).allSatisfy { $0.hasPrefix("         ") && !$0.hasPrefix("          ") },
                "the legend starts in the axis's first column: \(timeline)")
        #expect(timeline.allSatisfy { $0.count <= 80 }, "the timeline fits 80 columns: \(timeline)")
        let wide = try runTapedeck(["run", retryStorm.path, "--width", "120"]).output.split(separator: "\n").map(String.init)
        #expect(wide.filter { $0.contains("▕") }.allSatisfy { $0.count <= 120 } && wide.contains { $0.count > 100 && $0.contains("▕") },
                "and uses 120 columns when given them")
        #expect(run.output.contains("busy on item#1 attempt 2: responseHead: status 503 [Retry-After: 2]"))
        let hash = try #require(lines.last { $0.hasPrefix("trace hash: ") })
        let again = try runTapedeck(["run", retryStorm.path, "--width", "80"])
        #expect(again.output == run.output)
        let other = try runTapedeck(["run", retryStorm.path, "--seed", "2", "--width", "80"])
        #expect(other.status == 0)
        #expect(!other.output.contains(hash), "another seed schedules differently")
        // `run` keeps its threads on one CPU; left to the system (TAPEDECK_CPU=any) it prints the same.
        let spread = try runTapedeck(["run", retryStorm.path, "--width", "80"], environment: ["TAPEDECK_CPU": "any"])
        #expect(spread.output == run.output)
    }

    #if os(Linux)   // util-linux's `script` (BSD's takes other options)
    @Test("without --width the timeline takes the terminal's width (kept within 40–160 columns); to a pipe, 100")
    func terminalWidth() throws {
        /// The timeline's lanes as printed to a terminal `columns` wide (util-linux's `script` gives
        /// the process a pseudo-terminal; `stty` sets its size).
        func lanes(columns: Int) throws -> [String] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            let command = "stty cols \(columns) rows 50; exec '\(try tapedeckExecutable().path)' run '\(retryStorm.path)'"
            process.arguments = ["-qec", command, "/dev/null"]
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r", with: "")
                .split(separator: "\n").map(String.init).filter { $0.contains("▕") }
        }
        let narrow = try lanes(columns: 60)
        #expect(narrow.count == 7 && narrow.allSatisfy { $0.count <= 60 } && narrow.contains { $0.count > 50 }, "\(narrow)")
        let huge = try lanes(columns: 300)
        #expect(huge.allSatisfy { $0.count <= 160 } && huge.contains { $0.count > 140 }, "\(huge)")
        let piped = try runTapedeck(["run", retryStorm.path]).output.split(separator: "\n").filter { $0.contains("▕") }
        #expect(piped.allSatisfy { $0.count <= 100 } && piped.contains { $0.count > 90 }, "\(piped)")
    }
    #endif

    @Test("a failed expectation exits 1 and prints the check, the reason and a reproduction line that reproduces it")
    func failureReproduces() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try edited("retry-storm.yaml", in: directory) { $0.replacingOccurrences(of: "finishedBy: 4.5s", with: "finishedBy: 3s") }
        let run = try runTapedeck(["run", file.path, "--seed", "5"])
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED (6 checks)"), "\(run.output)")
        #expect(run.output.contains("✗ expectation item#1 finishedBy: expected by 3s, finished at 4.013s"), "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("reproduce: ") })
        let words = line.dropFirst("reproduce: ".count).split(separator: " ").map(String.init)
        #expect(words.prefix(2) == ["tapedeck", "run"] && words.suffix(2) == ["--seed", "5"], "\(line)")
        let replayed = try runTapedeck(Array(words.dropFirst()))
        #expect(replayed.status == 1)
        #expect(replayed.output == run.output)
    }

    @Test("a file whose name begins with '-' gets a reproduction line that names it as a file, not as an option")
    func dashedFileReproduces() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let edited = try edited("retry-storm.yaml", in: directory) { $0.replacingOccurrences(of: "finishedBy: 4.5s", with: "finishedBy: 3s") }
        try FileManager.default.moveItem(at: edited, to: directory.file("-storm.yaml"))
        let run = try runTapedeck(["run", "./-storm.yaml", "--seed", "5"], in: directory.url)
        #expect(run.status == 1, "\(run.errors)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("reproduce: ") })
        #expect(line == "reproduce: tapedeck run ./-storm.yaml --seed 5", "\(line)")
        let replayed = try runTapedeck(Array(line.dropFirst("reproduce: ".count).split(separator: " ").map(String.init).dropFirst()), in: directory.url)
        #expect(replayed.status == 1 && replayed.output == run.output)
    }

    @Test("--format json, --timeline, --report and --trace write what they say; the trace has every step")
    func artifacts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let svg = directory.file("t.svg"), html = directory.file("r.html"), trace = directory.file("t.jsonl")
        let run = try runTapedeck(["run", retryStorm.path, "--format", "json", "--timeline", svg.path, "--report", html.path, "--trace", trace.path])
        #expect(run.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(json["scenario"] as? String == "retry-storm")
        #expect((json["requests"] as? [[String: Any]])?.count == 7)
        let svgText = try String(contentsOf: svg, encoding: .utf8)
        #expect(svgText.hasPrefix("<svg") || svgText.hasPrefix("<?xml"))
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<svg"))
        #expect(!page.contains("<script src") && !page.contains("<link"), "self-contained: nothing fetched")
        let steps = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        #expect(steps.count > 100)
        #expect(steps.first?.hasPrefix(#"{"index":0,"#) == true)
    }

    @Test("bad files exit 2 with file, line and column and write nothing; bad usage exits 64")
    func badInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try edited("retry-storm.yaml", in: directory) { $0.replacingOccurrences(of: "    honourRetryAfter: true", with: "    honorRetryAfter: true") }
        let report = directory.file("r.html")
        let run = try runTapedeck(["run", file.path, "--report", report.path])
        #expect(run.status == 2)
        #expect(run.errors.contains("\(file.path):"), "\(run.errors)")
        #expect(run.errors.contains("honorRetryAfter") && run.errors.contains("honourRetryAfter"), "did you mean: \(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: report.path), "nothing is written on bad input")
        #expect(try runTapedeck(["run", directory.file("missing.yaml").path]).status == 2)
        #expect(try runTapedeck(["run", retryStorm.path, "--format", "xml"]).status == 64)
        #expect(try runTapedeck(["check-determinism", retryStorm.path, "--runs", "1"]).status == 64)
    }

    @Test("check-determinism passes on a fixture (in this process and a second one) and catches a nondeterministic run with the first divergent step")
    func checkDeterminism() throws {
        let good = try runTapedeck(["check-determinism", retryStorm.path, "--seed", "4", "--runs", "3"])
        #expect(good.status == 0, "\(good.output)\(good.errors)")
        #expect(good.output.hasPrefix("deterministic: retry-storm, seed 4, 3 runs in this process and 1 in a second process"), "\(good.output)")

        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try edited("retry-storm.yaml", in: directory) { $0 + "\n_test: {nondeterministicStub: true}\n" }
        let bad = try runTapedeck(["check-determinism", file.path, "--seed", "4"])
        #expect(bad.status == 1)
        #expect(bad.output.contains("NOT deterministic"), "\(bad.output)")
        #expect(bad.output.contains("diverged from run 0 at step"))
        #expect(bad.output.contains("  run 0:") && bad.output.contains("  run 1:"), "both sides of the divergent step")
        #expect(bad.output.contains("reproduce: tapedeck check-determinism"))
    }

    @Test("a fault that can never fire is warned of by every command that runs the file: run, check-determinism, explore and shrink")
    func warningsFromEveryCommand() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let scenario = directory.file("typo.yaml")
        try Data("""
        traffic: {stubs: [{url: http://api.test/feed, json: {}}]}
        script:
          - request: GET http://api.test/feed
        faults:
          - {kind: reset, afterBytes: 1, route: GET http://api.test/feeds}
        """.utf8).write(to: scenario)
        let commands: [[String]] = [
            ["run", scenario.path], ["check-determinism", scenario.path, "--runs", "2"],
            ["explore", scenario.path, "--seeds", "1..2", "--jobs", "1"], ["shrink", scenario.path, "--out", directory.file("out.yaml").path],
        ]
        for command in commands {
            let run = try runTapedeck(command)
            #expect(run.errors.contains("warning: \(scenario.path):5:") && run.errors.contains("matches no request"), "\(command[0]): \(run.errors)")
        }
    }

    @Test("run warns of the cassette's entries skipped at load (a miss then has its reason on screen), and a request named 'token' is a request, not a refresh lane")
    func skippedEntriesAndTokenName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let har = #"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":["#
            + #"{"request":{"method":"GET","url":"http://api.test/oauth/token"},"response":{"status":200,"content":{"text":"{}"}}},"#
            + #"{"request":{"method":"GET","url":"http://api.test/broken"},"response":{"status":"n/a","content":{}}}]}}"#
        try Data(har.utf8).write(to: directory.file("api.har"))
        let scenario = directory.file("s.yaml")
        try Data("""
        traffic: {cassette: api.har}
        script:
          - request: GET http://api.test/oauth/token
          - request: GET http://api.test/broken
        """.utf8).write(to: scenario)
        let run = try runTapedeck(["run", scenario.path])
        #expect(run.status == 0 || run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("warning: \(directory.file("api.har").path): skipped entry 1"), "\(run.errors)")
        #expect(run.output.contains("token") && !run.output.contains("token refresh"), "\(run.output)")
        // With client.auth, 'token' names the refreshes: a request named so is refused.
        try Data("""
        traffic:
          cassette: api.har
          auth: {token: POST http://api.test/login, protect: [http://api.test/me]}
        client: {auth: true}
        script:
          - request: GET http://api.test/oauth/token
        """.utf8).write(to: scenario)
        let refused = try runTapedeck(["run", scenario.path])
        #expect(refused.status == 2 && refused.errors.contains("'token' names the client's token refreshes"), "\(refused.errors)")
    }
}

