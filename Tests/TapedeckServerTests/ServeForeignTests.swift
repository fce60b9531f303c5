import Foundation
import Testing
import TapedeckTestSupport

/// `tapedeck serve` given another tool's cassette: curl gets what that tool recorded, identical
/// requests their answers in recorded order, and the file is never rewritten.
@Suite("Server: serving vcrpy and go-vcr cassettes as they are", .serialized)
struct ServeForeignTests {
    @Test("a go-vcr cassette served to curl: the body recorded, the counter's two answers in order, a note at start")
    func goVCR() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("go-vcr.yaml")
        try FileManager.default.copyItem(at: fixturesDirectory.appendingPathComponent("interop/foreign/go-vcr.yaml"), to: cassette)
        let before = try Data(contentsOf: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        defer { server.stop() }
        let user = try curl(["-x", server.base, "http://127.0.0.1:40647/users/1"])
        let first = try curl(["-x", server.base, "http://127.0.0.1:40647/counter"])
        let second = try curl(["-x", server.base, "http://127.0.0.1:40647/counter"])
        #expect(user.code == 200 && user.body == Data(#"{"id": 1, "name": "Ada"}"#.utf8), "\(user.head)")
        #expect(first.body == Data(#"{"count": 1}"#.utf8) && second.body == Data(#"{"count": 2}"#.utf8),
                "\(String(decoding: first.body, as: UTF8.self)) \(String(decoding: second.body, as: UTF8.self))")
        #expect(server.errors.contains("is a go-vcr cassette, read as it is"), "\(server.errors)")
        #expect(try Data(contentsOf: cassette) == before)
    }
}

/// `tapedeck serve` given a WireMock folder: its stubs answer a client that calls the server
/// directly (any host: the mappings have none).
@Suite("Server: serving a WireMock folder", .serialized)
struct ServeWireMockTests {
    @Test("curl calling serve directly gets the mappings' answers, the scenario's in order, the body file's bytes")
    func wireMockFolder() throws {
        let server = try ServerProcess(["serve", fixturesDirectory.appendingPathComponent("interop/foreign/wiremock").path, "--timing", "instant"])
        defer { server.stop() }
        let first = try curl([server.base + "/counter"])
        let second = try curl([server.base + "/counter"])
        let image = try curl([server.base + "/image.png"])
        let missing = try curl([server.base + "/missing"])
        #expect(first.body == Data(#"{"count": 1}"#.utf8) && second.body == Data(#"{"count": 2}"#.utf8))
        #expect(image.code == 200 && image.body.count == 209)
        #expect(missing.code == 404 && missing.body == Data("Not Found\n".utf8))
        #expect(server.errors.contains("is WireMock mappings, read as it is"), "\(server.errors)")
        // The stub matching by pattern (urlPathPattern /search/.*) answers whatever it matches, every time.
        for path in ["/search/swift", "/search/swift", "/search/a/b"] {
            let found = try curl([server.base + path])
            #expect(found.code == 200 && found.body == Data("[]".utf8), "\(path): \(found.head)")
        }
        #expect(try curl([server.base + "/searching"]).code == 404)
    }

    @Test("a Hoverfly simulation served as it is: its glob pair answers any path it matches")
    func hoverflyGlob() throws {
        let server = try ServerProcess(["serve", fixturesDirectory.appendingPathComponent("interop/foreign/hoverfly.json").path, "--timing", "instant"])
        defer { server.stop() }
        let found = try curl([server.base + "/search/anything"])
        #expect(found.code == 200 && found.body == Data("[]".utf8), "\(found.head)")
        // A proxy-style request for a recorded pair still goes to its recorded origin: the stub's
        // stand-in request names none.
        let proxied = try curl(["--proxy", server.base, "http://api.example.com/users/1"])
        #expect(proxied.code == 200, "\(proxied.head)")
    }
}
