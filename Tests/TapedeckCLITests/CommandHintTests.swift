import Foundation
import Testing
import TapedeckTestSupport

/// What the commands say about how to call them: the seed range in either notation, a default
/// named once in the help, and `--record once` over a cassette that exists.
@Suite("Commands: notation, help and hints")
struct CommandHintTests {
    private let retryStorm = fixturesDirectory.appendingPathComponent("scenarios/retry-storm.yaml")

    @Test("explore --seeds takes A...B as well as A..B, and runs the same seeds")
    func seedsInEitherNotation() throws {
        let dotted = try runTapedeck(["explore", retryStorm.path, "--seeds", "1...4", "--jobs", "1"])
        let plain = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..4", "--jobs", "1"])
        #expect(dotted.status == 0, "\(dotted.errors)")
        #expect(dotted.output == plain.output && dotted.output.contains("4 seeds (seeds 1..4)"), "\(dotted.output)")
    }

    @Test("explore's help names the default of --jobs once, in words")
    func jobsDefaultOnce() throws {
        let help = try runTapedeck(["help", "explore", "seeds"])
        let jobs = help.output.components(separatedBy: "--jobs <jobs>").last ?? ""
        let entry = String(jobs.prefix { $0 != "-" })
        #expect(entry.contains("(default: the number of cores)"), "\(help.output)")
        #expect(entry.components(separatedBy: "(default:").count == 2, "one default: \(entry)")
    }

    @Test("--record once over a cassette that exists records nothing: a request it lacks fails, and the note says to use --record new_episodes")
    func recordOnceSuggestsNewEpisodes() throws {
        // Given a cassette that exists and a request it has no entry for (the upstream is never asked)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.copyItem(at: fixturesDirectory.appendingPathComponent("cassettes/api.har.gz"), to: directory.file("api.har.gz"))
        let scenario = directory.file("once.yaml")
        try Data("""
            traffic:
              cassette: api.har.gz
              upstream: http://127.0.0.1:9
            script:
              - request: GET http://api.shop.test/api/me
              - request: GET http://api.shop.test/api/never-recorded
                name: missing
            """.utf8).write(to: scenario)
        // When it runs with --record once
        let run = try runTapedeck(["run", scenario.path, "--record", "once"])
        // Then the miss is explained, with the mode that records it
        #expect(run.output.contains("missing (transport): no route"), "\(run.output)")
        #expect(run.output.contains("the request it has no entry for (missing) found no route. To record it, run with --record new_episodes"),
                "\(run.output)")
    }
}
