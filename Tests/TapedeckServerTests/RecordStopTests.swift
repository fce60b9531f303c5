import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Stopping `tapedeck record` (SIGTERM) while a client is still reading a large answer: what
/// standard error says, what the cassette holds and the exit status tell one story.
@Suite("Server: stopping record with a request under way", .serialized)
struct RecordStopTests {
    @Test("a slow download still under way at SIGTERM is cut off, named on stderr and left out of the cassette; the stop exits 0 and a replay misses it instead of answering 502")
    func slowDownloadAtStop() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try slowDownloadAtStop(upstream) }
    }

    private func slowDownloadAtStop(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("stopped.har")
        // Given a recording with one exchange done, and a client that asked for 32 MB and reads
        // nothing after the first bytes (the proxy paces the upstream by the client: the answer
        // cannot complete while it does not read).
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path,
                                       "--upstream-timeout", "1"])
        #expect(try curl([proxy.base + "/get?n=1"]).code == 200)
        let client = try RawClient(port: proxy.port)
        try client.send("GET /large/32?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try client.readBody(atLeast: 1)

        // When the recorder is stopped (it waits the upstream timeout plus 2 s, then cuts off).
        let status = proxy.stop(SIGTERM)

        // Then it exits 0 having written the cassette, and names the request it cut off.
        #expect(status == 0, "\(proxy.errors)")
        #expect(proxy.errors.contains("1 request was still under way after") && proxy.errors.contains("cut off: not recorded")
                && proxy.errors.contains(": GET /large/32?token="), "\(proxy.errors)")
        #expect(!proxy.errors.contains("s3cret") && !proxy.errors.contains("simulation") && !proxy.errors.contains("problem"), "\(proxy.errors)")
        #expect(proxy.errors.contains("cassette has 1 interaction"), "\(proxy.errors)")
        // And the cassette holds only the finished exchange: no failure entry for the cut one.
        let recorded = try CassetteFile.read(cassette).interactions
        #expect(recorded.map(\.request.url.path) == ["/get"], "\(recorded.map(\.outcome))")
        // And the client never got the whole answer.
        #expect((try? client.readToEnd().count).map { $0 < 32 * 1_048_576 } ?? true)

        // A replay of the cassette misses the cut-off request (404), rather than answering it 502.
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        defer { server.stop() }
        #expect(try curl([server.base + "/large/32?token=s3cret"]).code == 404)
    }

    @Test("SIGHUP stops record as SIGTERM does; with a request under way the stop says at once what it waits for, and a second signal cuts the wait short")
    func hangUpThenSecondSignal() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try hangUpThenSecondSignal(upstream) }
    }

    private func hangUpThenSecondSignal(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("hung-up.har")
        // Given a recording whose drain would wait 10 minutes, and a client stuck mid-answer
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path,
                                       "--upstream-timeout", "600"])
        #expect(try curl([proxy.base + "/get?n=1"]).code == 200)
        let client = try RawClient(port: proxy.port)
        try client.send("GET /large/32 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try client.readBody(atLeast: 1)
        // When the terminal hangs up, the stop begins and says so
        kill(proxy.process.processIdentifier, SIGHUP)
        let said = ContinuousClock.now + .seconds(60)
        while !proxy.errors.contains("stopping (signal \(SIGHUP))") && ContinuousClock.now < said { Thread.sleep(forTimeInterval: 0.01) }
        #expect(proxy.errors.contains("waiting up to 602.0 seconds for the requests under way (a second signal cuts them off now)"), "\(proxy.errors)")
        // And a second signal ends the wait: the request is cut off, the cassette written, exit 0
        // (without it the stop would wait the 602 s; 60 s is the bound here)
        kill(proxy.process.processIdentifier, SIGINT)
        let ended = ContinuousClock.now + .seconds(60)
        while proxy.process.isRunning && ContinuousClock.now < ended { Thread.sleep(forTimeInterval: 0.01) }
        #expect(!proxy.process.isRunning, "the second signal did not end the wait")
        #expect(proxy.stop(SIGKILL) == 0, "\(proxy.errors)")
        #expect(proxy.errors.contains("cut off: not recorded") && proxy.errors.contains("cassette has 1 interaction"), "\(proxy.errors)")
    }

    @Test("a client that hung up mid-answer just before SIGTERM: its upstream exchange is stopped and not recorded, and the stop exits 0 with no problem reported")
    func hungUpClientAtStop() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try hungUpClientAtStop(upstream) }
    }

    private func hungUpClientAtStop(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("hung-up.har")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        #expect(try curl([proxy.base + "/get?n=1"]).code == 200)
        // A client reads the first half of an answer the upstream holds back the rest of, and
        // hangs up: the server no longer counts it, while the recorder hears of it later.
        do {
            let client = try RawClient(port: proxy.port)
            try client.send("GET /gated/hung-up-at-stop/10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            _ = try client.readBody(atLeast: 1)
        }
        let status = proxy.stop(SIGTERM)
        #expect(status == 0, "\(proxy.errors)")
        #expect(!proxy.errors.contains("still running") && !proxy.errors.contains("problem"), "\(proxy.errors)")
        #expect(proxy.errors.contains("cassette has 1 interaction"), "\(proxy.errors)")
        #expect(try CassetteFile.read(cassette).interactions.map(\.request.url.path) == ["/get"])
    }

    @Test("an upload still sending its body at SIGTERM is waited for, then named on stderr (its token redacted) as cut off and not recorded; the stop exits 0")
    func uploadStillSendingAtStop() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try uploadStillSendingAtStop(upstream) }
    }

    private func uploadStillSendingAtStop(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("upload.har")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path,
                                       "--upstream-timeout", "1"])
        #expect(try curl([proxy.base + "/get?n=1"]).code == 200)
        // A client that announced 100,000 bytes and has sent 10 so far.
        let client = try RawClient(port: proxy.port)
        try client.send("POST /post?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
        // The proxy has read the head (and listed the request) once it says 100 Continue.
        let interim = String(decoding: try client.readOnce(), as: UTF8.self)
        #expect(interim.hasPrefix("HTTP/1.1 100"), "\(interim)")
        try client.send("0123456789")
        let status = proxy.stop(SIGTERM)
        #expect(status == 0, "\(proxy.errors)")
        #expect(proxy.errors.contains("1 request was still sending its body after") && proxy.errors.contains("not forwarded, not recorded: POST /post?token=REDACTED"),
                "\(proxy.errors)")
        #expect(!proxy.errors.contains("s3cret"), "\(proxy.errors)")
        #expect(try CassetteFile.read(cassette).interactions.map(\.request.url.path) == ["/get"])
    }
}
