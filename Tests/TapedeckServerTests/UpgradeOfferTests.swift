import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Requests that offer to change the connection (`Upgrade: h2c`) or keep an HTTP/1.0 one, as
/// real clients send them: Java's default `HttpClient` and `curl --http2` offer h2c on every new
/// `http://` connection.
@Suite("Server: upgrade offers and HTTP/1.0 keep-alive", .serialized)
struct UpgradeOfferTests {
    @Test("an h2c offer is ignored as HTTP/1.1 allows: record forwards (without Upgrade) and records it, serve answers it; the next request on either gets its answer, not a 10 s wait")
    func h2cOffer() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("h2c.har.gz")
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            // curl --http2 on http:// sends `Connection: Upgrade, HTTP2-Settings`, `Upgrade: h2c`.
            let live = try curl(["--http2", "--max-time", "5", proxy.base + "/headers", "-o", "/dev/null", proxy.base + "/get?second=1"])
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(live.status == 0, "\(live.errors)")
            #expect(statuses(live) == [200, 200], "\(live.head)")
            let recorded = try CassetteFile.read(cassette).interactions
            #expect(recorded.map(\.request.url.path) == ["/headers", "/get"])
            let echoed = String(decoding: recorded.first?.response?.body ?? Data(), as: UTF8.self).lowercased()
            #expect(echoed.contains("user-agent") && !echoed.contains("h2c") && !echoed.contains("http2-settings"),
                    "the offer is the hop's, not forwarded: \(echoed)")

            let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
            let replayed = try curl(["--http2", "--max-time", "5", server.base + "/headers", "-o", "/dev/null", server.base + "/get?second=1"])
            server.stop()
            #expect(replayed.status == 0 && statuses(replayed) == [200, 200], "\(replayed.head) \(replayed.errors)")
        }
    }

    @Test("an HTTP/1.0 client that asks to keep the connection is told it is kept (Connection: keep-alive); one that does not is answered and closed")
    func http10KeepAlive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("sample.har")
        try CassetteFile.write(sampleCassette(), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        defer { server.stop() }
        let exchange = rawExchange(port: server.port, send: Data((
            "GET /missing HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + "GET /missing HTTP/1.0\r\n\r\n").utf8), shutdownWrite: false)
        let text = String(decoding: exchange.received, as: UTF8.self)
        let heads = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.lowercased() }
        #expect(!exchange.timedOut, "the second answer ends the connection")
        #expect(heads.count == 2, "\(text)")
        #expect(heads.first?.contains("connection: keep-alive") == true, "\(text)")
        #expect(heads.last?.contains("connection: close") == true, "\(text)")
    }

    private func statuses(_ run: CurlRun) -> [Int] {
        run.head.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/") }.compactMap { Int($0.split(separator: " ")[1]) }
    }
}
