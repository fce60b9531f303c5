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

/// A request whose body URLSession hands the protocol only as a stream (the body is not in `httpBody`).
private func streamedPost(_ url: URL, _ body: Data) -> URLRequest {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
    request.httpBodyStream = InputStream(data: body)
    return request
}

private func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

private func performAll(_ tape: Tape, _ requests: [URLRequest]) async throws -> [(data: Data, response: HTTPURLResponse)] {
    var answers: [(data: Data, response: HTTPURLResponse)] = []
    for request in requests { answers.append(try await tape.perform(request)) }
    return answers
}

@Suite("Cassettes: recording a live server on loopback, then replaying it", .serialized)
struct RecordingTests {
    @Test("JSON, binary, gzip, chunked and a streamed POST body are recorded and replay identically without the server")
    func recordThenReplay() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("Cassettes/basics.har.gz")   // the directory does not exist yet
        let upload = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let requests: [URLRequest] = [
            URLRequest(url: server.url("/get?b=2&a=1")),
            URLRequest(url: server.url("/bytes/5000")),
            URLRequest(url: server.url("/gzip")),
            URLRequest(url: server.url("/chunked/200")),
            streamedPost(server.url("/echo"), upload),
        ]

        let recording = try Tape(cassette: cassette, mode: .once)
        #expect(recording.recorder.isRecording)
        let live = try await performAll(recording, requests)
        let summary = try recording.finish()
        #expect(summary.recorded == 5 && summary.replayed == 0 && summary.misses.isEmpty)
        #expect(text(live[0].data).contains("\"query\":\"b=2&a=1\""))
        #expect(live[1].data == Data(LoopbackServer.bytes(5000)))
        #expect(text(live[2].data).contains("\"path\":\"/gzip\""), "libcurl hands the client the decoded body")
        #expect(text(live[3].data).hasSuffix("chunk 199\n"))
        #expect(live[4].data == upload)

        // What is stored: gzip on disk, the decoded gzip body marked as such with its header kept,
        // the streamed request body, exact binary bytes, indices in request order.
        #expect(CassetteFile.storedCompression(of: cassette) == .gzip)
        #expect(!FileManager.default.fileExists(atPath: CassetteJournal.journalURL(for: cassette).path))
        let stored = try CassetteFile.read(cassette)
        #expect(stored.interactions.map(\.index) == [0, 1, 2, 3, 4])
        let gzip = try #require(stored.interactions[2].response)
        #expect(gzip.bodyForm == .decoded && gzip.headers.value(for: "Content-Encoding") == "gzip")
        #expect(stored.interactions[1].response?.body == Data(LoopbackServer.bytes(5000)))
        #expect(stored.interactions[4].request.body == upload)
        #expect(stored.interactions.allSatisfy { ($0.timings?.wait ?? .zero) > .zero })

        // Replay only, with the server gone: the same answers, from the cassette.
        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        #expect(!replay.recorder.isRecording)
        let replayed = try await performAll(replay, requests)
        for (recorded, played) in zip(live, replayed) {
            #expect(played.data == recorded.data)
            #expect(played.response.statusCode == recorded.response.statusCode)
            #expect(played.response.value(forHTTPHeaderField: "Content-Type") == recorded.response.value(forHTTPHeaderField: "Content-Type"))
        }
        #expect(try replay.finish().replayed == 5)
    }

    @Test("recording the same traffic twice differs only in timing fields; with normalised timings, not at all")
    func reRecordingIsStable() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func record(_ name: String) async throws -> Cassette {
            let tape = try Tape(cassette: directory.file(name), mode: .once)
            for path in ["/get?b=2&a=1", "/bytes/300", "/gzip", "/redirect/1", "/status/404"] {
                _ = try await tape.perform(server.url(path))
            }
            try tape.finish()
            var cassette = try CassetteFile.read(directory.file(name))
            // The server's Date header is the one part of its answers that changes by itself.
            for position in cassette.interactions.indices {
                if case var .response(response) = cassette.interactions[position].outcome {
                    response.headers.removeAll { $0.name.lowercased() == "date" }
                    cassette.interactions[position].outcome = .response(response)
                }
            }
            return cassette
        }
        let first = try await record("first.har.gz"), second = try await record("second.har.gz")
        let normalised = HARCodec.WriteOptions(normalizesTimings: true)
        #expect(HARCodec.encode(first, options: normalised) == HARCodec.encode(second, options: normalised))
        let lines = { (cassette: Cassette) in String(decoding: HARCodec.encode(cassette), as: UTF8.self).split(separator: "\n") }
        let (a, b) = (lines(first), lines(second))
        #expect(a.count == b.count)
        let timingKeys = ["\"startedDateTime\"", "\"time\"", "\"wait\"", "\"receive\"", "\"send\"", "\"connect\""]
        for (left, right) in zip(a, b) where left != right {
            #expect(timingKeys.contains { left.contains($0) }, "a non-timing line changed: \(left) → \(right)")
        }
    }

    @Test("each redirect hop is recorded; replay follows the hops to the same final answer")
    func redirects() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("redirects.har")
        let recording = try Tape(cassette: cassette, mode: .once)
        let live = try await recording.perform(server.url("/redirect/2"))
        try recording.finish()
        #expect(live.response.statusCode == 200)
        #expect(live.response.url?.path == "/redirect/0")

        let stored = try CassetteFile.read(cassette)
        #expect(stored.interactions.map { $0.response?.status } == [302, 302, 200])
        #expect(stored.interactions.map(\.request.url.path) == ["/redirect/2", "/redirect/1", "/redirect/0"])
        #expect(CassetteFile.storedCompression(of: cassette) == .none)

        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let played = try await replay.perform(server.url("/redirect/2"))
        #expect(played.data == live.data)
        #expect(played.response.url?.path == "/redirect/0")
        #expect(try replay.finish().replayed == 3)
    }

    @Test("a 20 MB body is recorded and replayed byte for byte")
    func largeBody() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("large.har.gz")
        let recording = try Tape(cassette: cassette, mode: .once)
        let live = try await recording.perform(server.url("/large/20"))
        try recording.finish()
        #expect(live.data.count >= 20 * 1_048_576)
        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let played = try await replay.perform(server.url("/large/20"))
        #expect(played.data == live.data)
        try replay.finish()
    }

    @Test("a timeout, a refused connection, a 500 and a slow answer are recorded with their times and replayed on the virtual clock")
    func failuresAndTimings() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("failures.har.gz")
        // A port nothing listens on: bind one, note it, close it.
        let refused = URL(string: "http://127.0.0.1:\(try closedPort())/nobody")!
        // The timeout is recorded with a short live timeout; the rest with a generous one, so a
        // busy machine cannot turn them into timeouts too.
        // (corelibs URLSession counts timeouts in whole seconds: 0.4 s times out at once.)
        let impatient = try Tape(cassette: cassette, mode: .once, live: LiveForwarder.Options(timeout: .seconds(1)))
        await #expect(throws: URLError.self) { try await impatient.perform(server.url("/delay/4000")) }
        try impatient.finish()
        let recording = try Tape(cassette: cassette, mode: .newEpisodes)
        await #expect(throws: URLError.self) { try await recording.perform(refused) }
        let failing = try await recording.perform(server.url("/status/500"))
        let slow = try await recording.perform(server.url("/delay/250"))
        #expect(failing.response.statusCode == 500)
        #expect(slow.response.statusCode == 200)

        #expect(try recording.finish().recordedFailures.count == 1, "the refusal is reported as recorded")
        let stored = try CassetteFile.read(cassette).interactions
        guard case let .failure(timeout) = stored[0].outcome, case let .failure(refusal) = stored[1].outcome else {
            Issue.record("transport errors were not recorded as failures: \(stored.map(\.outcome))")
            return
        }
        #expect(timeout.code == URLError.timedOut.rawValue)
        #expect(refusal.code == URLError.cannotConnectToHost.rawValue)
        #expect((stored[0].timings?.wait ?? .zero) >= .milliseconds(900))
        #expect((stored[3].timings?.wait ?? .zero) >= .milliseconds(250))

        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly, timing: .asRecorded)
        var errors: [URLError.Code] = []
        var start = replay.scheduler.now
        do { _ = try await replay.perform(server.url("/delay/4000")) } catch let error as URLError { errors.append(error.code) }
        let timeoutTime = start.duration(to: replay.scheduler.now)
        do { _ = try await replay.perform(refused) } catch let error as URLError { errors.append(error.code) }
        #expect(errors == [.timedOut, .cannotConnectToHost])
        #expect(timeoutTime >= .milliseconds(900), "the recorded wait passes on the virtual clock")
        #expect(try await replay.perform(server.url("/status/500")).response.statusCode == 500)
        start = replay.scheduler.now
        _ = try await replay.perform(server.url("/delay/250"))
        let slowTime = start.duration(to: replay.scheduler.now)
        #expect(slowTime >= .milliseconds(250))
        try replay.finish()

        // Instant timing: the same cassette answers at once.
        let instant = try Tape(cassette: cassette, mode: .replayOnly, timing: .instant)
        start = instant.scheduler.now
        _ = try await instant.perform(server.url("/delay/250"))
        #expect(instant.scheduler.now == start)
    }

    @Test("secrets are redacted in the cassette while the recording client still sees them; replay matches another token")
    func redactionWhileRecording() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("secrets.har.gz")
        var request = URLRequest(url: server.url("/headers?token=s3cr3t&page=1"))
        request.setValue("Bearer live-token-123", forHTTPHeaderField: "Authorization")
        let recording = try Tape(cassette: cassette, mode: .once)
        let live = try await recording.perform(request)
        try recording.finish()
        #expect(text(live.data).contains("live-token-123"), "the live client gets the real echo")

        let raw = text(try Zlib.decompress(Data(contentsOf: cassette)))
        #expect(!raw.contains("live-token-123") && !raw.contains("s3cr3t"))
        #expect(raw.contains("REDACTED"))

        var other = URLRequest(url: server.url("/headers?page=1&token=another"))
        other.setValue("Bearer another-token", forHTTPHeaderField: "Authorization")
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        #expect(try await replay.perform(other).response.statusCode == 200)
        try replay.finish()
    }
}

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
        #expect(missing.recorder.misses.first?.contains("record it first") == true)

        let cassette = try await seeded(server, directory)
        let once = try Tape(cassette: cassette, mode: .once)
        #expect(!once.recorder.isRecording)
        await #expect(throws: URLError.self) { try await once.perform(server.url("/get?x=3")) }
        #expect(throws: TapeError.self) { try once.finish() }
        #expect(try CassetteFile.read(cassette).interactions.count == 2)
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

    @Test("once after a first recording crashed: the journal is recovered and replayed, not recorded again")
    func onceAfterCrash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("first.har.gz")
        let journal = try CassetteJournal(cassette: cassette)
        try journal.append(Interaction(
            index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/ping")!),
            outcome: .response(RecordedResponse(status: 200, body: Data("pong".utf8)))))
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
        let tape = try Tape(cassette: cassette, mode: .once)
        #expect(!tape.recorder.isRecording)
        #expect(try await tape.perform(URL(string: "http://api.test/ping")!).data == Data("pong".utf8))
        #expect(try tape.finish().replayed == 1)
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
        #expect(text(live.data).contains("x=live"))
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

/// A TCP port on 127.0.0.1 that nothing listens on (bound, then closed).
func closedPort() throws -> Int {
    #if canImport(Glibc)
    let socketType = Int32(SOCK_STREAM.rawValue)
    #else
    let socketType = SOCK_STREAM
    #endif
    let descriptor = socket(AF_INET, socketType, 0)
    guard descriptor >= 0 else { throw POSIXError(.EBADF) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
