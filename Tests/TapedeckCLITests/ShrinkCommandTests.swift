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

    @Test("a passing seed exits 4 with a message and writes nothing")
    func passingSeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let output = directory.file("none.yaml")
        let run = try runTapedeck(["shrink", planted.path, "--seed", "4", "--out", output.path])
        #expect(run.status == 4)
        #expect(run.errors.contains("passes: there is no failure to shrink"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("a missing file exits 2")
    func badInput() throws {
        let run = try runTapedeck(["shrink", "/nonexistent/file.yaml", "--seed", "1"])
        #expect(run.status == 2)
        #expect(run.errors.contains("no such file"))
    }
}
