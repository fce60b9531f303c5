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

    static func cassette(in directory: TemporaryDirectory, chunks: Bool, body: Data = Data(events.joined().utf8),
                         pieces: [BodyChunk] = [BodyChunk(bytes: 11, at: .zero), BodyChunk(bytes: 11, at: .milliseconds(500)),
                                                BodyChunk(bytes: 13, at: .milliseconds(1_500))]) throws -> URL {
        let file = directory.file(chunks ? "paced.har" : "whole.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/events")!),
                        outcome: .response(RecordedResponse(
                            status: 200, headers: [HeaderField("Content-Type", "text/event-stream")], body: body, chunks: chunks ? pieces : nil)),
                        timings: ExchangeTimings(wait: .milliseconds(40), receive: .milliseconds(2_000))),
        ]), to: file)
        return file
    }

    /// Each piece a stream handler got, with its virtual time (the completion as "end"), and the
    /// text the async sequence read.
    static func replay(_ file: URL, timing: Tape.Timing = .asRecorded) async throws -> (pieces: [(String, Duration)], read: String) {
        let tape = try Tape(cassette: file, mode: .replayOnly, timing: timing)
        let scheduler = tape.scheduler
        let pieces = Mutex<[(String, Duration)]>([])
        let read = await DefaultTransport.$current.withValue(tape.makeClientTransport()) {
            let session = Session()
            let request = session.streamRequest("http://api.test/events").responseStream { stream in
                let now = VirtualInstant.zero.duration(to: scheduler.now)
                if let data = stream.value { pieces.withLock { $0.append((String(decoding: data, as: UTF8.self), now)) } }
                if stream.completion != nil { pieces.withLock { $0.append(("end", now)) } }
            }
            var text = ""
            for await event in request.streamTask().streamingStrings() { text += event.value ?? "" }
            return text
        }
        return (pieces.withLock { $0 }, read)
    }

    @Test("pieces arrive as recorded: the same bytes, 0.5 s and 1.5 s after the first; the body ends at its recorded 2 s",
          .timeLimit(.minutes(1)))
    func paced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (pieces, read) = try await Self.replay(try Self.cassette(in: directory, chunks: true))
        #expect(pieces.map(\.0) == Self.events + ["end"])
        #expect(read == Self.events.joined())
        let start = try #require(pieces.first?.1)
        #expect(pieces.map { $0.1 - start } == [.zero, .milliseconds(500), .milliseconds(1_500), .milliseconds(2_000)])
    }

    @Test("a replayed stream of 50,000 pieces all due at once arrives whole (no recursion per piece)", .timeLimit(.minutes(1)))
    func manyPiecesAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let count = 50_000
        let file = try Self.cassette(in: directory, chunks: true, body: Data(repeating: UInt8(ascii: "x"), count: count),
                                     pieces: Array(repeating: BodyChunk(bytes: 1, at: .zero), count: count))
        let (pieces, read) = try await Self.replay(file, timing: .instant)
        #expect(pieces.count == count + 1 && pieces.last?.0 == "end")
        #expect(read.utf8.count == count)
    }

    @Test("a body recorded without pieces arrives in one", .timeLimit(.minutes(1)))
    func whole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (pieces, _) = try await Self.replay(try Self.cassette(in: directory, chunks: false))
        #expect(pieces.map(\.0) == [Self.events.joined(), "end"])
    }

    /// A session delegate that hears the body's pieces (an SDK's metrics or auth delegate is
    /// often a data delegate too).
    final class PieceCounter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let pieces = Mutex<[Data]>([])
        let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            pieces.withLock { $0.append(data) }
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            finished.withLock { $0.take() }?.resume()
        }
    }

    @Test("in a session whose delegate is a data delegate, a completion-handler task gets a replayed stream whole, and a delegate task gets its pieces",
          .timeLimit(.minutes(1)))
    func completionHandlerInADelegateSession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try Self.cassette(in: directory, chunks: true)
        // Given a client's own session with a data delegate, and a recorded stream of three pieces
        let tape = try Tape(cassette: file, mode: .replayOnly, afterLast: .alwaysFirst)
        let counter = PieceCounter()
        let session = URLSession(configuration: tape.configuration(), delegate: counter, delegateQueue: nil)
        // When a completion-handler task asks for it
        let whole: Data = try await tape.serving {
            try await withCheckedThrowingContinuation { continuation in
                session.dataTask(with: URL(string: "http://api.test/events")!) { data, _, error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: data ?? Data()) }
                }.resume()
            }
        }
        // Then it has every piece, not only the last
        #expect(String(decoding: whole, as: UTF8.self) == Self.events.joined())
        // And a task without a handler gets the pieces through the delegate, as they were recorded
        try await tape.serving {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                counter.finished.withLock { $0 = continuation }
                session.dataTask(with: URL(string: "http://api.test/events")!).resume()
            }
        }
        #expect(counter.pieces.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } == Self.events)
        session.invalidateAndCancel()
    }
}
