import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A recorded stream replays into a stream request in its recorded pieces, at its recorded pace
/// on the virtual clock; a body recorded without pieces arrives in one.
@Suite("Tape: streamed bodies replay piece by piece")
struct StreamTapeTests {
    static let events = ["data: one\n\n", "data: two\n\n", "data: three\n\n"]

    static func cassette(in directory: TemporaryDirectory, chunks: Bool) throws -> URL {
        let file = directory.file(chunks ? "paced.har" : "whole.har")
        let body = Data(events.joined().utf8)
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/events")!),
                        outcome: .response(RecordedResponse(
                            status: 200, headers: [HeaderField("Content-Type", "text/event-stream")], body: body,
                            chunks: chunks ? [BodyChunk(bytes: 11, at: .zero), BodyChunk(bytes: 11, at: .milliseconds(500)),
                                              BodyChunk(bytes: 13, at: .milliseconds(2_000))] : nil)),
                        timings: ExchangeTimings(wait: .milliseconds(40), receive: .milliseconds(2_000))),
        ]), to: file)
        return file
    }

    /// Each piece a stream handler got, with its virtual time, and the text the async sequence read.
    static func replay(_ file: URL) async throws -> (pieces: [(String, Duration)], read: String) {
        let tape = try Tape(cassette: file, mode: .replayOnly)
        let scheduler = tape.scheduler
        let pieces = Mutex<[(String, Duration)]>([])
        let read = await DefaultTransport.$current.withValue(tape.makeClientTransport()) {
            let session = Session()
            let request = session.streamRequest("http://api.test/events").responseStream { stream in
                if let data = stream.value {
                    pieces.withLock { $0.append((String(decoding: data, as: UTF8.self), VirtualInstant.zero.duration(to: scheduler.now))) }
                }
            }
            var text = ""
            for await event in request.streamTask().streamingStrings() { text += event.value ?? "" }
            return text
        }
        return (pieces.withLock { $0 }, read)
    }

    @Test("pieces arrive as recorded: the same bytes, 0.5 s and 2 s after the first", .timeLimit(.minutes(1)))
    func paced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (pieces, read) = try await Self.replay(try Self.cassette(in: directory, chunks: true))
        #expect(pieces.map(\.0) == Self.events)
        #expect(read == Self.events.joined())
        let start = try #require(pieces.first?.1)
        #expect(pieces.map { $0.1 - start } == [.zero, .milliseconds(500), .milliseconds(2_000)])
    }

    @Test("a body recorded without pieces arrives in one", .timeLimit(.minutes(1)))
    func whole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (pieces, _) = try await Self.replay(try Self.cassette(in: directory, chunks: false))
        #expect(pieces.map(\.0) == [Self.events.joined()])
    }
}
