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
