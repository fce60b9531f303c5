import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckScheduling
import TapedeckTesting
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cassettes: record modes and playback", .serialized)
struct RecordModeTests {
    /// A cassette holding one answer for `/get?x=1`, recorded from the server.
    private func seeded(_ server: LoopbackServer, _ directory: TemporaryDirectory) async throws -> URL {
        let cassette = directory.file("modes.har.gz")
        let tape = try Tape(cassette: cassette, mode: .once)
        _ = try await tape.perform(server.url("/get?x=1"))
        _ = try await tape.perform(server.url("/get?x=1&again=1"))
        try tape.finish()
        return cassette
    }

    @Test("none: a miss fails the request and finish() lists the closest recorded entries; nothing goes live")
    func noneMode() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try await seeded(server, directory)
        let before = try Data(contentsOf: cassette)
        let tape = try Tape(cassette: cassette, mode: .replayOnly)
        #expect(try await tape.perform(server.url("/get?x=1")).response.statusCode == 200)
        do {
            _ = try await tape.perform(server.url("/get?x=2"))
            Issue.record("a miss was answered")
        } catch let error as URLError {
            #expect(error.code == .unsupportedURL)
            #expect(error.localizedDescription.contains("no recorded interaction matches GET"))
        }
        do {
            try tape.finish()
            Issue.record("finish() accepted an unanswered request")
        } catch let TapeError.unansweredRequests(misses) {
            #expect(misses.count == 1)
            #expect(misses[0].contains("entry 0 GET") && misses[0].contains("query"), "\(misses[0])")
        }
        #expect(try Data(contentsOf: cassette) == before, "replay never writes")
    }

    @Test("none on a missing cassette says to record it first; once on an existing one does not go live")
    func missingAndOnce() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let missing = try Tape(cassette: directory.file("absent.har.gz"), mode: .replayOnly)
        await #expect(throws: URLError.self) { try await missing.perform(server.url("/get")) }
        #expect(throws: TapeError.self) { try missing.finish() }
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent.har.gz").path))
        #expect(missing.recorder.misses.first?.contains("the cassette does not exist — record it first") == true, "\(missing.recorder.misses)")
        // Named `.har` while the `.har.gz` beside it exists: the miss points at that one.
        try CassetteFile.write(Cassette(interactions: []), to: directory.file("slip.har.gz"))
        let slip = try Tape(cassette: directory.file("slip.har"), mode: .replayOnly)
        await #expect(throws: URLError.self) { try await slip.perform(server.url("/get")) }
        #expect(slip.recorder.misses.first?.contains("but slip.har.gz is beside it — did you mean that one?") == true, "\(slip.recorder.misses)")
        #expect(throws: TapeError.self) { try slip.finish() }

        let cassette = try await seeded(server, directory)
        let once = try Tape(cassette: cassette, mode: .once)
        #expect(!once.recorder.isRecording)
        await #expect(throws: URLError.self) { try await once.perform(server.url("/get?x=3")) }
        #expect(throws: TapeError.self) { try once.finish() }
        #expect(try CassetteFile.read(cassette).interactions.count == 2)
    }

    @Test("recording into another tool's file warns what rewriting it as Tapedeck's HAR drops; Tapedeck's own file, a replay-only run and a new cassette do not")
    func foreignFileWarning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let entry = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/a")!),
                                outcome: .response(RecordedResponse(status: 200)))
        let firefox = directory.file("firefox.har")
        try CassetteFile.write(Cassette(interactions: [entry], creator: "Firefox", creatorVersion: "111.0"), to: firefox)
        let own = directory.file("own.har")
        try CassetteFile.write(Cassette(interactions: [entry]), to: own)
        let adding = try CassetteRecorder(cassette: firefox, options: .init(mode: .newEpisodes))
        #expect(adding.foreignFileWarning?.hasPrefix("firefox.har was written by Firefox 111.0; recording into it rewrites it as Tapedeck's HAR: its entries are kept") == true,
                "\(adding.foreignFileWarning ?? "none")")
        try adding.finish()
        #expect(try CassetteRecorder(cassette: own, options: .init(mode: .newEpisodes)).foreignFileWarning == nil)
        let replacing = try CassetteRecorder(cassette: firefox, options: .init(mode: .all))
        #expect(replacing.foreignFileWarning?.contains("its entries are replaced by a passing recording") == true)
        try replacing.finish(succeeded: false)
        #expect(try CassetteRecorder(cassette: firefox, options: .init(mode: .once)).foreignFileWarning == nil, "replaying only: nothing is rewritten")
        #expect(try CassetteRecorder(cassette: directory.file("new.har"), options: .init(mode: .newEpisodes)).foreignFileWarning == nil)
    }

    @Test("newEpisodes replays what matches and appends what does not, numbered after the old entries")
    func newEpisodes() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try await seeded(server, directory)
        let tape = try Tape(cassette: cassette, mode: .newEpisodes)
        _ = try await tape.perform(server.url("/get?x=1"))
        _ = try await tape.perform(server.url("/get?x=1"))       // the recorded one is consumed: a new episode
        _ = try await tape.perform(server.url("/get?x=2"))
        let summary = try tape.finish()
        #expect(summary.replayed == 1 && summary.recorded == 2)
        let stored = try CassetteFile.read(cassette).interactions
        #expect(stored.map(\.index) == [0, 1, 2, 3])
        #expect(stored.map { $0.request.url.query ?? "" } == ["x=1", "x=1&again=1", "x=1", "x=2"])
    }

    @Test("all re-records and replaces the cassette; a crash before finish keeps old and new")
    func allMode() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try await seeded(server, directory)
        let tape = try Tape(cassette: cassette, mode: .all)
        _ = try await tape.perform(server.url("/get?x=9"))
        #expect(try tape.finish().recorded == 1)
        let stored = try CassetteFile.read(cassette).interactions
        #expect(stored.map(\.index) == [0])
        #expect(stored[0].request.url.query == "x=9")

        // A re-recording whose test failed is added to the cassette, not put in its place.
        let failed = try Tape(cassette: cassette, mode: .all)
        _ = try await failed.perform(server.url("/get?x=10"))
        try failed.finish(succeeded: false)
        #expect(try CassetteFile.read(cassette).interactions.map { $0.request.url.query ?? "" } == ["x=9", "x=10"])

        // A re-recording with no traffic leaves the cassette alone.
        let before = try Data(contentsOf: cassette)
        let idle = try Tape(cassette: cassette, mode: .all)
        #expect(try idle.finish().written == nil)
        #expect(try Data(contentsOf: cassette) == before)

        // Re-recording again, but the process "dies" before finish: the files as they are on disk
        // at that moment (copied elsewhere, as the next process would find them) recover as an
        // addition, so neither the old cassette nor the new recording is lost.
        let interrupted = try Tape(cassette: cassette, mode: .all)
        _ = try await interrupted.perform(server.url("/get?x=11"))
        let afterCrash = directory.file("after-crash/modes.har.gz")
        try FileManager.default.createDirectory(at: afterCrash.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: cassette, to: afterCrash)
        try FileManager.default.copyItem(at: CassetteJournal.journalURL(for: cassette), to: CassetteJournal.journalURL(for: afterCrash))
        #expect(try CassetteJournal.recover(cassette: afterCrash)?.recovered == 1)
        #expect(try CassetteFile.read(afterCrash).interactions.map { $0.request.url.query ?? "" } == ["x=9", "x=10", "x=11"])
    }

    @Test("once after a first recording crashed: the journal is recovered and replayed, and the recording resumes for the rest")
    func onceAfterCrash() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("first.har.gz")
        let journal = try CassetteJournal(cassette: cassette)
        try journal.append(Interaction(
            index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/ping")!),
            outcome: .response(RecordedResponse(status: 200, body: Data("pong".utf8)))))
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
        let tape = try Tape(cassette: cassette, mode: .once)
        #expect(tape.recorder.isRecording, "the first recording was cut short: it goes on")
        #expect(try await tape.perform(URL(string: "http://api.test/ping")!).data == Data("pong".utf8))
        _ = try await tape.perform(server.url("/get?x=after-crash"))
        let summary = try tape.finish()
        #expect(summary.replayed == 1 && summary.recorded == 1)
        #expect(try CassetteFile.read(cassette).interactions.map(\.request.url.path) == ["/ping", "/get"])
        // Now the cassette exists: once replays it and records nothing.
        #expect(try !Tape(cassette: cassette, mode: .once).recorder.isRecording)
    }

    @Test("while a recorder records, opening the cassette elsewhere never takes its live journal")
    func liveJournalIsNotRecovered() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try await seeded(server, directory)
        let recording = try Tape(cassette: cassette, mode: .newEpisodes)
        _ = try await recording.perform(server.url("/get?x=live"))
        let journal = CassetteJournal.journalURL(for: cassette)
        #expect(FileManager.default.fileExists(atPath: journal.path))
        #expect(try CassetteJournal.recover(cassette: cassette) == nil)
        let player = try CassettePlayer(contentsOf: cassette)
        #expect(player.cassette.interactions.count == 2, "the player reads the cassette as it is on disk")
        #expect(FileManager.default.fileExists(atPath: journal.path), "the recorder's journal is still its own")
        #expect(try recording.finish().recorded == 1)
        #expect(try CassetteFile.read(cassette).interactions.count == 3)
    }

    @Test("one recorder per cassette at a time in a process; replay-only tapes share it")
    func holds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("shared.har.gz")
        let recording = try Tape(cassette: cassette, mode: .once)
        #expect(recording.recorder.isRecording)
        do {
            _ = try Tape(cassette: cassette, mode: .once)
            Issue.record("a second recorder opened a cassette being recorded")
        } catch let error as CassetteError {
            #expect(error.reason.contains("another recorder in this process"))
            #expect(error.hint.contains(".serialized"))
        }
        #expect(throws: CassetteError.self) { try Tape(cassette: cassette, mode: .replayOnly) }
        try recording.finish()

        try CassetteFile.write(Cassette(), to: cassette)
        let first = try Tape(cassette: cassette, mode: .replayOnly)
        let second = try Tape(cassette: cassette, mode: .replayOnly)
        #expect(throws: CassetteError.self) { try Tape(cassette: cassette, mode: .newEpisodes) }
        try first.finish()
        try second.finish()
        let afterwards = try Tape(cassette: cassette, mode: .newEpisodes)
        try afterwards.finish()
    }

    @Test("passthrough sends a miss to the live network without recording it")
    func passthrough() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try await seeded(server, directory)
        let tape = try Tape(cassette: cassette, mode: .replayOnly, playback: .passthrough)
        let live = try await tape.perform(server.url("/get?x=live"))
        #expect(String(decoding: live.data, as: UTF8.self).contains("x=live"))
        let summary = try tape.finish()
        #expect(summary.passedThrough == 1 && summary.recorded == 0 && summary.misses.isEmpty)
        #expect(summary.unplayed.count == 2)
        #expect(try CassetteFile.read(cassette).interactions.count == 2)
    }

    @Test("replay of a recorded cassette is deterministic: one trace hash over runs, another seed another hash")
    func replayDeterminism() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try await seeded(server, directory)
        server.stop()
        func hashes(seed: UInt64) async throws -> Set<TraceHash> {
            var seen = Set<TraceHash>()
            for _ in 0..<10 {
                let tape = try Tape(cassette: cassette, mode: .replayOnly, seed: seed)
                let session = tape.session
                for query in ["x=1", "x=1&again=1", "x=1", "x=1&again=1"] {
                    tape.rootQueue.async {
                        session.dataTask(with: server.url("/get?\(query)")) { _, _, _ in }.resume()
                    }
                }
                try await tape.run()
                try tape.finish()
                seen.insert(tape.scheduler.traceHash)
            }
            return seen
        }
        let first = try await hashes(seed: 5)
        #expect(first.count == 1)
        #expect(try await hashes(seed: 6) != first)
    }
}
