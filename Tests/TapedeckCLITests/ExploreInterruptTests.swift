import Foundation
import Testing
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Stopping a long `tapedeck explore`: Ctrl-C winds it down with a summary; a parent that dies
/// leaves no worker process behind to crash on the broken pipe.
@Suite("Explore: interrupted")
struct ExploreInterruptTests {
    private let retryStorm = fixturesDirectory.appendingPathComponent("scenarios/retry-storm.yaml")

    /// A long explore with worker processes, its stdout read until `lines` JSON lines came.
    private struct Started {
        let process: Process
        let output: FileHandle
        let errors: FileHandle
        var received: Data
    }

    private func start(out: URL, lines: Int) throws -> Started {
        let process = Process()
        process.executableURL = try tapedeckExecutable()
        process.arguments = ["explore", retryStorm.path, "--seeds", "1..1000000", "--jobs", "2", "--workers", "processes",
                             "--format", "jsonl", "--out", out.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try launch(process)
        var received = Data()
        while received.count(where: { $0 == UInt8(ascii: "\n") }) < lines {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        return Started(process: process, output: output.fileHandleForReading, errors: errors.fileHandleForReading, received: received)
    }

    /// Everything left on `handle` until every process holding its pipe has exited, or nil when
    /// that takes longer than `seconds` (a process hung on).
    private func readToEnd(_ handle: FileHandle, within seconds: Int = 60) -> Data? {
        let box = DataBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.data = handle.readDataToEndOfFile()
            done.signal()
        }
        return done.wait(timeout: .now() + .seconds(seconds)) == .success ? box.data : nil
    }

    private final class DataBox: @unchecked Sendable {
        // @unchecked Sendable: written by the reading thread before it signals, read after the wait.
        var data = Data()
    }

    @Test("Ctrl-C: the seeds under way finish, the summary says how many of how many ran, exit 130; --out holds exactly the lines printed")
    func interruptWindsDown() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let out = directory.file("seeds.jsonl")
        var started = try start(out: out, lines: 3)
        defer { if started.process.isRunning { kill(started.process.processIdentifier, SIGKILL) } }
        kill(started.process.processIdentifier, SIGINT)
        let rest = try #require(readToEnd(started.output), "explore did not end after Ctrl-C")
        started.received.append(rest)
        let errors = String(decoding: readToEnd(started.errors) ?? Data(), as: UTF8.self)
        started.process.waitUntilExit()
        #expect(started.process.terminationStatus == 130, "\(errors)")
        #expect(!errors.contains("Fatal error") && !errors.contains("Broken pipe"), "\(errors)")
        let printed = String(decoding: started.received, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(errors.contains("interrupted: \(printed.count) of 1000000 seeds ran"), "\(errors)")
        // Only what ran is vouched for
        #expect(errors.contains("every seed that ran passed") && !errors.contains("every seed passed"), "\(errors)")
        #expect(printed.count >= 3 && printed.count < 1_000_000)
        let written = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(written == printed, "the file has every line printed, each whole")
        let seeds = try written.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["seed"] as? Int }
        #expect(seeds == Array(1...written.count), "the seeds that ran are the first ones, in order")
    }

    @Test("a parent killed mid-run: its worker processes end quietly (no trap on the broken pipe) and none outlives it for long")
    func workersOutliveNoParent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let started = try start(out: directory.file("seeds.jsonl"), lines: 2)
        kill(started.process.processIdentifier, SIGKILL)
        started.process.waitUntilExit()
        // The workers hold the same stderr: it ends when the last of them has exited.
        let errors = try #require(readToEnd(started.errors), "a worker process is still running a minute after its parent died")
        let text = String(decoding: errors, as: UTF8.self)
        #expect(!text.contains("Fatal error") && !text.contains("Broken pipe"), "\(text)")
    }
}
