import Foundation
import Testing
import TapedeckTestSupport

/// `tapedeck shrink` as a real process: the steps it prints, the file it writes, and that file run
/// by `tapedeck run` in another process failing the same way under any seed.
@Suite("Scenarios: the tapedeck shrink command")
struct ShrinkCommandTests {
    private let planted = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TapedeckScenariosTests/Files/shrink/reset-and-401.yaml")

    @Test("a failing seed is shrunk to a file that tapedeck run fails the same way with any --seed")
    func shrinkAndRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let output = directory.file("min.yaml")
        let original = try runTapedeck(["run", planted.path, "--seed", "2"])
        #expect(original.status == 1)
        let shrink = try runTapedeck(["shrink", planted.path, "--seed", "2", "--out", output.path])
        #expect(shrink.status == 0, "\(shrink.output)\(shrink.errors)")
        #expect(shrink.output.contains("ddmin: "), "\(shrink.output)")
        #expect(shrink.output.contains("→ 2 decisions in "), "\(shrink.output)")
        #expect(shrink.output.contains("after:  2 fault firings, 0 scheduling choices, 0 jitter draws, 0 metrics orders"), "\(shrink.output)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("--seed 2"))
        #expect(!text.contains("probability"))
        let failing = original.output.split(separator: "\n").filter { $0.hasPrefix("✗ ") }.map { $0.split(separator: ":").first! }
        for seed in ["0", "2", "77"] {
            let run = try runTapedeck(["run", output.path, "--seed", seed])
            #expect(run.status == 1, "seed \(seed): \(run.output)")
            let checks = run.output.split(separator: "\n").filter { $0.hasPrefix("✗ ") }.map { $0.split(separator: ":").first! }
            #expect(checks == failing, "seed \(seed): the same checks fail")
        }
    }

    @Test("values typed by a YAML tag keep their type in the shrunk file (Yams writes no tags): !!float '0.5' stays a number, !!str 123 text")
    func taggedValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let input = directory.file("tagged.yaml")
        try Data("""
            name: tagged
            traffic:
              stubs:
                - match: GET http://api.test/items
                  headers: {X-Build: !!str 123}
                  json: {ok: true}
            client:
              validate: true
              retry: {limit: 2, scale: !!float '0.5', base: !!int "2"}
            script:
              - request: GET http://api.test/items
            faults:
              - {name: flaky, kind: status, status: 503, attempts: 1}
            expect:
              requests:
                items: {attempts: 1}
            """.utf8).write(to: input)
        let output = directory.file("min.yaml")
        let shrink = try runTapedeck(["shrink", input.path, "--seed", "1", "--out", output.path])
        #expect(shrink.status == 0, "the written file is checked by loading and running it: \(shrink.errors)")
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written.contains("scale: 0.5") && written.contains("base: 2") && written.contains(#"X-Build: "123""#), "\(written)")
        #expect(try runTapedeck(["run", output.path]).status == 1)
    }

    @Test("a passing seed exits 4 with a message and writes nothing")
    func passingSeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let output = directory.file("none.yaml")
        let run = try runTapedeck(["shrink", planted.path, "--seed", "3", "--out", output.path])
        #expect(run.status == 4)
        #expect(run.errors.contains("passes: there is no failure to shrink"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("--out a named pipe (as /dev/null or /dev/stdout are: no regular file) is refused up front, and the pipe is never removed")
    func outputNotAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let pipe = directory.file("pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let shrink = try runTapedeck(["shrink", planted.path, "--seed", "2", "--out", pipe.path])
        #expect(shrink.status == 64 && shrink.errors.contains("is not a regular file"), "\(shrink.errors)")
        var kind = stat()
        #expect(lstat(pipe.path, &kind) == 0 && kind.st_mode & S_IFMT == S_IFIFO, "the pipe is still there")
    }

    @Test("a missing file exits 2")
    func badInput() throws {
        let run = try runTapedeck(["shrink", "/nonexistent/file.yaml", "--seed", "1"])
        #expect(run.status == 2)
        #expect(run.errors.contains("no such file"))
    }

    @Test("--out in a directory that does not exist fails at once (exit 3), before any search step")
    func unwritableOutFailsFirst() throws {
        let run = try runTapedeck(["shrink", planted.path, "--seed", "2", "--out", "/nonexistent/dir/min.yaml"])
        #expect(run.status == 3)
        #expect(run.errors.contains("cannot write it: the directory /nonexistent/dir does not exist"), "\(run.errors)")
        #expect(!run.output.contains("ddmin"), "the search ran first: \(run.output)")
    }

    @Test("run from the output's directory, the reproduction line names the file as the user would type it")
    func relativeRunLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let run = try runTapedeck(["shrink", planted.path, "--seed", "2", "--out", "min.yaml"], in: directory.url)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("\nrun it: tapedeck run min.yaml\n"), "\(run.output)")
    }

    @Test("a seed up to 2^64 - 1 is a seed in a file as on the command line (a shrunk file of any seed loads); one past it is refused, exit 2")
    func largestSeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = try String(contentsOf: planted, encoding: .utf8)
        let largest = directory.file("largest.yaml"), past = directory.file("past.yaml")
        try Data(text.replacingOccurrences(of: "\nseed: 1\n", with: "\nseed: 18446744073709551615\n").utf8).write(to: largest)
        try Data(text.replacingOccurrences(of: "\nseed: 1\n", with: "\nseed: 18446744073709551616\n").utf8).write(to: past)
        let run = try runTapedeck(["run", largest.path, "--format", "json"])
        #expect([0, 1].contains(run.status), "\(run.errors)")
        #expect(run.output.contains("18446744073709551615"), "\(run.output)")
        let refused = try runTapedeck(["run", past.path])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("use a whole number from 0 to 18446744073709551615"), "\(refused.errors)")
    }
}
