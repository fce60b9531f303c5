import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTesting
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cassette's JSON text, gunzipped: what a `grep` of the file on disk would see.
private func storedText(_ cassette: URL) throws -> String {
    let bytes = try Data(contentsOf: cassette)
    let json = Zlib.looksLikeGzip(bytes) ? try Zlib.decompress(bytes, format: .gzip) : bytes
    return String(decoding: json, as: UTF8.self)
}

private func jsonObject(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite("Cassettes: what a live recording stores of compressed bodies and of secrets in links", .serialized)
struct LiveSecretsAndCodingsTests {
    @Test("a br body the URLSession decoded is stored as decoded: redaction reads inside it, and replay hands the client what it got live")
    func brotliDecodedByURLSession() async throws {
        // Given a server answering with a br-coded JSON body holding a token
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("brotli.har.gz")

        // When a tape records it
        let recording = try Tape(cassette: cassette, mode: .once)
        let live = try await recording.perform(server.url("/brotli"))
        try recording.finish()

        // Then the stored form says what the body is. This platform's libcurl decodes br, so the
        // client got JSON: stored `decoded`, and the token inside is redacted on disk.
        let decodedLive = live.data == Data(LoopbackServer.brotliJSON.utf8)
        #expect(decodedLive || live.data == LoopbackServer.brotliWireBody, "neither the JSON nor the wire bytes: \(live.data.count) bytes")
        let stored = try #require(try CassetteFile.read(cassette).interactions.first?.response)
        #expect(stored.bodyForm == (decodedLive ? .decoded : .wire))
        #expect(stored.headers.value(for: "Content-Encoding") == "br")
        if decodedLive {
            #expect(try jsonObject(stored.body)["token"] as? String == Redactor.placeholder)
            #expect(!(try storedText(cassette)).contains("brotli-session-7781"))
            #expect(SecretScanner.scan(try CassetteFile.read(cassette)).isEmpty)
        }

        // And a replay without the server hands the client the same JSON, redacted where it was
        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let played = try await replay.perform(server.url("/brotli"))
        try replay.finish()
        #expect(played.response.value(forHTTPHeaderField: "Content-Encoding") == "br")
        if decodedLive {
            let object = try jsonObject(played.data)
            #expect(object["plan"] as? String == "reel-to-reel" && object["token"] as? String == Redactor.placeholder)
        } else {
            #expect(played.data == live.data)
        }
    }

    @Test("how the recorder tells a decoded body from the wire bytes, per coding and Content-Length")
    func deliveredForm() throws {
        let json = Data(#"{"a":1}"#.utf8)
        let packed = try Brotli.compress(Data(String(repeating: #"{"a":1}"#, count: 40).utf8))
        let zstdFrame = try Zstd.compress(json)
        func form(_ body: Data, _ fields: [(String, String)]) -> ResponsePlan.BodyForm {
            LiveForwarder.deliveredForm(of: body, headers: fields.map { HeaderField($0.0, $0.1) })
        }
        // Given each kind of answer, then:
        #expect(form(json, []) == .wire, "no coding: as sent")
        #expect(form(json, [("Content-Encoding", "identity")]) == .wire)
        #expect(form(json, [("Content-Encoding", "gzip"), ("Content-Length", "7")]) == .decoded, "URLSession always decodes gzip")
        #expect(form(json, [("Content-Encoding", "br"), ("Content-Length", "31")]) == .decoded, "another length than the wire's: decoded")
        #expect(form(packed, [("Content-Encoding", "br"), ("Content-Length", "\(packed.count)")]) == .wire, "the wire's length, and br reads it: left as it came")
        #expect(form(json, [("Content-Encoding", "br"), ("Content-Length", "7")]) == .decoded, "the wire's length by chance, but not br: decoded")
        #expect(form(json, [("Content-Encoding", "x-custom"), ("Content-Length", "7")]) == .wire, "a coding Tapedeck cannot read: as it came")
        #expect(form(json, [("Content-Encoding", "br")]) == .decoded, "chunked br text: decoded")
        #expect(form(zstdFrame, [("Content-Encoding", "zstd")]) == .wire, "chunked, a zstd frame: wire")
        #expect(form(Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x01]), [("Content-Encoding", "zstd")]) == .decoded, "chunked, zstd's magic but no frame: decoded")
        #expect(form(Data(), [("Content-Encoding", "br")]) == .wire, "nothing to decode")
    }

    @Test("a token in a redirect's Location and in a JSON page's next link is redacted on disk; the replayed client follows both")
    func secretsInLinks() async throws {
        // Given a redirect to a URL with a token, and a page whose `next` link carries one
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("links.har.gz")

        // When a tape records both (following the redirect)
        let recording = try Tape(cassette: cassette, mode: .once)
        let handoff = try await recording.perform(server.url("/handoff"))
        let page = try await recording.perform(server.url("/pages/1"))
        try recording.finish()
        #expect(handoff.response.statusCode == 200 && handoff.response.url?.query == "token=handoff-7d1e&step=2")
        #expect(try jsonObject(page.data)["next"] as? String == "/pages/2?access_token=page-secret-91&page=2", "the client gets the live link")

        // Then neither token is on disk, the rest of each link is as sent, and the scanner agrees
        let text = try storedText(cassette)
        #expect(!text.contains("handoff-7d1e") && !text.contains("page-secret-91"))
        let stored = try CassetteFile.read(cassette)
        #expect(stored.interactions.map { $0.response?.status } == [302, 200, 200])
        #expect(stored.interactions[0].response?.headers.value(for: "Location") == "/session/whoami?token=REDACTED&step=2")
        #expect(try jsonObject(try #require(stored.interactions[2].response).body)["next"] as? String
            == "/pages/2?access_token=REDACTED&page=2")
        #expect(SecretScanner.scan(stored).isEmpty, "\(SecretScanner.scan(stored))")

        // And without the server, the replayed client follows the redacted Location to the recorded hop
        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let replayedHandoff = try await replay.perform(server.url("/handoff"))
        #expect(replayedHandoff.response.statusCode == 200 && replayedHandoff.data == handoff.data)
        #expect(replayedHandoff.response.url?.query == "token=REDACTED&step=2")
        #expect(try replay.finish().replayed == 2)
    }

    @Test("the scanner reports a credential left in a Location field or a JSON link of another tool's file")
    func scannerFindsLinks() {
        // Given an unredacted recording with a token in a redirect and in a page link
        let request = RecordedRequest(method: "GET", url: URL(string: "https://api.example/start")!)
        let redirect = RecordedResponse(status: 302, headers: [HeaderField("Location", "https://api.example/home?session=1&token=abc123")])
        let page = RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")],
                                    body: Data(#"{"links":[{"next":"https://api.example/p?page=2&api_key=k-77"}]}"#.utf8))
        let cassette = Cassette(interactions: [
            Interaction(index: 0, request: request, outcome: .response(redirect)),
            Interaction(index: 1, request: request, outcome: .response(page)),
        ])

        // When it is scanned, then both are named; after redaction, nothing is
        let findings = SecretScanner.scan(cassette).map(\.description)
        #expect(findings.contains { $0.hasPrefix("entry 0 (response.headers.Location)") && $0.contains("'token'") })
        #expect(findings.contains { $0.hasPrefix("entry 1 (response.body link)") && $0.contains("'api_key'") })
        let redacted = Cassette(interactions: cassette.interactions.map { Redactor().redact($0) })
        #expect(SecretScanner.scan(redacted).isEmpty)
        #expect(redacted.interactions[0].response?.headers.value(for: "Location") == "https://api.example/home?session=1&token=REDACTED")
    }

    @Test("a link held in a query value loses its token on disk, and a live request carrying another token still matches it")
    func linkInQueryValue() throws {
        // Given a sign-in URL whose return address carries a token
        let recorded = URL(string: "https://api.example/signin?user=ada&return=%2Faccount%3Ftoken%3Dreturn-5521%26tab%3D2")!
        let interaction = Interaction(index: 0, request: RecordedRequest(method: "GET", url: recorded),
                                      outcome: .response(RecordedResponse(status: 204)))

        // When it is redacted
        let redacted = Redactor().redact(interaction)

        // Then the token is gone, the rest of the return address and the other items are kept
        let items = URLComponents(url: redacted.request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.first { $0.name == "return" }?.value == "/account?token=REDACTED&tab=2")
        #expect(items.first { $0.name == "user" }?.value == "ada")
        #expect(!redacted.request.url.absoluteString.contains("return-5521"))
        #expect(SecretScanner.scan(Cassette(interactions: [interaction])).map(\.description)
            .contains { $0.contains("query 'return'") && $0.contains("'token'") })
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)

        // And a player over the redacted recording answers a request with a fresh token
        let player = CassettePlayer(cassette: Cassette(interactions: [redacted]))
        let live = RequestSnapshot(method: .get, url: URL(string: "https://api.example/signin?return=%2Faccount%3Ftoken%3Dfresh-0042%26tab%3D2&user=ada")!)
        guard case .response = player.reply(to: live, context: ResponderContext(exchange: 1, transaction: 0, time: .zero)) else {
            Issue.record("no match: \(player.explainMiss(Redactor().redact(RecordedRequest(live))))")
            return
        }
    }

    @Test("another tool's placeholders count as redacted (har-capture's AUTH_/COOKIE_/FIELD_ hashes, [REDACTED], ***); a real token beside them is still found")
    func otherToolsPlaceholders() {
        func scan(_ request: RecordedRequest, _ body: String = "{}") -> [String] {
            SecretScanner.scan(Cassette(interactions: [Interaction(index: 0, request: request,
                                                                   outcome: .response(RecordedResponse(status: 200, body: Data(body.utf8))))]))
                .map(\.description)
        }
        let sanitized = RecordedRequest(method: "POST", url: URL(string: "http://api.test/items?token=FIELD_9fb57767&page=2")!, headers: [
            HeaderField("Authorization", "Bearer AUTH_a290547a"), HeaderField("Cookie", "sessionid=COOKIE_9c134ef1; theme=COOKIE_14c10e89"),
            HeaderField("X-Api-Key", "[REDACTED]"),
        ], body: Data(#"{"token":"FIELD_2d898b51","password":"***"}"#.utf8))
        #expect(scan(sanitized, #"{"auth":"FIELD_ccc71369"}"#).isEmpty, "\(scan(sanitized))")
        let leaked = RecordedRequest(method: "GET", url: URL(string: "http://api.test/items")!, headers: [
            HeaderField("Authorization", "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"), HeaderField("Cookie", "sessionid=COOKIE_9c134ef1; other=live-secret-value")])
        #expect(scan(leaked).count == 2, "\(scan(leaked))")
        #expect(Redactor.looksRedacted("FIELD_2d898b51") && !Redactor.looksRedacted("FIELD_2D898B51X") && !Redactor.looksRedacted("abc_12345678"))
        // har-capture without a salt (`sanitize --no-salt`): the kind between three asterisks each side
        let unsalted = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!, headers: [
            HeaderField("Authorization", "Bearer ***TOKEN***"), HeaderField("Cookie", "theme=***COOKIE***; session=***COOKIE***"),
        ], body: Data(#"{"password":"***FIELD***","api_key":"***CRED***"}"#.utf8))
        #expect(scan(unsalted).isEmpty, "\(scan(unsalted))")
        #expect(Redactor.looksRedacted("***FIELD***") && !Redactor.looksRedacted("***field***") && !Redactor.looksRedacted("***a secret***")
                && !Redactor.looksRedacted("******X"))
    }
}
