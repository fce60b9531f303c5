import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The CLI's hidden `tapedeck cassette _journal-writer`, killed without warning: a recording
/// interrupted for real (no chance to flush or clean up) loses nothing it acknowledged.
@Suite("CLI: a recording process killed mid-write")
struct JournalWriterTests {
    @Test("SIGKILL mid-recording (a real child process): everything appended before the kill is recovered on the next open")
    func killedRecorder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("killed.har.gz")
        // Wait until the child says 40 interactions are durable, then kill it without warning.
        let (process, output, printed) = try startJournalWriter(url, bodyBytes: 4_000, until: 40)
        var seen = printed
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        let acknowledged = String(decoding: seen, as: UTF8.self).split(separator: "\n").count

        #expect(!FileManager.default.fileExists(atPath: url.path), "the cassette is only written when a recording finishes")
        let player = try CassettePlayer(contentsOf: url)   // opening recovers
        let indices = player.cassette.interactions.map(\.index)
        #expect(indices.count >= acknowledged, "every acknowledged append survived (\(acknowledged) acknowledged)")
        #expect(indices == Array(0..<indices.count), "in order, no gaps, no half records")
        #expect(acknowledged > 40)
    }
}

/// Starts `tapedeck cassette _journal-writer` on `url` and reads its output until it says the
/// interaction numbered `acknowledged` is durable: the process, its output pipe, what it printed.
func startJournalWriter(_ url: URL, bodyBytes: Int, until acknowledged: Int) throws -> (Process, Pipe, Data) {
    let process = Process()
    process.executableURL = try tapedeckExecutable()
    process.arguments = ["cassette", "_journal-writer", url.path, "--count", "100000", "--body-bytes", String(bodyBytes)]
    let output = Pipe()
    process.standardOutput = output
    try launch(process)
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains("appended \(acknowledged)\n") {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen.append(chunk)
    }
    return (process, output, seen)
}
