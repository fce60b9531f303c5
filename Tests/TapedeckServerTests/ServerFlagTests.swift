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

    @Test("--threads past its range is a usage error before any thread starts; threads the descriptor limit cannot hold are one too, not NIO's fatal error")
    func threads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("empty.har")
        try Data(#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}"#.utf8).write(to: cassette)
        // Given far more threads than any machine needs.
        let huge = try runTapedeck(["serve", cassette.path, "--threads", "20100"])
        // Then serve refuses them as a usage error naming the range.
        #expect(huge.status == 64)
        #expect(errorLine(huge) == "Error: --threads takes a whole number from 0 to 1024 (got 20100)", "\(huge.errors)")

        // Given a process that may open 256 descriptors and 100 threads (3 descriptors each).
        for command in [["serve", cassette.path], ["record", "--upstream", "http://127.0.0.1:9", "--cassette", directory.file("new.har").path]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n 256 && exec \"$0\" \"$@\"", try tapedeckExecutable().path] + command + ["--threads", "100"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try launch(process)
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            // Then it exits 64 saying how many threads fit, instead of crashing in an event loop.
            #expect(process.terminationReason == .exit && process.terminationStatus == 64, "\(command[0]): \(text)")
            #expect(text.contains("--threads 100 needs 300 descriptors") && text.contains("ulimit -n 256")
                    && text.contains("give --threads 63 or fewer"), "\(command[0]): \(text)")
        }
    }
}
