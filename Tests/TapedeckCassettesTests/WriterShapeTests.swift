import Foundation
import Testing
@testable import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// Shapes real tools write that were lost or misread (each written here in a small document of our
/// own): Polly.JS's base64 chunk lists and numeric header values, nock recordings, Hoverfly's
/// pre-v1 pair list and capture's exact "" matchers, WireMock's `basicAuth` and non-equality
/// header matchers on import, misses that say which part of a stub failed, OAuth's one-time code.
@Suite("Cassettes: real writers' shapes (Polly.JS, nock, Hoverfly, WireMock, OAuth forms)")
struct WriterShapeTests {
    private func gzip(_ text: String) throws -> Data {
        try Zlib.compress(Data(text.utf8))
    }

    @Test("Polly.JS: a content-encoded body as a JSON list of base64 chunks; a header value written as a number")
    func pollyShapes() throws {
        let wire = try gzip(#"{"total_count": 2}"#)
        let (first, second) = (wire.prefix(10).base64EncodedString(), wire.dropFirst(10).base64EncodedString())
        let har = """
        {"log": {"version": "1.2", "creator": {"name": "Polly.JS", "version": "6.0.5"}, "entries": [
          {"startedDateTime": "2024-01-01T00:00:00.000Z", "time": 10,
           "request": {"method": "POST", "url": "https://api.test/search", "httpVersion": "HTTP/1.1",
                       "headers": [{"name": "content-length", "value": 344}, {"name": "x-flag", "value": true}],
                       "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                        "headers": [{"name": "content-encoding", "value": "gzip"}, {"name": "content-type", "value": "application/json"}],
                        "cookies": [], "content": {"mimeType": "application/json", "size": 18, "encoding": "base64",
                                                   "text": "[\\"\(first)\\",\\"\(second)\\"]"},
                        "redirectURL": "", "headersSize": -1, "bodySize": -1},
           "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 0}}
        ]}}
        """
        let cassette = try HARCodec.decode(Data(har.utf8), file: "recording.har")
        #expect(cassette.skipped.isEmpty, "\(cassette.skipped)")
        let entry = try #require(cassette.interactions.first)
        #expect(entry.request.headers.value(for: "content-length") == "344" && entry.request.headers.value(for: "x-flag") == "true")
        #expect(entry.response?.body == wire, "the chunks joined: the gzip bytes as sent")
        // The model reader (the path of a file the fast reader declines) reads numbers as text too.
        let item = try JSONDecoder().decode(HARNameValueItem.self, from: Data(#"{"name": "content-length", "value": 344}"#.utf8))
        #expect(item.pairs == [HARNameValue(name: "content-length", value: "344")])
    }

    @Test("nock: scope and path, rawHeaders as a flat list, a JSON answer kept as its value, a binary gzip answer as hex, in order")
    func nockRecording() throws {
        let wire = try gzip("hello")
        let hex = wire.map { String(format: "%02x", $0) }.joined()
        let recording = """
        [
          {"scope": "https://api.test:443", "method": "POST", "path": "/users?active=1", "body": {"name": "ada"},
           "reqheaders": {"content-type": "application/json"},
           "status": 201, "response": {"id": 7, "name": "ada"},
           "rawHeaders": ["Content-Type", "application/json", "Content-Length", "99"]},
          {"scope": "http://vlc.local:80", "method": "GET", "path": "/status.xml", "body": "", "status": 200,
           "response": "<root><state>playing</state></root>", "rawHeaders": ["Content-Type", "text/xml"]},
          {"scope": "http://vlc.local:8080", "method": "GET", "path": "/blob", "status": 200, "response": "\(hex)",
           "responseIsBinary": true, "rawHeaders": ["Content-Encoding", "gzip"]},
          {"scope": "http://vlc.local:8080", "method": "GET", "path": "/cut", "status": "abc"}
        ]
        """
        let reading = try ForeignCassette.load(Data(recording.utf8), file: "fixtures.json")
        #expect(reading.format == .nock)
        let cassette = reading.cassette
        #expect(cassette.interactions.map(\.request.url.absoluteString)
                == ["https://api.test/users?active=1", "http://vlc.local/status.xml", "http://vlc.local:8080/blob"])
        #expect(cassette.skipped.count == 1 && cassette.skipped[0].error.reason.contains("status"), "\(cassette.skipped)")
        let users = try #require(cassette.interactions.first)
        #expect(users.request.method == "POST" && users.request.body == Data(#"{"name":"ada"}"#.utf8))
        #expect(users.request.headers.value(for: "content-type") == "application/json")
        #expect(users.response?.status == 201 && users.response?.body == Data(#"{"id":7,"name":"ada"}"#.utf8))
        #expect(users.response?.headers.value(for: "Content-Length") == "21", "the rebuilt JSON's length, not the recorded 99")
        #expect(cassette.interactions[1].response?.body == Data("<root><state>playing</state></root>".utf8))
        #expect(cassette.interactions[2].response?.body == wire, "the hex decoded: the gzip bytes as sent")
        // Replayed through a real URLSession, the client gets the decoded answer.
        let replay = SequentialReplay(cassette)
        #expect(try replay.send(cassette.interactions[2].request).body == Data("hello".utf8))
    }

    @Test("Hoverfly: the pre-v1 list of pairs reads; capture's exact \"\" body and query match a request without one")
    func hoverflyShapes() throws {
        let legacy = """
        {"data": [
          {"request": {"path": "/api/bookings", "method": "POST", "destination": "www.my-test.com", "query": null, "body": "{\\"flightId\\": \\"1\\"}"},
           "response": {"status": 201, "body": "", "headers": {"Location": ["http://localhost/api/bookings/1"]}}}
        ]}
        """
        let old = try ForeignCassette.load(Data(legacy.utf8), file: "legacy.json")
        #expect(old.format == .hoverfly && old.cassette.interactions.map(\.request.url.absoluteString) == ["http://www.my-test.com/api/bookings"])
        #expect(old.cassette.interactions.first?.response?.headers.value(for: "Location") == "http://localhost/api/bookings/1")

        let captured = """
        {"data": {"pairs": [
          {"request": {"path": [{"matcher": "glob", "value": "/api/*"}], "method": [{"matcher": "exact", "value": "GET"}],
                       "body": [{"matcher": "exact", "value": ""}]},
           "response": {"status": 200, "body": "healthy"}},
          {"request": {"path": {"globMatch": "/v2/*"}, "query": {"exactMatch": ""}}, "response": {"status": 200, "body": "v2"}}
        ]}, "meta": {"schemaVersion": "v5"}}
        """
        let reading = try ForeignCassette.load(Data(captured.utf8), file: "sim.json", keepingPatterns: true)
        let replay = SequentialReplay(reading.cassette)
        #expect(try replay.send(RecordedRequest(method: "GET", url: URL(string: "http://any.test/api/health")!)).body == Data("healthy".utf8))
        #expect(try replay.send(RecordedRequest(method: "GET", url: URL(string: "http://any.test/v2/x")!)).body == Data("v2".utf8))
        #expect(try replay.send(RecordedRequest(method: "GET", url: URL(string: "http://any.test/v2/x?page=2")!)).response == nil,
                "an exact empty query still refuses a query")
        // A miss names, for the stubs that came closest, the part that failed.
        let explained = replay.player.explainMiss(RecordedRequest(method: "POST", url: URL(string: "http://any.test/api/health")!, body: Data("x".utf8)))
        #expect(explained.contains("entry 0, a stub matching by pattern (GET /api/*): the method is not GET\n  entry 1"),
                "the stub on the right path first: \(explained)")
    }

    @Test("WireMock on import: basicAuth (as WireMock reads it) becomes the Authorization field; a header matched otherwise than by value is noted")
    func wireMockImport() throws {
        let mapping = """
        {"request": {"method": "GET", "url": "/search", "basicAuth": {"username": "git-user", "password": "git-secret"},
                     "headers": {"If-None-Match": {"absent": true}, "Accept": {"contains": "json"}}},
         "response": {"status": 200, "body": "[]"}}
        """
        let cassette = try ForeignCassette.load(Data(mapping.utf8), file: "mapping.json").cassette
        let request = try #require(cassette.interactions.first?.request)
        #expect(request.headers.value(for: "Authorization") == "Basic " + Data("git-user:git-secret".utf8).base64EncodedString())
        #expect(cassette.notes.filter { $0.field.hasPrefix("request.headers.") }.map(\.field).sorted() == ["request.headers.Accept", "request.headers.If-None-Match"])
        // Read as it is, the conditions are checked instead (the stub names its request).
        let asIs = try ForeignCassette.load(Data(mapping.utf8), file: "mapping.json", keepingPatterns: true).cassette
        let pattern = try #require(asIs.interactions.first?.pattern)
        #expect(pattern.namesItsRequest && asIs.notes.isEmpty)
        var asked = RecordedRequest(method: "GET", url: URL(string: "http://localhost:8080/search")!,
                                    headers: [HeaderField("Accept", "application/json"), HeaderField("Authorization", request.headers.value(for: "Authorization")!)])
        #expect(pattern.matches(asked))
        asked.headers.append(HeaderField("If-None-Match", "\"x\""))
        #expect(pattern.mismatch(asked)?.part == "header field 'If-None-Match' does not match")
    }

    @Test("an OAuth token request's one-time code is redacted and found, with its echo; a form without grant_type keeps a field named code")
    func oauthCode() throws {
        let form = Data("grant_type=authorization_code&code=deadbeef42&client_id=app&redirect_uri=https%3A%2F%2Fapp.test%2Fcb".utf8)
        let interaction = Interaction(
            index: 0, request: RecordedRequest(method: "POST", url: URL(string: "https://auth.test/oauth/token")!,
                                               headers: [HeaderField("Content-Type", "application/x-www-form-urlencoded")], body: form),
            outcome: .response(RecordedResponse(status: 400, headers: [HeaderField("Content-Type", "application/json")],
                                                body: Data(#"{"error": "invalid_grant", "code": "deadbeef42"}"#.utf8))))
        var cassette = Cassette()
        cassette.interactions = [interaction]
        #expect(SecretScanner.scan(cassette).contains { $0.description.contains("form field 'code'") })
        let redacted = Redactor().redact(interaction)
        let sent = String(decoding: redacted.request.body ?? Data(), as: UTF8.self)
        #expect(sent.contains("code=REDACTED") && sent.contains("client_id=app"), "\(sent)")
        let answered = String(decoding: redacted.response?.body ?? Data(), as: UTF8.self)
        #expect(!answered.contains("deadbeef42"), "the echo is replaced too")
        let plain = Data("code=SAVE20&qty=1".utf8)
        let coupon = Redactor().redactForm(plain)
        #expect(coupon == plain, "a shop's coupon code is no OAuth code")
    }
}
