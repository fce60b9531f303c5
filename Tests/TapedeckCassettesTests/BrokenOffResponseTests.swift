import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTesting
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a data task's delegate saw, in order: the head, how many body bytes, how it ended.
private final class DataEvents: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: the callbacks run on the tape's root queue while the test waits.
    private let state = Mutex<(status: Int?, body: Data, error: URLError?, completed: Int)>((nil, Data(), nil, 0))

    var status: Int? { state.withLock { $0.status } }
    var body: Data { state.withLock { $0.body } }
    var error: URLError? { state.withLock { $0.error } }
    var completed: Int { state.withLock { $0.completed } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        state.withLock { $0.status = (response as? HTTPURLResponse)?.statusCode }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock {
            $0.error = error as? URLError
            $0.completed += 1
        }
    }
}

/// Runs one data task on `tape` with a delegate that sees each event (the tape runs off Swift's
/// cooperative pool, where the loopback server being recorded answers).
private func events(_ tape: Tape, _ url: URL) async throws -> DataEvents {
    let events = DataEvents()
    let session = tape.makeURLSession(delegate: events)
    tape.rootQueue.async { session.dataTask(with: url).resume() }
    try await tape.run()
    return events
}

@Suite("Cassettes: a response that broke off mid-body is kept and replayed as it happened", .serialized)
struct BrokenOffResponseTests {
    @Test("recorded live: the head and the bytes that came are kept with the failure; replay hands the client the same head, bytes and error")
    func recordedLive() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("cut.har.gz")
        let url = server.url("/cut/3000")

        // Given a server that announces 6,000 bytes, sends 3,000 and drops the connection
        let recording = try Tape(cassette: cassette, mode: .once)
        let live = try await events(recording, url)
        let summary = try recording.finish()
        // Then the recording client saw the head, the bytes, and a failure
        let code = try #require(live.error?.code, "the live client saw no error")
        #expect(live.status == 200 && live.body == Data(LoopbackServer.bytes(3000)) && live.completed == 1)
        #expect(summary.recordedFailures.count == 1 && summary.recordedFailures[0].contains("broke off after 3000 body bytes"),
                "\(summary.recordedFailures)")

        // And the cassette keeps all three
        let stored = try #require(CassetteFile.read(cassette).interactions.first?.response)
        #expect(stored.status == 200 && stored.body == Data(LoopbackServer.bytes(3000)))
        #expect(stored.headers.value(for: "Content-Length") == "6000")
        #expect(stored.interruption?.code == code.rawValue, "\(String(describing: stored.interruption))")

        // When it replays without the server
        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let replayed = try await events(replay, url)
        try replay.finish()
        // Then the client sees what the live one saw
        #expect(replayed.status == 200 && replayed.body == live.body && replayed.completed == 1)
        #expect(replayed.error?.code == code)
    }

    @Test("a gzip body cut short replays the text its first bytes decode to, then the failure; the HAR file keeps the bytes and the failure")
    func gzipCutShort() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = Data((0..<4_000).map { "line \($0) of a long answer\n" }.joined().utf8)
        let gzip = try Zlib.compress(text, format: .gzip)
        var response = RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "text/plain"), HeaderField("Content-Encoding", "gzip"),
                                                               HeaderField("Content-Length", String(gzip.count))],
                                        body: gzip.prefix(gzip.count / 2))
        response.interruption = RecordedFailure(code: URLError.timedOut.rawValue, message: "the upstream went silent")
        let url = URL(string: "http://api.test/log")!
        let file = directory.file("gzip-cut.har")
        try CassetteFile.write(Cassette(interactions: [Interaction(index: 0, request: RecordedRequest(method: "GET", url: url), outcome: .response(response))]), to: file)

        // The file: a status, the bytes as sent, and the failure beside them (for DevTools too)
        let entry = try #require((JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            .flatMap { ($0["log"] as? [String: Any])?["entries"] as? [[String: Any]] }?.first)
        #expect((entry["_error"] as? [String: Any])?["code"] as? Int == URLError.timedOut.rawValue)
        #expect((entry["response"] as? [String: Any])?["_error"] as? String == "the upstream went silent")
        let read = try #require(CassetteFile.read(file).interactions.first?.response)
        #expect(read == response, "the interruption and the bytes survive the round trip")

        let replay = try Tape(cassette: file, mode: .replayOnly)
        let seen = try await events(replay, url)
        try replay.finish()
        #expect(seen.status == 200 && seen.error?.code == .timedOut && seen.completed == 1)
        #expect(!seen.body.isEmpty && seen.body.count < text.count && text.starts(with: seen.body),
                "\(seen.body.count) of \(text.count) bytes, decoded as far as the cut")
    }
}
