import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// JSON redaction replaces the secrets' bytes and nothing else: what a replay hands the client is
/// the server's document, layout and numbers and key order included.
@Suite("Redaction: JSON bodies edited in place")
struct RedactionInPlaceTests {
    private let redactor = Redactor()

    private func redacted(_ text: String) -> String {
        String(decoding: redactor.redactJSON(Data(text.utf8), contentType: "application/json"), as: UTF8.self)
    }

    @Test("a pretty-printed token response keeps its layout, key order and every other value's spelling")
    func layoutKept() {
        let document = """
        {
          "token_type" : "Bearer",
          "access_token" : "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2ln",
          "expires_in" : 3600,
          "price" : 1.50,
          "id" : 12345678901234567890,
          "scope" : "read write"
        }
        """
        let expected = document.replacingOccurrences(of: "\"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2ln\"", with: "\"REDACTED\"")
        #expect(redacted(document) == expected)
    }

    @Test("nested fields, lists under secret names, numbers, booleans, null, repeated keys and links inside strings")
    func everyPlace() {
        let document = #"{"z":1,"user":{"password":"hunter2","pin":7,"has_password":true},"refresh_token":["r1",["r2"],{"note":"x"}],"#
            + #""secret":null,"password":42,"next":"/items?page=2&access_token=abc123","list":[{"token":"t1"},{"token":"t2"}],"#
            + #""token":"first","token":"second","escaped":"a\"b\\c"}"#
        let expected = #"{"z":1,"user":{"password":"REDACTED","pin":7,"has_password":true},"refresh_token":["REDACTED",["REDACTED"],{"note":"x"}],"#
            + #""secret":null,"password":0,"next":"/items?page=2&access_token=REDACTED","list":[{"token":"REDACTED"},{"token":"REDACTED"}],"#
            + #""token":"REDACTED","token":"REDACTED","escaped":"a\"b\\c"}"#
        #expect(redacted(document) == expected)
        // What replays still parses, with the values a client decodes.
        let object = try? JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String: Any]
        #expect((object?["z"] as? Int) == 1 && (object?["secret"] is NSNull))
    }

    @Test("a document without secrets, a top-level list, a bare string and a body already redacted come back byte for byte")
    func unchanged() {
        for document in [#"{ "items" : [ 1, 2.50, "x" ] }"#, #"[{"id":1},{"id":2}]"#, #""just text""#, #"{"token":"REDACTED","n":0.10}"#] {
            #expect(redacted(document) == document, "\(document)")
        }
    }

    @Test("a document the byte walk cannot read (UTF-16) is still redacted, written again")
    func fallback() throws {
        let document = #"{"token":"s3cr3t-value","b":1}"#
        let utf16 = try #require(document.data(using: .utf16LittleEndian))
        let result = redactor.redactJSON(utf16, contentType: "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: result) as? [String: Any])
        #expect(object["token"] as? String == "REDACTED" && object["b"] as? Int == 1)
    }

    @Test("echoes and bearer tokens inside strings spelt with escapes (Go's u003c, Python's u00e4, PHP's escaped slash) are found in the decoded text")
    func escapedEchoes() throws {
        let request = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                      headers: [HeaderField("Content-Type", "application/json")],
                                      body: Data(#"{"user":"bob","password":"hunter<2>&go-99"}"#.utf8))
        let escaped = #"{"error":"bad password hunter\u003c2\u003e\u0026go-99","detail":"wrong password p\u00e4ss","debug":"sent Bearer k7f9A2mQ\/x81zzQ9pLw3e\/Vb0+Tt==","ok":false}"#
        let interaction = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(
            status: 401, headers: [HeaderField("Content-Type", "application/json")], body: Data(escaped.utf8))))
        let redacted = Redactor().redact(interaction)
        let text = String(decoding: try #require(redacted.response).body, as: UTF8.self)
        #expect(text == #"{"error":"bad password REDACTED","detail":"wrong password p\u00e4ss","debug":"sent Bearer REDACTED","ok":false}"#, "\(text)")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
    }

    @Test("raw body matching: a redacted body recorded compact with sorted keys (before in-place editing) matches a live body that means the same")
    func rawMatchesOldCassettes() {
        let rules = MatchRules(body: .raw)
        let recorded = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                       headers: [HeaderField("Content-Type", "application/json")], body: Data(#"{"password":"REDACTED","user":"bob"}"#.utf8))
        let live = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                   headers: [HeaderField("Content-Type", "application/json")], body: Data(#"{"user": "bob", "password": "REDACTED"}"#.utf8))
        let other = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                    headers: [HeaderField("Content-Type", "application/json")], body: Data(#"{"user": "eve", "password": "REDACTED"}"#.utf8))
        #expect(rules.mismatches(live, recorded).isEmpty)
        #expect(!rules.mismatches(other, recorded).isEmpty)
        // Without a placeholder, raw stays byte for byte.
        let plain = RecordedRequest(method: "POST", url: URL(string: "http://api.test/x")!, body: Data(#"{"a":1,"b":2}"#.utf8))
        let reordered = RecordedRequest(method: "POST", url: URL(string: "http://api.test/x")!, body: Data(#"{"b":2,"a":1}"#.utf8))
        #expect(!rules.mismatches(reordered, plain).isEmpty)
    }

    @Test("a JSONP body's argument is redacted in place, and validate reads it, a stream's lines and a page cursor as redaction does")
    func jsonpStreamsAndCursors() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJwYWdlIjoyfQ.c2lnbmF0dXJlUGFnZTI"
        func response(_ type: String, _ body: String, headers: [HeaderField] = []) -> Interaction {
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/x")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", type)] + headers, body: Data(body.utf8))))
        }
        let jsonp = response("application/javascript", #"/**/ cb({"access_token":"jsonp_acc_abcdef123456","n":1.50});"#)
        #expect(SecretScanner.scan(Cassette(interactions: [jsonp])).contains { $0.reason.contains("credential field") })
        let redactedJSONP = Redactor().redact(jsonp)
        #expect(String(decoding: redactedJSONP.response?.body ?? Data(), as: UTF8.self) == #"/**/ cb({"access_token":"REDACTED","n":1.50});"#)
        #expect(SecretScanner.scan(Cassette(interactions: [redactedJSONP])).isEmpty)

        for (type, body) in [("application/x-ndjson", "{\"n\":1}\n{\"access_token\":\"nd-acc-0123456789\"}\n"),
                             ("text/event-stream", "event: token\ndata: {\"refresh_token\":\"sse-ref-0123456789\"}\n\n")] {
            let stream = response(type, body)
            #expect(SecretScanner.scan(Cassette(interactions: [stream])).contains { $0.reason.contains("credential field") }, "\(type)")
            #expect(SecretScanner.scan(Cassette(interactions: [Redactor().redact(stream)])).isEmpty, "\(type)")
        }

        let cursors = response("application/json", #"{"items":[],"cursor":"\#(jwt)","next":"/items?cursor=\#(jwt)&limit=2","nextPageToken":"\#(jwt)"}"#,
                               headers: [HeaderField("Link", #"<https://api.test/items?cursor=\#(jwt)>; rel="next""#)])
        #expect(SecretScanner.scan(Cassette(interactions: [cursors])).isEmpty, "\(SecretScanner.scan(Cassette(interactions: [cursors])))")
        #expect(Redactor().redact(cursors) == cursors, "redaction leaves page cursors alone")
        // A JWT under an innocent name beside them is still named.
        let token = response("application/json", #"{"cursor":"\#(jwt)","misc":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlWA"}"#)
        #expect(SecretScanner.scan(Cassette(interactions: [token])).contains { $0.reason.contains("JSON Web Token") })
    }
}
