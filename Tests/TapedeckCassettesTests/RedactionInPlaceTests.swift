import Foundation
import Testing
import TapedeckCassettes

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
}
