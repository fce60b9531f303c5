import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
@testable import TapedeckServer
import TapedeckTestSupport

/// A streamed body (server-sent events) keeps its pieces: `record` notes when each arrived
/// (`response._chunks`), and `serve` sends them apart, at their recorded pace.
@Suite("Server: streamed bodies keep their pieces and pace")
struct StreamPaceTests {
    @Test("record keeps an event stream's pieces in order, as they came; serve sends the body back whole")
    func recordKeepsPieces() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try recordKeepsPieces(upstream) }
    }

    private func recordKeepsPieces(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("events.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        defer { proxy.stop() }
        let key = "events-\(UUID().uuidString)"
        defer { LoopbackGates.open("\(key)/1"); LoopbackGates.open("\(key)/2") }
        let events = LoopbackServer.events.map { Data($0.utf8) }
        // The upstream sends each event only once the client has read the one before through the
        // proxy: the pieces cannot run together.
        let client = try RawClient(port: proxy.port)
        try client.send("GET /events/\(key) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        _ = try client.readBody(atLeast: events[0].count)
        LoopbackGates.open("\(key)/1")
        _ = try client.readBody(atLeast: events[0].count + events[1].count)
        LoopbackGates.open("\(key)/2")
        let body = try client.readToEnd()
        #expect(body == events.reduce(Data(), +))
        #expect(proxy.stop() == 0, "\(proxy.errors)")

        let response = try #require(try CassetteFile.read(cassette).interactions.first?.response)
        let chunks = try #require(response.chunks, "an event stream is recorded with its pieces")
        #expect(chunks.reduce(0) { $0 + $1.bytes } == response.body.count)
        // Each event ends a piece (a piece may hold less), and a later event's piece came later.
        // (The stored events are redacted — a "token" field is a secret — so they are found by
        // their blank-line ends.)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""token":"REDACTED""#))
        let eventEnds = response.body.indices.filter { $0 >= 1 && response.body[$0 - 1] == 0x0A && response.body[$0] == 0x0A }.map { $0 + 1 }
        var pieceEnds: [Int] = [], offset = 0
        for chunk in chunks { offset += chunk.bytes; pieceEnds.append(offset) }
        #expect(eventEnds.count == 3 && eventEnds.allSatisfy(pieceEnds.contains), "events end at \(eventEnds), pieces at \(pieceEnds)")
        let times = eventEnds.compactMap { end in pieceEnds.firstIndex(of: end).map { chunks[$0].at } }
        #expect(times.count == 3 && times[0] < times[1] && times[1] < times[2], "\(chunks)")

        // Served back (as fast as it goes), the body is the stored bytes.
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        let again = try RawClient(port: server.port)
        try again.send("GET /events/\(key) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try again.readToEnd() == response.body)
    }

    /// A GET of the loopback server's three events recorded as a stream: the first two at once,
    /// the last a minute later (the exchange's receive time).
    private func slowEvents() -> Interaction {
        let events = LoopbackServer.events.map { Data($0.utf8) }
        return Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/events")!),
                           outcome: .response(RecordedResponse(
                            status: 200, headers: [HeaderField("Content-Type", "text/event-stream")], body: events.reduce(Data(), +),
                            chunks: [BodyChunk(bytes: events[0].count, at: .zero), BodyChunk(bytes: events[1].count, at: .milliseconds(10)),
                                     BodyChunk(bytes: events[2].count, at: .seconds(60))])),
                           timings: ExchangeTimings(wait: .milliseconds(5), receive: .seconds(60)))
    }

    @Test("serve sends a stream's pieces at their recorded times: the first events arrive while the last is a minute away")
    func servePaces() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let events = LoopbackServer.events.map { Data($0.utf8) }
        let cassette = directory.file("slow-events.har")
        try CassetteFile.write(Cassette(interactions: [slowEvents()]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "recorded"])
        defer { server.stop() }
        do {
            let client = try RawClient(port: server.port)
            try client.send("GET /events HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n")
            // Holding the body until its recorded end (a minute) would time this read out (20 s).
            let early = try client.readBody(atLeast: events[0].count + events[1].count)
            // Chunked (as the stream was recorded, with no length): each piece framed on its own.
            let head = try #require(client.head)
            #expect(head.contains("transfer-encoding: chunked") && !head.contains("content-length"), "\(head)")
            let framed = (events[0].count + 4 + 2) + (events[1].count + 4 + 2)   // "17\r\n" … "\r\n" each
            #expect(early < framed + events[2].count, "the last event is not due for a minute: \(early) bytes so far")
        }   // the client hangs up here, before the server is stopped
    }

    @Test("a stream that held still before it ended ends when it did: its last piece is one of no bytes at the recorded end (scaled with the timing), and one that ended with its last event gets none")
    func streamEndsWhenItDid() throws {
        // Given events at 0 and 10 ms of a stream that ended after a minute
        let events = LoopbackServer.events.map { Data($0.utf8) }
        let response = RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "text/event-stream")], body: events[0] + events[1],
                                        chunks: [BodyChunk(bytes: events[0].count, at: .zero), BodyChunk(bytes: events[1].count, at: .milliseconds(10))])
        let heldStill = ExchangeTimings(wait: .milliseconds(5), receive: .seconds(60))
        // When it is answered as recorded, and at half speed
        let recorded = ReplayService.answer(response, timings: heldStill, timing: .recorded)
        let halved = ReplayService.answer(response, timings: heldStill, timing: .scaled(0.5))
        // Then the events keep their times and the end comes at the minute (half of it)
        #expect(recorded.delivery.pieces == [BodyChunk(bytes: events[0].count, at: .zero), BodyChunk(bytes: events[1].count, at: .milliseconds(10)),
                                            BodyChunk(bytes: 0, at: .seconds(60))], "\(String(describing: recorded.delivery.pieces))")
        #expect(halved.delivery.pieces?.last == BodyChunk(bytes: 0, at: .seconds(30)))
        #expect(recorded.delivery.cutDelay == .zero)
        // And one that ended with its last event, or is replayed instantly, has no such piece
        let prompt = ReplayService.answer(response, timings: ExchangeTimings(wait: .milliseconds(5), receive: .milliseconds(10)), timing: .recorded)
        #expect(prompt.delivery.pieces?.count == 2)
        #expect(ReplayService.answer(response, timings: heldStill, timing: .instant).delivery.pieces == nil)
    }

    @Test("a HEAD answered from a stream recorded over a minute holds nothing: the request behind it on the connection is answered at once")
    func headOfAStreamDoesNotWait() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("slow-events.har")
        try CassetteFile.write(Cassette(interactions: [
            slowEvents(),
            Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/other")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Length", "10")], body: Data("other body".utf8))),
                        timings: ExchangeTimings(wait: .milliseconds(5))),
        ]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "recorded"])
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("HEAD /events HTTP/1.1\r\nHost: api.test\r\n\r\nGET /other HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n")
        // Held for the stream's recorded minute, this read would time out (it waits 20 s).
        let rest = String(decoding: try client.readToEnd(), as: UTF8.self)
        #expect(client.head?.hasPrefix("http/1.1 200") == true)
        #expect(rest.hasPrefix("HTTP/1.1 200") && rest.hasSuffix("\r\n\r\nother body"), "the GET's whole answer follows the HEAD's head: \(rest)")
    }

    @Test("a gzip event stream goes decoded to a client that does not accept gzip, still piece by piece: the first events arrive while the last is a minute away")
    func servePacesDecodedGzip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let events = LoopbackServer.events.map { Data($0.utf8) }
        // Each event flushed through gzip as a server streaming it does; the last, with the trailer, a minute later
        let deflater = try Deflater(format: .gzip)
        var parts: [Data] = []
        for (index, event) in events.enumerated() {
            var part = try deflater.append(event) + deflater.flush()
            if index == events.count - 1 { part += try deflater.finish() }
            parts.append(part)
        }
        let cassette = directory.file("gzip-events.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/events")!),
                        outcome: .response(RecordedResponse(
                            status: 200, headers: [HeaderField("Content-Type", "text/event-stream"), HeaderField("Content-Encoding", "gzip"),
                                                   HeaderField("Vary", "Accept-Encoding")],
                            body: parts.reduce(Data(), +),
                            chunks: [BodyChunk(bytes: parts[0].count, at: .zero), BodyChunk(bytes: parts[1].count, at: .milliseconds(10)),
                                     BodyChunk(bytes: parts[2].count, at: .seconds(60))])),
                        timings: ExchangeTimings(wait: .milliseconds(5), receive: .seconds(60))),
        ]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "recorded"])
        defer { server.stop() }
        do {
            let client = try RawClient(port: server.port)
            try client.send("GET /events HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n")
            // The first two events, decoded, come long before the minute is up (a read holds 20 s)
            let early = try client.readBody(atLeast: events[0].count + events[1].count)
            let head = try #require(client.head)
            #expect(!head.contains("content-encoding"), "\(head)")
            #expect(early < events.reduce(0) { $0 + $1.count }, "the last event is not due for a minute: \(early) bytes so far")
        }
    }

    @Test("a body of no stated length whose pieces came apart (progress output) keeps them, whatever its type, and serves back whole; one that came at once keeps none")
    func pausedBodyKeepsPieces() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try pausedBodyKeepsPieces(upstream) }
    }

    private func pausedBodyKeepsPieces(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("paused.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        defer { proxy.stop() }
        // The upstream sends 1,000 bytes (chunked, application/octet-stream), then 1,000 more once
        // the gate opens, at least 150 ms later; and a body of the same kind without a pause.
        let key = "paused-\(UUID().uuidString)"
        defer { LoopbackGates.open(key) }
        let client = try RawClient(port: proxy.port)
        try client.send("GET /gated/\(key)/1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        _ = try client.readBody(atLeast: 1000)
        Thread.sleep(forTimeInterval: 0.15)
        LoopbackGates.open(key)
        #expect(try client.readToEnd().count == 2000)
        let quick = try RawClient(port: proxy.port)
        try quick.send("GET /chunked/5 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        _ = try quick.readToEnd()
        #expect(proxy.stop() == 0, "\(proxy.errors)")

        let interactions = try CassetteFile.read(cassette).interactions
        let paused = try #require(interactions.first?.response)
        let chunks = try #require(paused.chunks, "a body that paused keeps its pieces")
        #expect(chunks.map(\.bytes).reduce(0, +) == 2000 && chunks.count >= 2, "\(chunks)")
        #expect(chunks.last!.at - chunks.first!.at >= .milliseconds(150), "\(chunks)")
        #expect(interactions.last?.response?.chunks == nil, "a body that came at once keeps none")

        // Served at the recorded pace (pieces paced as servePaces shows), the bytes are the stored ones
        let server = try ServerProcess(["serve", cassette.path, "--timing", "recorded"])
        defer { server.stop() }
        let again = try RawClient(port: server.port)
        try again.send("GET /gated/\(key)/1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try again.readToEnd() == paused.body)
    }

    @Test("pieces of a body of no stated length: kept when two came 100 ms apart, those within 10 ms of the one before taken as one")
    func pieceRules() {
        let ms = { (value: Int) in Duration.milliseconds(value) }
        // A stream type keeps every piece
        #expect(BodyChunk.recorded([(ms(0), 3), (ms(1), 4)], contentType: "text/event-stream")?.count == 2)
        // Another type: pieces close together are one; no gap of 100 ms, nothing kept
        #expect(BodyChunk.recorded([(ms(0), 3), (ms(4), 4), (ms(50), 5)], contentType: "text/plain") == nil)
        let kept = BodyChunk.recorded([(ms(0), 3), (ms(4), 4), (ms(200), 5), (ms(205), 1)], contentType: "text/plain")
        #expect(kept == [BodyChunk(bytes: 7, at: ms(0)), BodyChunk(bytes: 6, at: ms(200))])
        // What to collect: a stream type, or no length
        #expect(BodyChunk.collectsPieces(contentType: "text/plain", contentLength: nil))
        #expect(!BodyChunk.collectsPieces(contentType: "text/plain", contentLength: "12"))
        #expect(BodyChunk.collectsPieces(contentType: "text/event-stream", contentLength: "12"))
    }

    @Test("an HTTP/1.0 client never gets chunks: record ends a body of unknown length with the connection, serve sends paced pieces with a length")
    func http10NeverChunked() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try http10NeverChunked(upstream) }
    }

    private func http10NeverChunked(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("old.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        defer { proxy.stop() }
        let lines = (0..<5).map { "chunk \($0)\n" }.joined()
        // The upstream answers chunked (Hummingbird to an HTTP/1.1 hop); the 1.0 client must get
        // the bytes themselves, not chunk-size lines it would take for body.
        let old = try RawClient(port: proxy.port)
        try old.send("GET /chunked/5 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(String(decoding: try old.readToEnd(), as: UTF8.self) == lines)
        #expect(old.head?.contains("transfer-encoding") == false, "\(old.head ?? "")")
        // An HTTP/1.1 client still gets it chunked, as the upstream sent it.
        let new = try RawClient(port: proxy.port)
        try new.send("GET /chunked/5 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: try new.readToEnd(), as: UTF8.self) == lines)
        #expect(new.head?.contains("transfer-encoding: chunked") == true, "\(new.head ?? "")")
        #expect(proxy.stop() == 0, "\(proxy.errors)")

        // A stream with recorded pieces, served at its recorded pace, reaches a 1.0 client with a length.
        var recorded = try CassetteFile.read(cassette)
        recorded.interactions = [recorded.interactions[0]]
        guard case var .response(response) = recorded.interactions[0].outcome else { Issue.record("no response"); return }
        response.headers = [HeaderField("Content-Type", "text/event-stream")]
        response.body = Data("data: 1\n\ndata: 2\n\n".utf8)
        response.chunks = [BodyChunk(bytes: 9, at: .milliseconds(10)), BodyChunk(bytes: 9, at: .milliseconds(20))]
        recorded.interactions[0].outcome = .response(response)
        try CassetteFile.write(recorded, to: directory.file("paced.har.gz"))
        let server = try ServerProcess(["serve", directory.file("paced.har.gz").path, "--timing", "recorded"])
        defer { server.stop() }
        let paced = try RawClient(port: server.port)
        try paced.send("GET /chunked/5 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try paced.readToEnd() == response.body)
        #expect(paced.head?.contains("transfer-encoding") == false, "\(paced.head ?? "")")
        #expect(paced.head?.contains("content-length: 18") == true, "\(paced.head ?? "")")
    }

    @Test("record answers a small exchange, complete when its head arrives, in one write: head and body come together once journalled")
    func completeAnswerInOnePiece() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try completeAnswerInOnePiece(upstream) }
    }

    private func completeAnswerInOnePiece(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", directory.file("one.har.gz").path])
        defer { proxy.stop() }
        // The upstream writes each small answer in one write (Hummingbird flushes head and body
        // together), which loopback delivers in one read: the proxy has the whole answer when its
        // head arrives. (An upstream whose head came apart from its body would rightly get its
        // head flushed first.)
        for attempt in 0..<3 {
            let client = try RawClient(port: proxy.port)
            try client.send("GET /bytes/64?attempt=\(attempt) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            // The head was flushed apart from the body before (the body waited for the journal's
            // fsync): a first read then held the head alone.
            let first = try client.readOnce()
            let text = String(decoding: first, as: UTF8.self).lowercased()
            #expect(text.hasPrefix("http/1.1 200"), "\(text.prefix(80))")
            #expect(client.head?.contains("content-length: 64") == true)
            #expect(first.suffix(64) == Data(LoopbackServer.bytes(64)), "the first read held \(first.count) bytes: \(text.prefix(200))")
            #expect(!text.contains("keep-alive:"), "a closing answer promises no idle time")
        }
        // A connection kept open says how long it may sit idle (the header timeout), so a pooling
        // client retires it before the server closes it under a request.
        let kept = try RawClient(port: proxy.port)
        try kept.send("GET /bytes/64 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let text = String(decoding: try kept.readOnce(), as: UTF8.self).lowercased()
        #expect(text.contains("\r\nkeep-alive: timeout=10\r\n"), "\(text.prefix(300))")
        #expect(proxy.stop() == 0, "\(proxy.errors)")
    }

    @Test("record passes on a body of known length as it comes: all but the piece that completes it")
    func knownLengthStreams() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try knownLengthStreams(upstream) }
    }

    private func knownLengthStreams(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", directory.file("length.har.gz").path])
        defer { proxy.stop() }
        let key = "length-\(UUID().uuidString)", half = 1_000
        defer { LoopbackGates.open(key) }
        let client = try RawClient(port: proxy.port)
        try client.send("GET /gated-length/\(key)/\(half) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        // The first half arrives while the upstream waits for the gate (holding it back until the
        // next piece came, as the proxy did, would time this read out).
        let early = try client.readBody(atLeast: half)
        #expect(early == half)
        #expect(client.head?.contains("content-length: \(2 * half)") == true)
        LoopbackGates.open(key)
        #expect(try client.readToEnd() == Data(LoopbackServer.bytes(half) + LoopbackServer.bytes(half)))
        #expect(proxy.stop() == 0, "\(proxy.errors)")
    }
}
