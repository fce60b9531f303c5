import Foundation
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Re-records the fixture cassettes from a fresh loopback server (run through
// `tools/regenerate-fixtures`; see fixtures/README.md). Each cassette's requests are written
// against a made-up host, which replaces the server's address in the cassette, so a fixture
// replays without a port; `Date` headers are dropped, so re-recording changes only timings.

/// Where the repository is: the first argument, or the current directory. Further arguments name
/// the cassettes to re-record (shop, login, api); none: all of them.
let repository = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? FileManager.default.currentDirectoryPath)

/// Records `requests` (written against `host`) and writes the cassette to `target`.
func recordFixture(to target: URL, host: String, requests: [URLRequest]) async throws {
    let server = try await LoopbackServer.start()
    defer { server.stop() }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-fixtures-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let recorded = scratch.appendingPathComponent(target.lastPathComponent)
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
    print("wrote \(target.path) (\(cassette.interactions.count) entries)")
}

/// `fixtures/cassettes/shop.har.gz`, the cassette `docs/examples/scenarios/cassette.yaml` and the
/// cassette tests replay.
func shopCassette() async throws {
    let host = "http://api.shop.test"
    let paths = ["/get?page=1", "/gzip", "/redirect/1", "/bytes/1500", "/delay/120", "/status/404", "/chunked/40"]
    try await recordFixture(
        to: repository.appendingPathComponent("fixtures/cassettes/shop.har.gz"), host: host,
        requests: paths.map { URLRequest(url: URL(string: host + $0)!) })
}

/// `Tests/TapedeckTestingTests/Cassettes/login.har.gz`, which the trait and XCTest helper tests
/// replay (the same requests as in that target's Support.swift).
func loginCassette() async throws {
    let api = "http://api.tapedeck.test"
    var login = URLRequest(url: URL(string: api + "/echo")!)
    login.httpMethod = "POST"
    login.setValue("application/json", forHTTPHeaderField: "Content-Type")
    login.httpBody = Data(#"{"user":"ada","password":"correct horse"}"#.utf8)
    var profile = URLRequest(url: URL(string: api + "/headers")!)
    profile.setValue("Bearer live-token-123", forHTTPHeaderField: "Authorization")
    try await recordFixture(
        to: repository.appendingPathComponent("Tests/TapedeckTestingTests/Cassettes/login.har.gz"), host: api,
        requests: [login, profile] + ["/gzip", "/get?user=ada", "/status/404"].map { URLRequest(url: URL(string: api + $0)!) })
}

/// `fixtures/cassettes/api.har.gz`, the shop API the fixture scenarios (fixtures/scenarios) run over.
func apiCassette() async throws {
    let host = "http://api.shop.test"
    let paths = ["/api/items", "/api/items/1", "/api/items/2", "/api/items/3", "/api/me", "/api/orders", "/api/report", "/api/search?q=tape"]
    var requests = paths.map { URLRequest(url: URL(string: host + $0)!) }
    for index in requests.indices where paths[index] == "/api/report" {
        requests[index].setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
    }
    try await recordFixture(to: repository.appendingPathComponent("fixtures/cassettes/api.har.gz"), host: host, requests: requests)
}

let only = Set(CommandLine.arguments.dropFirst(2))
if only.isEmpty || only.contains("shop") { try await shopCassette() }
if only.isEmpty || only.contains("login") { try await loginCassette() }
if only.isEmpty || only.contains("api") { try await apiCassette() }
