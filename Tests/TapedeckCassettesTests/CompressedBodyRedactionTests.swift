import Foundation
import Testing
import TapedeckHTTP
@testable import TapedeckCassettes

/// Secrets inside compressed bodies: a request body a client compressed (`Content-Encoding` on an
/// upload) and a response coded more than once (`gzip, gzip`) are redacted inside their codings,
/// checked by the secrets scan, and matched by content on replay.
@Suite("Redaction: compressed request bodies and stacked codings")
struct CompressedBodyRedactionTests {
    private static let login = #"{"user":"bob","password":"hunter22secret","access_token":"tok_abcdef123456"}"#
    private static let secrets = ["hunter22secret", "tok_abcdef123456"]

    /// A POST of `json` under `coding` (a list is applied left to right), with its length.
    private func upload(_ json: String, coding: String, level: Int = 6) throws -> RecordedRequest {
        var body = Data(json.utf8)
        for name in coding.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            body = name == "gzip" ? try Zlib.compress(body, format: .gzip, level: level)
                : try #require(try ContentCoding.encode(body, contentEncoding: name))
        }
        return RecordedRequest(
            method: "POST", url: URL(string: "http://api.test/login")!,
            headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Encoding", coding),
                      HeaderField("Content-Length", String(body.count))],
            body: body)
    }

    /// `body` with every coding of `coding` undone, last first.
    private func decoded(_ body: Data, coding: String) throws -> String {
        var content = body
        for name in coding.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).reversed() {
            content = try ContentCoding.decode(content, contentEncoding: name)
        }
        return String(decoding: content, as: UTF8.self)
    }

    private func exchange(_ request: RecordedRequest, index: Int = 0) -> Interaction {
        Interaction(index: index, request: request, outcome: .response(RecordedResponse(status: 204)))
    }

    @Test("a request body compressed by the client is redacted inside its coding (gzip, deflate, br, zstd, a list), its length kept right",
          arguments: ["gzip", "deflate", "br", "zstd", "gzip, br"])
    func compressedUploadRedacted(coding: String) throws {
        // Given a login sent compressed
        let sent = try upload(Self.login, coding: coding)
        #expect(!SecretScanner.scan(Cassette(interactions: [exchange(sent)])).isEmpty, "the check looks inside the coding")
        // When redacted with the default rules
        let stored = Redactor().redact(exchange(sent)).request
        // Then the stored body is still in its coding, and its content holds no secret
        let body = try #require(stored.body)
        let text = try decoded(body, coding: coding)
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) left in \(text)") }
        #expect(text.contains(#""password":"REDACTED""#) && text.contains(#""user":"bob""#), "\(text)")
        #expect(stored.headers.value(for: "Content-Encoding") == coding)
        #expect(stored.headers.value(for: "Content-Length") == String(body.count))
        #expect(SecretScanner.scan(Cassette(interactions: [exchange(stored)])).isEmpty, "validate agrees")
    }

    @Test("a compressed form body and a compressed request's echo in the response are redacted too")
    func compressedFormAndEcho() throws {
        // Given a gzipped form login whose response repeats the password
        let form = Data("user=bob&password=formsecret77".utf8)
        let body = try Zlib.compress(form, format: .gzip)
        let request = RecordedRequest(
            method: "POST", url: URL(string: "http://api.test/login")!,
            headers: [HeaderField("Content-Type", "application/x-www-form-urlencoded"), HeaderField("Content-Encoding", "gzip")], body: body)
        let response = RecordedResponse(status: 400, headers: [HeaderField("Content-Type", "text/plain")],
                                        body: Data("bad password formsecret77".utf8))
        // When redacted
        let stored = Redactor().redact(Interaction(index: 0, request: request, outcome: .response(response)))
        // Then neither the form nor the echo keeps it
        #expect(try decoded(try #require(stored.request.body), coding: "gzip") == "user=bob&password=REDACTED")
        #expect(String(decoding: try #require(stored.response).body, as: UTF8.self) == "bad password REDACTED")
    }

    @Test("a response coded twice (gzip, gzip) is redacted inside both codings; identity is no coding")
    func stackedResponse() throws {
        // Given a response gzipped twice, and one labelled identity
        let json = Data(#"{"access_token":"tok-twice-5521x9","password":"hunter22secret"}"#.utf8)
        let twice = try Zlib.compress(Zlib.compress(json, format: .gzip), format: .gzip)
        let request = RecordedRequest(method: "GET", url: URL(string: "http://api.test/me")!)
        let stacked = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(
            status: 200, headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Encoding", "gzip, gzip"),
                                   HeaderField("Content-Length", String(twice.count))], body: twice)))
        let identity = Interaction(index: 1, request: request, outcome: .response(RecordedResponse(
            status: 200, headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Encoding", "identity")], body: json)))
        #expect(Set(SecretScanner.scan(Cassette(interactions: [stacked, identity])).map(\.entry)) == [0, 1], "the check reads both")
        // When redacted
        let redacted = [stacked, identity].map(Redactor().redact)
        // Then both bodies' contents hold the placeholder and no secret
        let first = try #require(redacted[0].response)
        let text = try decoded(first.body, coding: "gzip, gzip")
        #expect(text == #"{"access_token":"REDACTED","password":"REDACTED"}"#)
        #expect(first.headers.value(for: "Content-Length") == String(first.body.count))
        #expect(String(decoding: try #require(redacted[1].response).body, as: UTF8.self) == #"{"access_token":"REDACTED","password":"REDACTED"}"#)
        #expect(SecretScanner.scan(Cassette(interactions: redacted)).isEmpty)
    }

    @Test("a body under a coding Tapedeck cannot decode is named as unchecked, never passed as clean")
    func unknownCodingNamed() throws {
        // Given a response under a list holding an unknown coding, a request under one, and a body that does not decode
        let binary = Data([0x1F, 0x9D, 0x90, 0xFF, 0x00, 0x7B])   // compressed bytes: not UTF-8 text
        let request = RecordedRequest(method: "POST", url: URL(string: "http://api.test/up")!,
                                      headers: [HeaderField("Content-Encoding", "x-custom")], body: binary)
        let unknown = Interaction(index: 3, request: request, outcome: .response(RecordedResponse(
            status: 200, headers: [HeaderField("Content-Encoding", "gzip, compress")], body: binary)))
        let corrupt = Interaction(index: 4, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/z")!), outcome: .response(
            RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip")], body: Data([0x1F, 0x8B, 0x08, 0xFF, 0xFE]))))
        let plain = exchange(RecordedRequest(method: "GET", url: URL(string: "http://api.test/ok")!), index: 5)
        // When the secrets check looks
        let unread = SecretScanner.unreadBodies(in: Cassette(interactions: [unknown, corrupt, plain]))
        // Then each unreadable body is named by entry and place, with why
        #expect(unread.map(\.entry) == [3, 3, 4])
        #expect(unread.map(\.place) == ["request.body", "response.body", "response.body"])
        #expect(unread[0].reason.contains("'x-custom'") && unread[1].reason.contains("'compress'"), "\(unread)")
        #expect(unread[2].reason.contains("does not decode"), "\(unread)")
    }

    @Test("a request body another tool stored decoded beside its Content-Encoding: gzip is still redacted as the text it is")
    func decodedBesideItsCoding() throws {
        // Given a HAR's login whose text is JSON although the request says gzip
        let request = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                      headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Encoding", "gzip")],
                                      body: Data(Self.login.utf8))
        #expect(!SecretScanner.scan(Cassette(interactions: [exchange(request)])).isEmpty, "the check reads the text as it stands")
        #expect(SecretScanner.unreadBodies(in: Cassette(interactions: [exchange(request)])).isEmpty)
        // When redacted
        let stored = Redactor().redact(request)
        // Then the text is redacted in place
        let text = String(decoding: try #require(stored.body), as: UTF8.self)
        #expect(text.contains(#""password":"REDACTED""#) && !text.contains("hunter22secret"), "\(text)")
    }

    @Test("replay matches a compressed upload by content: the same body compressed with other bytes matches; another does not",
          arguments: [MatchRules.BodyRule.json, .raw])
    func replayMatchesCompressedBody(rule: MatchRules.BodyRule) throws {
        // Given a recorded gzipped search (nothing to redact: kept as sent) and a redacted gzipped login
        let search = #"{"query":"shoes","page":2}"#
        let recordedSearch = Redactor().redact(try upload(search, coding: "gzip"))
        let recordedLogin = Redactor().redact(exchange(try upload(Self.login, coding: "gzip"))).request
        let rules = MatchRules(body: rule)
        // When the client sends them again compressed at another level, and another search
        let againSearch = Redactor().redact(try upload(search, coding: "gzip", level: 1))
        #expect(againSearch.body != recordedSearch.body, "the compressed bytes differ")
        let againLogin = Redactor().redact(try upload(Self.login, coding: "gzip", level: 1))
        let other = Redactor().redact(try upload(#"{"query":"hats","page":2}"#, coding: "gzip"))
        // Then the same contents match, the other does not
        #expect(rules.mismatches(againSearch, recordedSearch).isEmpty, "\(rules.mismatches(againSearch, recordedSearch))")
        #expect(rules.mismatches(againLogin, recordedLogin).isEmpty, "\(rules.mismatches(againLogin, recordedLogin))")
        #expect(!rules.mismatches(other, recordedSearch).isEmpty)
    }

    @Test("a replayed gzipped upload finds its recorded entry through the player with JSON body matching")
    func playerMatchesCompressedUpload() throws {
        // Given a cassette recorded from a gzipped login, with a second entry for another user
        let bob = Redactor().redact(exchange(try upload(Self.login, coding: "gzip")))
        var eve = Redactor().redact(exchange(try upload(#"{"user":"eve","password":"pw-eve-0001"}"#, coding: "gzip"), index: 1))
        eve.outcome = .response(RecordedResponse(status: 201))
        let player = CassettePlayer(cassette: Cassette(interactions: [eve, bob]), rules: MatchRules(body: .json))
        // When bob's login arrives compressed anew, as the simulated network hands it over
        let live = try upload(Self.login, coding: "gzip", level: 9)
        var fields = HTTPFieldsBuilder()
        for field in live.headers { fields.append(field.name, field.value) }
        let answer = player.reply(to: RequestSnapshot(method: .post, url: live.url, headerFields: fields.fields, body: live.body),
                                  context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        // Then it is bob's entry (204), not eve's (201) nor a miss
        guard case let .response(plan) = answer else {
            Issue.record("no response: \(answer)")
            return
        }
        #expect(plan.head.status == 204)
    }
}
