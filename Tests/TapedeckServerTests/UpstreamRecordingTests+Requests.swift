import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTestSupport
@testable import TapedeckServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What `tapedeck record` does with what clients send (`Expect: 100-continue`, uploads, multipart
/// forms, protocol upgrades) and with an upstream that fails.
extension UpstreamRecordingTests {
    @Test("a client that sends Expect: 100-continue gets 100 Continue before it sends its body, then the answer")
    func expectContinue() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try expectContinue(upstream) }
    }

    private func expectContinue(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", directory.file("c.har.gz").path])
        defer { proxy.stop() }
        // Given a client that sends only its head and waits, as curl does for a large body
        let client = try RawClient(port: proxy.port)
        try client.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
        // When it reads: the interim answer arrives (without it this read would time out)
        #expect(try client.readBody(atLeast: 0) == 0)
        // Then the body goes, and the real answer follows the interim one
        try client.send("hello")
        let rest = String(decoding: try client.readToEnd(), as: UTF8.self)
        #expect(rest.hasPrefix("HTTP/1.1 200") && rest.hasSuffix("hello"), "\(rest)")
    }

    @Test("fields a request's Connection header names are for the proxy's hop: neither forwarded nor recorded; the others are")
    func connectionNominatedFields() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try connectionNominatedFields(upstream) }
    }

    private func connectionNominatedFields(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("hop.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        let run = try curl([proxy.base + "/headers", "-H", "Connection: keep-alive, X-Hop-Only", "-H", "X-Hop-Only: for-the-proxy",
                            "-H", "X-Kept: for-the-upstream"])
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        let seen = String(decoding: run.body, as: UTF8.self).lowercased()
        #expect(seen.contains(#""x-kept":"for-the-upstream""#), "\(seen)")
        #expect(!seen.contains("x-hop-only"), "RFC 9110 7.6.1: a proxy removes what Connection names: \(seen)")
        let recorded = try #require(try CassetteFile.read(cassette).interactions.first)
        #expect(recorded.request.headers.value(for: "X-Hop-Only") == nil)
        #expect(recorded.request.headers.value(for: "X-Kept") == "for-the-upstream")
    }

    @Test("--mode all over a cassette with entries warns at start that they will be replaced; new_episodes does not")
    func modeAllWarns() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("kept.har.gz")
            let first = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            _ = try curl([first.base + "/get"])
            #expect(first.stop() == 0)
            let all = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "all"])
            #expect(all.stop() == 0)
            #expect(all.errors.contains("--mode all replaces the cassette's 1 entry"), "\(all.errors)")
            let more = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "new_episodes"])
            #expect(more.stop() == 0)
            #expect(!more.errors.contains("warning"), "\(more.errors)")

            // Another tool's HAR with a token in clear: new_episodes keeps the old entries as they
            // are, and says so at start.
            let foreign = directory.file("foreign.har")
            try CassetteFile.write(Cassette(interactions: [
                Interaction(index: 0, request: RecordedRequest(method: "GET", url: upstream.url("/get?access_token=clear-7731")),
                            outcome: .response(RecordedResponse(status: 200, body: Data("{}".utf8)))),
            ], creator: "other-tool"), to: foreign)
            let adding = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", foreign.path, "--mode", "new_episodes"])
            #expect(adding.stop() == 0)
            #expect(adding.errors.contains("warning: the cassette's existing entries hold 1 thing that looks like secrets")
                    && adding.errors.contains("tapedeck cassette redact"), "\(adding.errors)")
        }
    }

    @Test("an 8 MB upload goes to the upstream and into the cassette byte for byte (sent on in slices, held once)")
    func largeUpload() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("upload.har.gz")
            var body = Data(count: 8 * 1_048_576)
            for index in body.indices { body[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
            let file = directory.file("body.bin")
            try body.write(to: file)
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            let echoed = try curl([proxy.base + "/echo", "--data-binary", "@" + file.path, "-H", "Content-Type: application/octet-stream"])
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(echoed.code == 200 && echoed.body == body, "the upstream got every byte in order")
            let recorded = try #require(CassetteFile.read(cassette).interactions.first)
            #expect(recorded.request.body == body && recorded.response?.body == body)
        }
    }

    @Test("curl -F through the proxy: the upstream gets every part; the cassette has the password field and the JSON part's token redacted, the uploaded file byte for byte")
    func multipartUploadRedacted() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("form.har.gz")
            // A file whose bytes look like multipart syntax (line breaks, dashes) and are not UTF-8.
            let file = Data("line one\r\n--not-a-boundary\r\n\r\n".utf8) + Data((0...255).map { UInt8($0) })
            let path = directory.file("avatar.bin")
            try file.write(to: path)
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            let echoed = try curl([proxy.base + "/echo", "-F", "user=bob", "-F", "password=hunter2",
                                   "-F", #"meta={"access_token":"AT-123","theme":"dark"};type=application/json"#,
                                   "-F", "avatar=@\(path.path);type=application/octet-stream"])
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            let sent = String(decoding: echoed.body, as: UTF8.self)
            #expect(echoed.code == 200 && sent.contains("hunter2") && sent.contains("AT-123"), "the upstream gets the real values")

            let recorded = try #require(CassetteFile.read(cassette).interactions.first?.request)
            let body = try #require(recorded.body)
            let text = String(decoding: body, as: UTF8.self)
            #expect(!text.contains("hunter2") && !text.contains("AT-123"), "\(text)")
            #expect(text.contains("REDACTED") && text.contains("bob") && text.contains(#""theme":"dark""#))
            #expect(body.range(of: file) != nil, "the uploaded file is stored byte for byte")
            if let length = recorded.headers.value(for: "Content-Length") { #expect(Int(length) == body.count) }
            #expect(SecretScanner.scan(try CassetteFile.read(cassette)).filter { $0.place.hasPrefix("request") }.isEmpty)
        }
    }

    @Test("a WebSocket handshake through the proxy is refused 501 and neither forwarded nor journalled; the exchanges around it are recorded and the cassette is written")
    func upgradeRefused() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("ws.har.gz")
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            #expect(try curl([proxy.base + "/bytes/10"]).code == 200)
            let upgrade = try curl([proxy.base + "/get?access_token=SECRET-1", "-H", "Connection: Upgrade", "-H", "Upgrade: websocket",
                                    "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="])
            #expect(upgrade.code == 501 && String(decoding: upgrade.body, as: UTF8.self).contains("websocket"))
            // An Upgrade its Connection does not name is no offer: an ordinary request, forwarded without it
            let stray = try curl([proxy.base + "/headers", "-H", "Upgrade: websocket"])
            #expect(stray.code == 200 && !String(decoding: stray.body, as: UTF8.self).lowercased().contains("websocket"),
                    "\(String(decoding: stray.body, as: UTF8.self))")
            // A CONNECT asks for a tunnel: refused too (a 200 from the upstream made the client think one opened).
            let connect = rawExchange(port: proxy.port, send: Data("CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n".utf8))
            #expect(connect.statusLine == "HTTP/1.1 501 Not Implemented", "\(connect.statusLine)")
            #expect(try curl([proxy.base + "/bytes/20"]).code == 200)
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(proxy.errors.contains("refused GET /get?access_token=REDACTED: an upgrade to 'websocket'"), "\(proxy.errors)")
            #expect(!proxy.errors.contains("SECRET-1"), "the log line is redacted")
            #expect(try CassetteFile.read(cassette).interactions.map(\.request.url.path) == ["/bytes/10", "/headers", "/bytes/20"])
        }
    }

    @Test("an upstream that times out is answered 502, one that resets mid-body has the client's connection reset; both are recorded as failures")
    func upstreamFailures() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try upstreamFailures(upstream) }
    }

    private func upstreamFailures(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Timeout: the upstream answers after 3 s, the proxy waits 1 s.
        let slow = directory.file("slow.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", slow.path, "--upstream-timeout", "1"])
        let late = try curl([proxy.base + "/delay/3000"])
        #expect(late.code == 502 && late.head.contains("X-Tapedeck-Failure"), "\(late.head)")
        #expect(proxy.stop() == 0)
        #expect(try failureCode(slow) == URLError.timedOut.rawValue)

        // Reset: the upstream is `tapedeck serve` with a reset fault after 200 bytes.
        let served = directory.file("served.har.gz")
        try CassetteFile.write(Cassette(interactions: [Interaction(
            index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/reset")!),
            outcome: .response(RecordedResponse(status: 200, body: Data(repeating: 0x61, count: 5_000))))]), to: served)
        let plan = directory.file("reset.yaml")
        try Data("faults:\n  - { kind: reset, afterBytes: 200, route: \"GET /reset\" }\n".utf8).write(to: plan)
        let resetting = try ServerProcess(["serve", served.path, "--timing", "instant", "--faults", plan.path])
        defer { resetting.stop() }
        let cut = directory.file("cut.har.gz")
        let recorder = try ServerProcess(["record", "--upstream", resetting.base, "--cassette", cut.path])
        // When the proxy had the head before the upstream broke off, it passed it on and resets the
        // client's connection (curl: a 200 it cannot finish), and records the response as broken
        // off after what came; when the reset reached it first
        // (the kernel may drop unread bytes on a reset), it answers 502. Never a complete 200.
        let broken = try curl([recorder.base + "/reset"])
        let cutOff = broken.code == 200 && broken.status != 0 && broken.body.count < 5_000
        #expect(cutOff || broken.code == 502, "\(broken.code) \(broken.status) \(broken.errors)")
        #expect(recorder.stop() == 0)
        #expect(try failureCode(cut, keptAtMost: 200) == URLError.networkConnectionLost.rawValue)
    }

    @Test("an upstream answering a plain request with 101 Switching Protocols: the client gets 502 saying so, standard error names the request, the stop line counts it, nothing is recorded")
    func upstreamSwitchesProtocols() throws {
        // Given an upstream that answers a plain GET with a 101.
        let upstream = try OneAnswerUpstream(answer: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        defer { upstream.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("switched.har")
        let proxy = try ServerProcess(["record", "--upstream", "http://127.0.0.1:\(upstream.port)", "--cassette", cassette.path])
        // When a client asks for a page through the proxy.
        let page = try curl([proxy.base + "/page?token=abc"])
        // Then it gets a 502 naming the failure, not a reset connection.
        #expect(page.status == 0 && page.code == 502, "\(page.status) \(page.errors) \(page.head)")
        #expect(page.head.contains("X-Tapedeck-Failure: upstream"), "\(page.head)")
        #expect(String(decoding: page.body, as: UTF8.self).contains("switched protocols (101"), "\(String(decoding: page.body, as: UTF8.self))")
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        // And standard error names the request and counts it; the cassette is not written.
        #expect(proxy.errors.contains("upstream failure, answered 502 and not recorded: GET /page?token="), "\(proxy.errors)")
        #expect(proxy.errors.contains("1 upstream failures answered 502 and not recorded"), "\(proxy.errors)")
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
    }

    /// The code of the cassette's one failure entry, or of the failure that broke its one
    /// response off (which then kept at most `keptAtMost` body bytes).
    private func failureCode(_ cassette: URL, keptAtMost: Int = 0) throws -> Int? {
        let entries = try CassetteFile.read(cassette).interactions
        switch entries.count == 1 ? entries[0].outcome : nil {
        case let .failure(failure)?:
            return failure.code
        case let .response(response)? where response.interruption != nil:
            #expect(response.body.count <= keptAtMost, "\(response.body.count) bytes kept")
            return response.interruption?.code
        default:
            Issue.record("expected one failure entry or one response that broke off, got \(entries.map(\.outcome))")
            return nil
        }
    }
}
