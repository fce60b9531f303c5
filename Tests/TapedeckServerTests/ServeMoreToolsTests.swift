import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

/// `tapedeck serve` with the "More tools" fixtures (fixtures/interop/README.md): what curl gets
/// from HTTP Toolkit's, Playwright's minimal, newman-reporter-har's and a BOM + CRLF file.
@Suite("Server: serving HTTP Toolkit, Playwright minimal, Newman and minimal HARs to curl", .serialized)
struct ServeMoreToolsTests {
    private func fixture(_ name: String) -> String {
        fixturesDirectory.appendingPathComponent("interop/\(name)").path
    }

    /// Every value of `name` in a response head, in order.
    private func values(_ name: String, in head: String) -> [String] {
        head.split(separator: "\r\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == name.lowercased() else { return nil }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("HTTP Toolkit's file: a body it left out is a 404 miss whose text names the skipped entry and why; the rest replays, repeated fields kept")
    func httpToolkit() throws {
        // Given HTTP Toolkit's export, one response of which was over its body limit
        let server = try ServerProcess(["serve", fixture("httptoolkit.har"), "--timing", "instant"])
        defer { server.stop() }
        // Then serve warned at start about the skipped entry and the request body left out
        #expect(server.errors.contains("skipped entry 3") && server.errors.contains("734003 bytes"), "\(server.errors)")
        #expect(server.errors.contains("note entry 2 (request._requestBodyStatus)"), "\(server.errors)")
        // When curl, proxy-style, asks for the response that is not in the file
        let missing = try curl(["-x", server.base, "http://cdn.example.com/catalog/full.json"])
        // Then it is a miss saying why, not an empty 200
        #expect(missing.code == 404 && values("X-Tapedeck-Miss", in: missing.head) == ["1"], "\(missing.head)")
        let text = String(decoding: missing.body, as: UTF8.self)
        #expect(text.contains("entry 3 GET https://cdn.example.com/catalog/full.json: skipped when the cassette was read"), "\(text)")
        // And an HTTP/2 answer with repeated field names goes out with both, pseudo-headers left out
        let profile = try curl(["-H", "Host: api.example.com", server.base + "/v2/profile"])
        #expect(profile.code == 200 && profile.body == Data(#"{"id":7,"name":"Grace","plan":"team"}"#.utf8))
        #expect(values("vary", in: profile.head) == ["Accept-Encoding", "Origin"], "\(profile.head)")
        #expect(values(":status", in: profile.head).isEmpty)
    }

    @Test("Playwright minimal with attached bodies: the bodies come from the files beside the HAR")
    func playwrightMinimal() throws {
        let server = try ServerProcess(["serve", fixture("playwright-minimal/playwright-minimal.har"), "--timing", "instant"])
        defer { server.stop() }
        let created = try curl(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", #"{"title":"reels"}"#,
                                server.base + "/api/todos"])
        #expect(created.code == 201 && created.body == Data(#"{"id":42,"title":"reels","done":false}"#.utf8), "\(created.head)")
        let omitted = try curl([server.base + "/api/todos?done=false"])
        #expect(omitted.code == 200 && omitted.body.isEmpty)
    }

    @Test("newman-reporter-har's file (numeric log.version) serves its decoded gzip body without the coding's label")
    func newman() throws {
        let server = try ServerProcess(["serve", fixture("newman-reporter.har"), "--timing", "instant"])
        defer { server.stop() }
        let posts = try curl(["--compressed", server.base + "/posts?userId=1"])
        let text = #"[{"userId":1,"id":1,"title":"tape"}]"#
        #expect(posts.code == 200 && posts.body == Data(text.utf8), "\(posts.head)")
        #expect(values("Content-Encoding", in: posts.head).isEmpty, "\(posts.head)")
        #expect(values("Content-Length", in: posts.head) == [String(text.utf8.count)], "\(posts.head)")
    }

    @Test("a BOM + CRLF HAR 1.1 with only method, URL, status and content serves, its repeated Set-Cookie fields both sent")
    func minimal() throws {
        let server = try ServerProcess(["serve", fixture("bom-crlf-minimal.har"), "--timing", "instant"])
        defer { server.stop() }
        let plain = try curl(["-H", "Host: min.example.com", server.base + "/a"])
        #expect(plain.code == 200 && plain.body == Data("alpha\r\nbeta\r\n".utf8))
        #expect(values("Content-Type", in: plain.head) == ["text/plain"], "\(plain.head)")
        let repeated = try curl(["-H", "Host: min.example.com", server.base + "/b"])
        #expect(values("set-cookie", in: repeated.head) == ["a=1", "b=2"], "\(repeated.head)")
        #expect(values("x-trace", in: repeated.head) == ["one", "two"], "\(repeated.head)")
    }

    @Test("UTF-8 header values Chromium stored as windows-1252 go out as the server's bytes: curl follows the redirect to its recorded target")
    func chromiumUTF8Headers() throws {
        let server = try ServerProcess(["serve", fixture("playwright-utf8-headers.har"), "--timing", "instant"])
        defer { server.stop() }
        let moved = try curl(["-L", "-H", "Host: 127.0.0.1:18471", server.base + "/moved"])
        #expect(moved.code == 200 && values("X-Tapedeck-Miss", in: moved.head).isEmpty, "\(moved.head)")
        let download = try curl(["-H", "Host: 127.0.0.1:18471", server.base + "/download"])
        #expect(values("Content-Disposition", in: download.head) == [#"attachment; filename="résumé ✓.txt""#], "\(download.head)")
    }
}
