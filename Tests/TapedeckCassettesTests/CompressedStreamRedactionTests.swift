import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// A gzip-compressed event stream whose lines hold secrets keeps its recorded pace once redacted.
@Suite("Redaction: a gzip stream's pieces")
struct CompressedStreamRedactionTests {
    @Test("each redacted piece is compressed to where it ends: the pieces keep their times and each decodes to its own events, the secret gone")
    func gzipStreamKeepsItsPieces() throws {
        // Given an event stream sent through gzip with a sync flush after each event, three pieces 200 ms apart
        let events = ["data: {\"n\":1}\n\n", "data: {\"n\":2,\"access_token\":\"tok-9f8e7d6c5b4a\"}\n\n", "data: {\"n\":3}\n\n"]
        let (wire, chunks) = try gzipEventStream(events, at: [.zero, .milliseconds(200), .milliseconds(400)])
        var response = RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "text/event-stream"), HeaderField("Content-Encoding", "gzip")], body: wire)
        response.chunks = chunks
        let interaction = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://a.test/events")!), outcome: .response(response))

        // When it is redacted
        let redacted = try #require(Redactor().redact(interaction).response)

        // Then the pieces keep their times, add up to the body, and each decodes to its own event
        let pieces = try #require(redacted.chunks)
        #expect(pieces.map(\.at) == chunks.map(\.at))
        #expect(pieces.reduce(0) { $0 + $1.bytes } == redacted.body.count)
        let inflater = try Inflater(format: .gzip)
        var offset = redacted.body.startIndex
        var decoded: [String] = []
        for piece in pieces {
            decoded.append(String(decoding: try inflater.append(Data(redacted.body[offset..<offset + piece.bytes])), as: UTF8.self))
            offset += piece.bytes
        }
        #expect(decoded == [events[0], "data: {\"n\":2,\"access_token\":\"REDACTED\"}\n\n", events[2]], "\(decoded)")
    }
}
