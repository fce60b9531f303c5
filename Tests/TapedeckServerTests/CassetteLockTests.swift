import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One cassette, several processes: a recording holds its cassette across processes, so nobody
/// else merges or replaces the journal it is writing.
@Suite("Server: a cassette being recorded by another process", .serialized)
struct CassetteLockTests {
    @Test("a second record of the same cassette is refused, naming the first's pid; serve meanwhile leaves the live journal alone and says so; everything acknowledged ends in the cassette")
    func secondRecorderAndServe() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try secondRecorderAndServe(upstream) }
    }

    private func secondRecorderAndServe(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("shared.har.gz")
        // Given a finished recording of three exchanges, and a second one under way with three
        // more journalled.
        let earlier = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        for index in 0..<3 { #expect(try curl([earlier.base + "/get?n=\(index)"]).code == 200) }
        #expect(earlier.stop(SIGTERM) == 0)
        let live = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "new_episodes"])
        for index in 3..<6 { #expect(try curl([live.base + "/get?n=\(index)"]).code == 200) }

        // When a second recorder opens the same cassette, it is refused before it listens.
        let second = try runTapedeck(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "new_episodes"])
        #expect(second.status != 0 && second.errors.contains("pid \(live.process.processIdentifier)")
                && second.errors.contains("is recording this cassette"), "\(second.status): \(second.errors)")

        // And a replay server opened meanwhile serves the cassette as last finished, leaving the
        // journal to its recorder and saying so.
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        #expect(try curl([server.base + "/get?n=0"]).code == 200)
        #expect(try curl([server.base + "/get?n=3"]).code == 404)
        server.stop()
        #expect(server.errors.contains("pid \(live.process.processIdentifier)) is recording"), "\(server.errors)")
        #expect(try curl([live.base + "/get?n=6"]).code == 200)

        // Then the recording ends with all seven, and its lock file is gone.
        #expect(live.stop(SIGTERM) == 0, "\(live.errors)")
        #expect(live.errors.contains("cassette has 7 interactions"), "\(live.errors)")
        let queries = try CassetteFile.read(cassette).interactions.compactMap { $0.request.url.query }
        #expect(queries == (0..<7).map { "n=\($0)" })
        #expect(!FileManager.default.fileExists(atPath: cassette.path + ".lock"))

        // A recorder killed mid-recording holds nothing: the next opener recovers its journal.
        let killed = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "new_episodes"])
        #expect(try curl([killed.base + "/get?n=7"]).code == 200)
        #expect(killed.stop(SIGKILL) == SIGKILL)
        let after = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        #expect(try curl([after.base + "/get?n=7"]).code == 200)
        after.stop()
        #expect(after.errors.contains("recovered 1 interaction"), "\(after.errors)")
    }

    @Test("during a cassette's first recording, serve says there is nothing finished to serve yet and who records it (exit 2); inspect calls the journal a recording in progress, not an interrupted one")
    func firstRecordingInProgress() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try firstRecordingInProgress(upstream) }
    }

    private func firstRecordingInProgress(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("first.har")
        // Given a first recording under way with one exchange journalled (no cassette file yet).
        let live = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        #expect(try curl([live.base + "/get?n=0"]).code == 200)
        let pid = live.process.processIdentifier

        // When serve opens the cassette.
        let served = try runTapedeck(["serve", cassette.path])
        // Then it refuses as bad input, saying why and naming the recorder; no misleading path advice.
        #expect(served.status == 2, "\(served.errors)")
        #expect(served.errors.contains("nothing finished to serve yet") && served.errors.contains("in progress (pid \(pid))")
                && served.errors.contains("stop the recorder"), "\(served.errors)")
        #expect(!served.errors.contains("check the path") && !served.errors.contains("serving it as last finished"), "\(served.errors)")

        // When inspect reads it: the live journal is shown merged, as a recording in progress.
        let inspected = try runTapedeck(["cassette", "inspect", cassette.path])
        #expect(inspected.status == 0 && inspected.output.contains("/get?n=0"), "\(inspected.output) \(inspected.errors)")
        #expect(inspected.errors.contains("holds a recording in progress (pid \(pid))") && !inspected.errors.contains("interrupted"),
                "\(inspected.errors)")

        // And the recording itself is untouched: it finishes with its exchange.
        #expect(live.stop(SIGTERM) == 0, "\(live.errors)")
        #expect(try CassetteFile.read(cassette).interactions.count == 1)
        let after = try runTapedeck(["cassette", "inspect", cassette.path])
        #expect(!after.errors.contains("in progress") && !after.errors.contains("interrupted"), "\(after.errors)")
    }

    @Test("record opening a cassette whose recording was killed says what it recovered from the journal and where the torn record went, as serve does")
    func recordSaysWhatItRecovered() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try recordSaysWhatItRecovered(upstream) }
    }

    private func recordSaysWhatItRecovered(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("crashed.har")
        let journal = URL(fileURLWithPath: cassette.path + ".journal")
        // Given a first recording killed after three exchanges, its journal's last record torn.
        let killed = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        for index in 0..<3 { #expect(try curl([killed.base + "/get?n=\(index)"]).code == 200) }
        #expect(killed.stop(SIGKILL) == SIGKILL)
        let written = try Data(contentsOf: journal)
        try written.dropLast(10).write(to: journal)

        // When record opens the cassette again and stops.
        let next = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "new_episodes"])
        #expect(try curl([next.base + "/get?n=3"]).code == 200)
        #expect(next.stop(SIGTERM) == 0, "\(next.errors)")

        // Then its standard error says what it recovered and where the damaged journal is kept.
        #expect(next.errors.contains("tapedeck record: recovered 2 interactions from the journal of an interrupted recording; its last ")
                && next.errors.contains("bytes were a cut-off record (the journal is kept as \(journal.path).damaged)"), "\(next.errors)")
        #expect(FileManager.default.fileExists(atPath: journal.path + ".damaged"))
        #expect(try CassetteFile.read(cassette).interactions.compactMap(\.request.url.query) == ["n=0", "n=1", "n=3"])
    }

    @Test("a journal damaged twice keeps both damaged copies: a second crash never overwrites the first's evidence")
    func damagedCopiesAreKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("torn.har")
        let journal = cassette.path + ".journal"
        for round in 0..<2 {
            // A journal whose only record is cut off (a crash mid-write).
            try Data([0x1f, 0x8b, 0x08, 0x00, UInt8(round)]).write(to: URL(fileURLWithPath: journal))
            let recovery = try CassetteJournal.recover(cassette: cassette)
            #expect(recovery?.droppedBytes == 5)
            #expect(recovery?.keptAside == journal + (round == 0 ? ".damaged" : ".damaged.1"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged")).last == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged.1")).last == 1)
    }
}
