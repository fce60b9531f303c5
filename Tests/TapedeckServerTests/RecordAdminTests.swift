import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport

/// `record`'s own ready check: answered by the recorder, never forwarded nor recorded.
@Suite("Server: the recorder's health check")
struct RecordAdminTests {
    @Test("GET /__tapedeck/health is answered by record itself; other admin paths are refused; the cassette holds only the real exchange")
    func health() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try health(upstream) }
    }

    private func health(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("health.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        defer { proxy.stop() }
        let health = try curl([proxy.base + "/__tapedeck/health"])
        #expect(health.code == 200 && health.body == Data("ok\n".utf8))
        #expect(try curl([proxy.base + "/__tapedeck/misses"]).code == 404)
        #expect(try curl(["-H", "Host: example.com", proxy.base + "/__tapedeck/health"]).code == 403)
        #expect(try curl([proxy.base + "/get"]).code == 200)
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        #expect(try CassetteFile.read(cassette).interactions.map { $0.request.url.path } == ["/get"])
    }
}
