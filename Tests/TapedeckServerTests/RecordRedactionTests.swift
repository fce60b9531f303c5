import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTestSupport
@testable import TapedeckServer

/// What `tapedeck record` redacts: secrets inside compressed request bodies and inside responses
/// coded twice, and the cookies it may keep in clear when told.
@Suite("Server: what the recording proxy redacts", .serialized)
struct RecordRedactionTests {
    private static let login = #"{"user": "bob", "password": "hunter22secret", "access_token": "tok_abcdef123456"}"#

    /// The cassette's whole text (the .har.gz decompressed), and each stored body's content with
    /// its codings undone: where a secret could hide.
    private func everything(in cassette: URL) throws -> String {
        var text = String(decoding: try Zlib.decompress(try Data(contentsOf: cassette), format: .gzip), as: UTF8.self)
        for interaction in try CassetteFile.read(cassette).interactions {
            if let body = interaction.request.body {
                text += String(decoding: try undo(body, interaction.request.headers.value(for: "Content-Encoding")), as: UTF8.self)
            }
            if let response = interaction.response, response.bodyForm == .wire {
                text += String(decoding: try undo(response.body, response.headers.value(for: "Content-Encoding")), as: UTF8.self)
            }
        }
        return text
    }

    private func undo(_ body: Data, _ coding: String?) throws -> Data {
        var content = body
        for name in (coding ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).reversed() where !name.isEmpty {
            content = try ContentCoding.decode(content, contentEncoding: name)
        }
        return content
    }

    @Test("a login body the client gzipped is recorded redacted inside its gzip; validate finds nothing; serve matches the same login gzipped anew, not another")
    func gzippedUpload() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("login.har.gz")
            let sent = directory.file("login.json.gz"), again = directory.file("again.json.gz"), other = directory.file("other.json.gz")
            try Zlib.compress(Data(Self.login.utf8), format: .gzip).write(to: sent)
            try Zlib.compress(Data(Self.login.utf8), format: .gzip, level: 1).write(to: again)
            try Zlib.compress(Data(#"{"user": "eve", "password": "pw-eve-0001"}"#.utf8), format: .gzip).write(to: other)
            func post(_ base: String, _ file: URL) throws -> CurlRun {
                try curl([base + "/login", "-H", "Content-Type: application/json", "-H", "Content-Encoding: gzip", "--data-binary", "@" + file.path])
            }
            // Given a client that compresses its login through record
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            let live = try post(proxy.base, sent)
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(live.code == 200, "the upstream read the gzip body as sent: \(live.head)")
            // Then no secret is anywhere in the cassette, even with the body's gzip undone
            let stored = try everything(in: cassette)
            #expect(!stored.contains("hunter22secret") && !stored.contains("tok_abcdef123456"), "\(stored)")
            #expect(stored.contains(#""password": "REDACTED""#), "the secret replaced where it sat, the client's spacing kept: \(stored)")
            let request = try #require(try CassetteFile.read(cassette).interactions.first).request
            #expect(request.headers.value(for: "Content-Encoding") == "gzip", "kept in its coding, as sent")
            // And validate calls it clean
            let check = try runTapedeck(["cassette", "validate", cassette.path])
            #expect(check.status == 0 && check.output.contains("no secrets found"), "\(check.output)")
            // When served with JSON body matching, the same login compressed with other bytes matches; another login misses
            let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--match-body", "json"])
            defer { server.stop() }
            let replayed = try post(server.base, again)
            #expect(replayed.code == 200 && String(decoding: replayed.body, as: UTF8.self) == #"{"ok":true}"#, "\(replayed.head)")
            #expect(try post(server.base, other).code == 404)
        }
    }

    @Test("a response coded twice (gzip, gzip) is recorded redacted inside both codings; validate finds nothing")
    func twiceGzippedResponse() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("twice.har.gz")
            // Given an upstream answering with two gzip codings
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            let live = try curl([proxy.base + "/twice-gzipped", "-H", "Accept-Encoding: gzip"])
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(String(decoding: try undo(live.body, "gzip, gzip"), as: UTF8.self) == LoopbackServer.twiceGzippedJSON, "the client got it as sent")
            // Then the cassette holds neither secret, in any layer
            let stored = try everything(in: cassette)
            #expect(!stored.contains("tok-twice-5521x9") && !stored.contains("hunter22secret"), "\(stored)")
            #expect(stored.contains(#"{"access_token":"REDACTED","password":"REDACTED"}"#), "\(stored)")
            let check = try runTapedeck(["cassette", "validate", cassette.path])
            #expect(check.status == 0, "\(check.output)")
        }
    }

    @Test("record redacts every cookie value by default; --keep-cookie NAME keeps that one in clear (replayed as set) and validate --keep-cookie accepts it; --no-redact keeps all")
    func keptCookies() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            func record(_ name: String, _ flags: [String]) throws -> [String] {
                let cassette = directory.file(name)
                let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path] + flags)
                _ = try curl([proxy.base + "/prefs"])
                #expect(proxy.stop() == 0, "\(proxy.errors)")
                let response = try #require(try CassetteFile.read(cassette).interactions.first?.response)
                return response.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
            }
            let sid = LoopbackServer.sessionCookieValue
            // Given the default rules: both values redacted
            #expect(try record("default.har.gz", []) == ["theme=REDACTED; Path=/", "sid=REDACTED; Path=/; HttpOnly"])
            // When told to keep theme: theme in clear, the session still redacted
            #expect(try record("kept.har.gz", ["--keep-cookie", "theme"]) == ["theme=dark; Path=/", "sid=REDACTED; Path=/; HttpOnly"])
            let kept = directory.file("kept.har.gz").path
            #expect(try runTapedeck(["cassette", "validate", kept]).status == 1, "the default check flags a cookie value in clear")
            let accepted = try runTapedeck(["cassette", "validate", "--keep-cookie", "theme", kept])
            #expect(accepted.status == 0, "\(accepted.output)")
            // And serve replays it as set
            let server = try ServerProcess(["serve", kept, "--timing", "instant"])
            let replayed = try curl([server.base + "/prefs"])
            server.stop()
            #expect(replayed.head.contains("theme=dark; Path=/") && replayed.head.contains("sid=REDACTED"), "\(replayed.head)")
            // With --no-redact nothing is redacted
            #expect(try record("clear.har.gz", ["--no-redact"]) == ["theme=dark; Path=/", "sid=\(sid); Path=/; HttpOnly"])
            // And --no-redact with --keep-cookie is a usage error
            let both = try runTapedeck(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", directory.file("x.har").path,
                                        "--no-redact", "--keep-cookie", "theme"])
            #expect(both.status == 64 && both.errors.contains("--no-redact"), "\(both.errors)")
        }
    }
}
