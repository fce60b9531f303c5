import Foundation
import Testing
import TapedeckHTTP
@testable import TapedeckCassettes

/// Secrets inside compressed request bodies (`Content-Encoding` on an upload): redacted inside
/// their codings, checked by the secrets scan, and matched by content on replay.
@Suite("Redaction: compressed request bodies")
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

    @Test("a request body another tool stored decoded beside its Content-Encoding: gzip is still redacted as the text it is")
    func decodedBesideItsCoding() throws {
        // Given a HAR's login whose text is JSON although the request says gzip
        let request = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                      headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Encoding", "gzip")],
                                      body: Data(Self.login.utf8))
        #expect(!SecretScanner.scan(Cassette(interactions: [exchange(request)])).isEmpty, "the check reads the text as it stands")
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
