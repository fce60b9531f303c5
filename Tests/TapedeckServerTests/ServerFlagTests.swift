import Foundation
import Testing
import TapedeckTestSupport

/// `serve` and `record` refusing bad numeric flags as usage errors (exit 64) that name the flag
/// the user gave, the value and the range it takes.
@Suite("Server: numeric flag messages")
struct ServerFlagTests {
    /// The message line of a usage error (ArgumentParser's `Error: …`).
    private func errorLine(_ run: ProcessRun) -> String {
        run.errors.split(separator: "\n").first { $0.hasPrefix("Error:") }.map(String.init) ?? run.errors
    }

    @Test("a negative, zero or too small number names its own flag, the value and the range, never 'Missing value' nor another flag", arguments: [
        (["--max-body-bytes", "-1"], "--max-body-bytes takes a whole number of at least 0 (got -1)"),
        (["--max-body-bytes=-1"], "--max-body-bytes takes a whole number of at least 0 (got -1)"),
        (["--max-connections", "0"], "--max-connections takes a whole number of at least 1 (got 0)"),
        (["--max-header-bytes", "100"], "--max-header-bytes takes a whole number of at least 256 (got 100)"),
        (["--threads", "-2"], "--threads takes a whole number of at least 0 (got -2)"),
        (["--header-timeout", "0"], "--header-timeout takes seconds more than 0 and at most 86400 (got 0)"),
        (["--header-timeout", "-1.5"], "--header-timeout takes seconds more than 0 and at most 86400 (got -1.5)"),
        (["--seed", "-5"], "The value '-5' is invalid for '--seed <seed>': a seed is a whole number from 0 to 18446744073709551615"),
    ])
    func serveFlags(flags: [String], message: String) throws {
        // Given a cassette path that is never read (validation comes first).
        // When serve runs with the flag.
        let run = try runTapedeck(["serve", "/nonexistent.har"] + flags)
        // Then it is a usage error with the message about that flag.
        #expect(run.status == 64)
        #expect(errorLine(run) == "Error: " + message, "\(run.errors)")
    }

    @Test("record's --upstream-timeout 0 says 0 is out of range in words that do not contradict it")
    func recordTimeout() throws {
        let run = try runTapedeck(["record", "--upstream", "http://127.0.0.1:9", "--cassette", "/tmp/never-written.har", "--upstream-timeout", "0"])
        #expect(run.status == 64)
        #expect(errorLine(run) == "Error: --upstream-timeout takes seconds more than 0 and at most 86400 (got 0)", "\(run.errors)")
        let negative = try runTapedeck(["record", "--upstream", "http://127.0.0.1:9", "--cassette", "/tmp/never-written.har", "--upstream-timeout", "-3"])
        #expect(errorLine(negative) == "Error: --upstream-timeout takes seconds more than 0 and at most 86400 (got -3)", "\(negative.errors)")
    }
}
