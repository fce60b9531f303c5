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

    /// A GET whose JSON answer (announced as 5,000 bytes) broke off after its first fields.
    private func cutJSON(_ body: String, headers: [HeaderField] = []) -> Interaction {
        var response = RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Length", "5000")] + headers,
                                        body: Data(body.utf8))
        response.interruption = RecordedFailure(code: URLError.networkConnectionLost.rawValue, message: "reset by peer")
        return Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/me?api_key=k-123456789")!),
                           outcome: .response(response))
    }

    @Test("a secret in a body that broke off (JSON that does not parse) is redacted and, unredacted, found by the check; the announced length moves with it")
    func secretsInCutBodies() throws {
        let body = #"{"user":"ada","password":"hunter2-very-secret","key":"k-123456789","items":[1,1,1"#
        let cut = cutJSON(body)
        #expect(SecretScanner.scan(Cassette(interactions: [cut])).contains { $0.place.contains("field 'password'") }, "the check sees the cut body")
        let redacted = try #require(Redactor().redact(cut).response)
        let text = String(decoding: redacted.body, as: UTF8.self)
        #expect(!text.contains("hunter2") && !text.contains("k-123456789") && text.contains(#""password":"REDACTED""#), "\(text)")
        #expect(redacted.interruption != nil)
        // Still announced as more than it holds: a replay stops short of it, as the live one did
        let length = try #require(redacted.headers.value(for: "Content-Length").flatMap { Int($0) })
        #expect(length == 5000 + redacted.body.count - body.utf8.count && length > redacted.body.count)
        #expect(SecretScanner.scan(Cassette(interactions: [Redactor().redact(cut)])).isEmpty)

        // Cut inside the secret's own value: what came of it is redacted too
        let inside = try #require(Redactor().redact(cutJSON(#"{"access_token":"tok_live_abcd"#)).response)
        #expect(String(decoding: inside.body, as: UTF8.self) == #"{"access_token":"REDACTED"#)

        // A cut gzip body is read as far as it decodes, and kept decoded once redacted
        let gzip = try Zlib.compress(Data((body + String(repeating: ",1", count: 3000) + "]}").utf8), format: .gzip)
        let zipped = cutJSON("", headers: [HeaderField("Content-Encoding", "gzip")])
        var zippedResponse = try #require(zipped.response)
        zippedResponse.body = gzip.prefix(gzip.count * 2 / 3)
        var cutZip = zipped
        cutZip.outcome = .response(zippedResponse)
        let unzipped = try #require(Redactor().redact(cutZip).response)
        #expect(unzipped.bodyForm == .decoded && String(decoding: unzipped.body, as: UTF8.self).hasPrefix(#"{"user":"ada","password":"REDACTED""#))
    }

    @Test("cut bodies: a value cut after a backslash, a token before a character the cut split, one finding per field; no secret, no change")
    func cutBodyEdges() throws {
        // Cut right after an escape's backslash (PHP writes / as \/ in tokens)
        let escaped = try #require(Redactor().redact(cutJSON(#"{"user":"bob","password":"hunter2\"#)).response)
        #expect(String(decoding: escaped.body, as: UTF8.self) == #"{"user":"bob","password":"REDACTED"#)
        // A bearer token in text whose last character the cut split in two
        var split = Data(#"{"note":"Authorization: Bearer abcdefghijklmnop1234567890 café"#.utf8)
        split.removeLast()
        let tokenCut = cutJSON("")
        var tokenResponse = try #require(tokenCut.response)
        tokenResponse.body = split
        var tokenInteraction = tokenCut
        tokenInteraction.outcome = .response(tokenResponse)
        #expect(!SecretScanner.scan(Cassette(interactions: [tokenInteraction])).isEmpty, "the check reads up to the split character")
        let redacted = try #require(Redactor().redact(tokenInteraction).response)
        #expect(!redacted.body.contains(Data("abcdefghijklmnop1234567890".utf8)) && redacted.body.last == split.last, "the split byte stays")
        // A cut body that happens to parse is reported once per field
        let parses = SecretScanner.scan(Cassette(interactions: [cutJSON(#"{"password":"hunter2"}"#)]))
        #expect(parses.filter { $0.place.contains("password") }.count == 1, "\(parses)")
        // Numbers and lists under secret names, as a whole document's are: a PIN, a list of
        // tokens (nested too), a number cut short at the end; objects in a list by their fields
        let scalars = try #require(Redactor(extraJSONFields: ["pin"]).redact(cutJSON(
            #"{"pin": 123456, "ok": true, "token": [ "t-1", ["t-2", 7] ], "users": [{"name":"ada","password":"p1"}, "x"], "pin2": 9, "password":12"#)).response)
        #expect(String(decoding: scalars.body, as: UTF8.self) == #"{"pin": 0, "ok": true, "token": [ "REDACTED", ["REDACTED", 0] ], "users": [{"name":"ada","password":"REDACTED"}, "x"], "pin2": 9, "password":0"#)
        // A number becomes 0 (a client decoding a number still can); null, true and false hold
        // no credential and stay — cut short, and in a whole document (a failed OAuth refresh)
        let flags = try #require(Redactor().redact(cutJSON(#"{"token": null, "secret": false, "password": true, "api_key": 12"#)).response)
        #expect(String(decoding: flags.body, as: UTF8.self) == #"{"token": null, "secret": false, "password": true, "api_key": 0"#)
        var refusal = cutJSON("")
        refusal.outcome = .response(RecordedResponse(status: 400, headers: [HeaderField("Content-Type", "application/json")],
                                                     body: Data(#"{"access_token":null,"api_key":12345,"error":"invalid_grant","refresh_token":null,"secret":false}"#.utf8)))
        let whole = try #require(Redactor().redact(refusal).response)
        #expect(String(decoding: whole.body, as: UTF8.self) == #"{"access_token":null,"api_key":0,"error":"invalid_grant","refresh_token":null,"secret":false}"#)
        // A null or a number under a secret name is replaced but is no stored credential: the
        // check reports strings only, as for a whole body (an OAuth error's `"token": null`)
        #expect(!SecretScanner.scan(Cassette(interactions: [cutJSON(#"{"token": null, "refresh_token": 0, "error": "expired"#)]))
            .contains { $0.place.contains("field") })
        // In a cut script, the JSON-like shape is code: only strings are touched
        var script = cutJSON(#"var h={"Authorization":e,"password":"hunter2"#)
        var scriptResponse = try #require(script.response)
        scriptResponse.headers = [HeaderField("Content-Type", "application/javascript"), HeaderField("Content-Length", "5000")]
        script.outcome = .response(scriptResponse)
        #expect(String(decoding: try #require(Redactor().redact(script).response).body, as: UTF8.self) == #"var h={"Authorization":e,"password":"REDACTED"#)
        // A secret-looking name (not in the rules) hides its strings only, as in a whole document
        let looking = try #require(Redactor().redact(cutJSON(#"{"session_key": ["s-abcdef", 42], "count": 3"#)).response)
        #expect(String(decoding: looking.body, as: UTF8.self) == #"{"session_key": ["REDACTED", 42], "count": 3"#)
        // Nothing secret: the body and its length come back as they were
        let clean = cutJSON(#"{"user":"bob","items":[1,2"#)
        #expect(Redactor().redact(clean).response == clean.response)
    }

    @Test("a cut zstd body that decodes to nothing yet is named as not checked for secrets")
    func cutZstdUnread() throws {
        let whole = try Zstd.compress(Data((#"{"password":"hunter2","note":""# + String(repeating: "hello world ", count: 50) + #""}"#).utf8))
        let interaction = cutJSON("", headers: [HeaderField("Content-Encoding", "zstd")])
        var response = try #require(interaction.response)
        response.body = whole.dropLast(10)
        var cut = interaction
        cut.outcome = .response(response)
        #expect(SecretScanner.unreadBodies(in: Cassette(interactions: [cut])).contains { $0.reason.contains("broke off before any of it decodes") })
    }

    @Test("a HEAD answered from a GET that broke off completes, with the length the GET's server announced")
    func headOfACutGet() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("cut.har")
        try CassetteFile.write(Cassette(interactions: [cutJSON(#"{"user":"ada""#)]), to: file)
        let tape = try Tape(cassette: file, mode: .replayOnly)
        var head = URLRequest(url: URL(string: "http://api.test/me?api_key=k-123456789")!)
        head.httpMethod = "HEAD"
        let answer = try await tape.perform(head)
        #expect(answer.response.statusCode == 200 && answer.response.value(forHTTPHeaderField: "Content-Length") == "5000")
        try tape.finish()
    }

    @Test("a cut br and zstd stream decode as far as they go, as a client decoding while it receives has them")
    func brotliAndZstdPrefixes() throws {
        // Several of zstd's 128 KiB blocks: a block decodes only whole, as in any zstd reader.
        let text = Data((0..<20_000).map { "row \($0): some text that compresses\n" }.joined().utf8)
        for (coding, whole) in [("br", try Brotli.compress(text)), ("zstd", try Zstd.compress(text))] {
            let prefix = ContentCoding.decodePrefix(whole.prefix(whole.count / 2), contentEncoding: coding)
            #expect(!prefix.isEmpty && prefix.count < text.count && text.starts(with: prefix), "\(coding): \(prefix.count) bytes")
            #expect(ContentCoding.decodePrefix(whole, contentEncoding: coding) == text)
            // Decoded as a client receiving it has it: well past libbrotli's 64 KiB window flush
            #expect(prefix.count > text.count / 4, "\(coding): \(prefix.count) of \(text.count) bytes from half the stream")
        }
    }
}
