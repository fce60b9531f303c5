import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records `requests` (written against `host`) from a fresh loopback server and writes the
/// cassette to `target` with `host` in place of the server's address and without `Date` headers,
/// so a committed fixture replays without a port and re-recording changes only timings.
func recordFixture(to target: URL, host: String, requests: [URLRequest]) async throws {
    let server = try await LoopbackServer.start()
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let recorded = directory.file(target.lastPathComponent)
    let tape = try Tape(cassette: recorded, mode: .all)
    let base = server.baseURL.absoluteString
    for request in requests {
        var local = request
        local.url = URL(string: request.url!.absoluteString.replacingOccurrences(of: host, with: base))
        _ = try? await tape.perform(local)
    }
    try tape.finish()
    var cassette = try CassetteFile.read(recorded)
    for position in cassette.interactions.indices {
        let url = cassette.interactions[position].request.url.absoluteString.replacingOccurrences(of: base, with: host)
        cassette.interactions[position].request.url = URL(string: url)!
        if case var .response(response) = cassette.interactions[position].outcome {
            response.headers.removeAll { $0.name.lowercased() == "date" }
            for index in response.headers.indices where response.headers[index].name.lowercased() == "location" {
                response.headers[index].value = response.headers[index].value.replacingOccurrences(of: base, with: host)
            }
            cassette.interactions[position].outcome = .response(response)
        }
    }
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try CassetteFile.write(cassette, to: target)
}

@Suite("Fixtures: recorded from the loopback server (TAPEDECK_REGENERATE_FIXTURES=1)")
struct FixtureRecording {
    /// `fixtures/cassettes/shop.har.gz`, the cassette the README's main command injects faults into.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TAPEDECK_REGENERATE_FIXTURES"] == "1"))
    func regenerateShopCassette() async throws {
        let host = "http://api.shop.test"
        let paths = ["/get?page=1", "/gzip", "/redirect/1", "/bytes/1500", "/delay/120", "/status/404", "/chunked/40"]
        try await recordFixture(
            to: fixturesDirectory.appendingPathComponent("cassettes/shop.har.gz"), host: host,
            requests: paths.map { URLRequest(url: URL(string: host + $0)!) })
    }
}
