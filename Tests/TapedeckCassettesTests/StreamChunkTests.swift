import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// `response._chunks`: a streamed body's pieces and their times, written and read back by both
/// HAR forms, refused gently when they do not fit the body, kept through redaction when they can be.
@Suite("Cassettes: streamed bodies keep their pieces")
struct StreamChunkTests {
    static let events = ["data: {\"n\":1}\n\n", "data: {\"n\":2}\n\n", "data: {\"n\":3}\n\n"]

    static func streamed(chunks: [BodyChunk]?) -> Interaction {
        Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/events")!),
                    outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "text/event-stream")],
                                                        body: Data(events.joined().utf8), chunks: chunks)),
                    timings: ExchangeTimings(wait: .milliseconds(3), receive: .milliseconds(900)))
    }

    static let chunks = [BodyChunk(bytes: 15, at: .zero), BodyChunk(bytes: 15, at: .milliseconds(450.5)), BodyChunk(bytes: 15, at: .milliseconds(900))]

    @Test("pieces and times survive .har and .har.gz, to the microsecond; a body without them has none", arguments: ["har", "har.gz"])
    func roundTrip(format: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("events.\(format)")
        try CassetteFile.write(Cassette(interactions: [Self.streamed(chunks: Self.chunks), Self.streamed(chunks: nil)]), to: file)
        let read = try CassetteFile.read(file).interactions
        #expect(read[0].response?.chunks == Self.chunks)
        #expect(read[1].response?.chunks == nil)
        if format == "har" {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""_chunks""#) && text.contains(#""time""#))
        }
    }

    @Test("pieces that do not add up to the body are ignored with a note; the entry still replays")
    func mismatchIgnored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("events.har")
        try CassetteFile.write(Cassette(interactions: [Self.streamed(chunks: Self.chunks)]), to: file)
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: #""bytes" : 15"#, with: #""bytes" : 16"#)
            .replacingOccurrences(of: #""bytes":15"#, with: #""bytes":16"#)
        try Data(text.utf8).write(to: file)
        let loaded = try CassetteFile.read(file)
        #expect(text.contains("16"))
        #expect(loaded.interactions.first?.response?.chunks == nil)
        #expect(loaded.interactions.first?.response?.body == Data(Self.events.joined().utf8))
        #expect(loaded.notes.contains { $0.field == "response._chunks" }, "\(loaded.notes)")
    }

    @Test("a malformed _chunks costs only the pacing: the entry is read, its body whole", arguments: [#""oops""#, #"[{"bytes":"x"}]"#, "[1,2]"])
    func malformedChunks(value: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("events.har")
        try CassetteFile.write(Cassette(interactions: [Self.streamed(chunks: Self.chunks)]), to: file)
        var text = try String(contentsOf: file, encoding: .utf8)
        let start = try #require(text.range(of: #""_chunks""#))
        let end = try #require(text.range(of: "]", range: start.upperBound..<text.endIndex))
        text.replaceSubrange(start.lowerBound..<end.upperBound, with: #""_chunks": "# + value)
        try Data(text.utf8).write(to: file)
        let read = try CassetteFile.read(file)
        #expect(read.interactions.first?.response?.chunks == nil)
        #expect(read.interactions.first?.response?.body == Data(Self.events.joined().utf8))
    }

    @Test("the player hands the pieces and their times to the network")
    func playerPlan() throws {
        guard case let .response(plan) = CassettePlayer.reply(for: Self.streamed(chunks: Self.chunks)) else {
            Issue.record("expected a response")
            return
        }
        #expect(plan.chunkSizes == [15, 15, 15])
        #expect(plan.chunkOffsets == [.zero, .milliseconds(450.5), .milliseconds(900)])
    }

    @Test("redaction: each JSON line and each event's data is redacted; the pieces follow the redacted lines, each at its time")
    func redaction() throws {
        let redactor = Redactor()
        func response(_ type: String, _ text: String, _ sizes: [Int]) throws -> RecordedResponse {
            var at = Duration.zero
            let chunks = sizes.map { size -> BodyChunk in
                defer { at += .milliseconds(100) }
                return BodyChunk(bytes: size, at: at)
            }
            let interaction = Interaction(
                index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/stream")!),
                outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", type)], body: Data(text.utf8), chunks: chunks)))
            return try #require(redactor.redact(interaction).response)
        }
        let lines = #"{"access_token":"abc123","n":1}"# + "\n" + #"{"n":2}"# + "\n"
        let ndjson = try response("application/x-ndjson", lines, [32, 8])
        let text = String(decoding: ndjson.body, as: UTF8.self)
        #expect(!text.contains("abc123") && text.contains("REDACTED") && text.hasSuffix(#"{"n":2}"# + "\n"), "\(text)")
        #expect(ndjson.chunks?.map(\.at) == [.zero, .milliseconds(100)])
        #expect(ndjson.chunks?.last?.bytes == 8 && ndjson.chunks.map { $0.reduce(0) { $0 + $1.bytes } } == ndjson.body.count)

        let events = "data: " + #"{"refresh_token":"r-9"}"# + "\n\n" + "data: [DONE]\n\n"
        let sse = try response("text/event-stream", events, [31, 14])
        #expect(String(decoding: sse.body, as: UTF8.self).hasPrefix("data: {") && !String(decoding: sse.body, as: UTF8.self).contains("r-9"))
        #expect(sse.chunks?.count == 2)

        // A secret cut across two pieces: redacted all the same; the first piece ends at the same
        // place in the redacted line, the second takes the rest, each at its time.
        let cut = try response("application/x-ndjson", lines, [20, 20])
        #expect(!String(decoding: cut.body, as: UTF8.self).contains("abc123"))
        #expect(cut.chunks?.map(\.bytes) == [20, cut.body.count - 20])
        #expect(cut.chunks?.map(\.at) == [.zero, .milliseconds(100)])
        // A piece that ends exactly at a redacted line's end ends at the redacted line's end.
        let whole = try response("application/x-ndjson", #"{"token":"t"}"# + "\n" + #"{"n":2}"# + "\n", [14, 8])
        #expect(String(decoding: whole.body, as: UTF8.self) == #"{"token":"REDACTED"}"# + "\n" + #"{"n":2}"# + "\n")
        #expect(whole.chunks?.map(\.bytes) == [21, 8])
        // A long secret (the redacted line is shorter), CRLF lines and no final newline: a piece
        // that ended inside the secret ends at the redacted line's end; the bytes all add up.
        let long = #"{"access_token":"0123456789abcdefghijklmnopqrstuvwxyz"}"# + "\r\n" + #"{"n":2}"#
        let shrunk = try response("application/x-ndjson", long, [40, long.utf8.count - 40])
        let shrunkText = String(decoding: shrunk.body, as: UTF8.self)
        #expect(shrunkText == #"{"access_token":"REDACTED"}"# + "\r\n" + #"{"n":2}"#, "\(shrunkText)")
        #expect(shrunk.chunks?.map(\.bytes) == [29, 7])   // the redacted line with its CRLF, then the last line
        #expect(shrunk.chunks?.map(\.at) == [.zero, .milliseconds(100)])
    }
}
