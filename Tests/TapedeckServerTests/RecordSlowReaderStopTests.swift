import Foundation
import Testing
import TapedeckCassettes
import TapedeckServer
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Stopping `tapedeck record` while a slow client is still reading an answer that is complete on
/// the proxy's side: the stop's wait covers the answer's writing too, and one still being written
/// when the wait ends is cut off and named — never reset, or cut short, silently.
@Suite("Server: stopping record while a slow client reads a complete answer", .serialized)
struct RecordSlowReaderStopTests {
    /// 12 MiB: more than the kernel holds for a client that reads nothing (its receive buffer is
    /// set small; the proxy's send buffer grows to 4 MiB at most here), so the answer cannot be
    /// handed whole to the kernel before the client reads.
    static let bodyBytes = 12 << 20

    /// A cassette of one large answer to `GET /big?token=…` from `upstream` (never asked: the
    /// proxy replays it, in mode once over an existing cassette).
    private func largeCassette(_ directory: TemporaryDirectory, upstream: String) throws -> URL {
        let cassette = directory.file("large.har")
        let request = RecordedRequest(method: "GET", url: URL(string: upstream + "/big?token=REDACTED")!)
        let response = RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/octet-stream")],
                                        body: Data(repeating: UInt8(ascii: "a"), count: Self.bodyBytes))
        try CassetteFile.write(Cassette(interactions: [Interaction(index: 0, request: request, outcome: .response(response))]), to: cassette)
        return cassette
    }

    @Test("an answer still being written to a client that reads nothing when the stop's wait ends is cut off and named with what the cassette holds, after the wait and before the stop line; exit 0")
    func unreadAnswerCutOffAndNamed() async throws {
        try await blocking { try unreadAnswerCutOffAndNamed() }
    }

    private func unreadAnswerCutOffAndNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let upstream = "http://127.0.0.1:9"
        let cassette = try largeCassette(directory, upstream: upstream)
        // Given a replaying recorder, and a client that asked for the large answer and reads nothing
        let proxy = try ServerProcess(["record", "--upstream", upstream, "--cassette", cassette.path, "--upstream-timeout", "1"])
        let client = try SmallWindowClient(port: proxy.port)
        try client.send("GET /big?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try client.read(atLeast: 1)   // the answer is under way
        // When the recorder is stopped
        let status = proxy.stop(SIGINT)
        // Then it waited for the answer, cut it off when the wait ended, named it with what the
        // cassette holds (its token redacted), and only then stopped, exit 0
        let errors = proxy.errors
        #expect(status == 0, "\(errors)")
        let waiting = errors.range(of: "stopping (signal \(SIGINT)): waiting up to 3.0 seconds for the requests under way")
        let named = errors.range(of: "1 answer was still being written to its client after ")
        let stopped = errors.range(of: "stopped (signal \(SIGINT))")
        #expect(waiting != nil && named != nil && stopped != nil, "\(errors)")
        if let waiting, let named, let stopped {
            #expect(waiting.lowerBound < named.lowerBound && named.lowerBound < stopped.lowerBound, "\(errors)")
        }
        #expect(errors.contains("and cut off, its connection reset: GET /big?token=REDACTED (replayed from the cassette)"), "\(errors)")
        #expect(!errors.contains("s3cret") && !errors.contains("problem"), "\(errors)")
        // And the client never got the whole answer (nor an end that looks like one)
        #expect(client.readToEnd() < Self.bodyBytes)
    }

    @Test("a client that reads a complete answer slowly gets all of it when the stop comes while it reads: the stop waits for the answer's writing, names nothing, exits 0")
    func slowReaderGetsWholeAnswer() async throws {
        try await blocking { try slowReaderGetsWholeAnswer() }
    }

    private func slowReaderGetsWholeAnswer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let upstream = "http://127.0.0.1:9"
        let cassette = try largeCassette(directory, upstream: upstream)
        let proxy = try ServerProcess(["record", "--upstream", upstream, "--cassette", cassette.path, "--upstream-timeout", "600"])
        let client = try SmallWindowClient(port: proxy.port)
        try client.send("GET /big?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        _ = try client.read(atLeast: 1)
        // When the stop comes while the client has read next to nothing
        kill(proxy.process.processIdentifier, SIGTERM)
        // Then it says it waits (the answer is not with the kernel yet: the client reads nothing)
        let said = ContinuousClock.now + .seconds(60)
        while !proxy.errors.contains("stopping (signal \(SIGTERM))") && ContinuousClock.now < said { Thread.sleep(forTimeInterval: 0.01) }
        #expect(proxy.errors.contains("waiting up to 602.0 seconds for the requests under way"), "\(proxy.errors)")
        // And the client, reading on, gets the whole answer; the stop names nothing and exits 0
        let received = client.readToEnd()
        #expect(received >= Self.bodyBytes, "got \(received) bytes")
        proxy.process.waitUntilExit()   // it stops by itself once the answer is written
        #expect(proxy.process.terminationStatus == 0, "\(proxy.errors)")
        #expect(!proxy.errors.contains("cut off") && proxy.errors.contains("stopped (signal \(SIGTERM))"), "\(proxy.errors)")
    }

    @Test("in process: a streamed answer the service ended stays on the server's list of answers not written whole while its client reads nothing; taken off it, it keeps its service's note, and its reset reaches the client")
    func unwrittenListAndNote() throws {
        let service = StreamingService()
        var options = ServerOptions()
        options.threads = 1
        options.tracksUnwrittenAnswers = true
        let server = try TapedeckHTTPServer(service: service, options: options)
        defer { try? server.shutdown() }
        let client = try SmallWindowClient(port: server.port)
        try client.send("GET /streamed HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try client.read(atLeast: 1)
        // The service has ended the answer once the request is no longer in flight
        while server.inFlight > 0 { sched_yield() }   // polls the count, not a clock
        #expect(server.unwrittenAnswers == 1)
        let taken = server.takeUnwritten()
        #expect(taken.map(\.name) == ["GET /streamed"])
        #expect(taken.first?.noted == .said("ended by the test service"))
        #expect(server.unwrittenAnswers == 0)
        taken.forEach { $0.reset() }
        #expect(client.readToEnd() < Self.bodyBytes)
    }
}

/// Streams a 12 MiB answer in 1 MiB pieces and ends it at once, noting so.
private struct StreamingService: ExchangeService {
    func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        guard let stream = request.stream else { return answer(.text(500, "no stream\n")) }
        stream.head(ServerAnswer(status: 200, headers: [HeaderField("Content-Length", "\(RecordSlowReaderStopTests.bodyBytes)")]))
        for _ in 0..<(RecordSlowReaderStopTests.bodyBytes >> 20) { stream.body(Data(repeating: 0x61, count: 1 << 20)) }
        stream.note(.said("ended by the test service"))
        stream.end()
    }
}

/// A client whose receive buffer is set small before it connects (so the kernel holds little of
/// what it does not read), reading only when told.
private final class SmallWindowClient {
    private let descriptor: Int32
    private var received = 0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int) throws {
        guard let descriptor = loopbackSocket(port: port, timeoutSeconds: 60, receiveBuffer: 4_096) else {
            throw Failure(description: "cannot connect to port \(port)")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        let bytes = Data(text.utf8)
        let sent = bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure(description: "send failed") }
    }

    /// Reads until at least `count` bytes (head included) have arrived; returns how many have.
    func read(atLeast count: Int) throws -> Int {
        while received < count {
            guard readSome() == .some(true) else { throw Failure(description: "closed after \(received) bytes") }
        }
        return received
    }

    /// Reads until the end of the stream, a reset or a 60 s silence; returns every byte received
    /// (head included).
    func readToEnd() -> Int {
        while readSome() == .some(true) {}
        return received
    }

    /// One recv: true for bytes, false at the end, nil for a reset or a timeout.
    private func readSome() -> Bool? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received += count
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            return nil
        }
    }
}
