import Foundation
import Testing
import TapedeckCassettes

/// What `validate` (SecretScanner) calls a credential in a body, redaction removes, whatever the
/// body's declared type: JSON sent as a form, JSON lines, an anti-hijacking prefix, JSONP, a form
/// answer. Its hint ("redact …") must never loop.
@Suite("Redaction and the secret scanner read bodies alike")
struct RedactionAgreementTests {
    static let secret = "Qw7Er9Ty2Ui4Op6"
    static let shapes: [(name: String, body: String)] = [
        ("json", #"{"password":"\#(secret)"}"#),
        ("jsonp", #"cb({"password":"\#(secret)"});"#),
        ("ndjson", "{\"a\":1}\n{\"password\":\"\(secret)\"}\n"),
        ("sse", "data: {\"password\":\"\(secret)\"}\n\n"),
        ("xssi", ")]}'\n{\"password\":\"\(secret)\"}"),
        ("log", "starting\n  {\"password\":\"\(secret)\"}\r\ndone\n"),
        ("first", "{\"password\":\"\(secret)\"}\nnot json"),
        ("bom", "\u{FEFF}{\"password\":\"\(secret)\"}"),
        ("xssiPretty", ")]}'\n{\n  \"user\": {\n    \"password\": \"\(secret)\"\n  }\n}\n"),
        ("sequence", "\u{1E}{\"a\":1}\n\u{1E}{\"password\":\"\(secret)\"}\n"),
    ]
    static let types: [String?] = [
        "application/json", "application/x-www-form-urlencoded", "text/plain", nil, "application/x-ndjson",
        "text/event-stream", "application/javascript", "text/html", "multipart/form-data; boundary=q",
    ]

    static func interaction(body: String, type: String?, inRequest: Bool) -> Interaction {
        let headers = type.map { [HeaderField("Content-Type", $0)] } ?? []
        let data = Data(body.utf8)
        return Interaction(
            index: 0,
            request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/x")!, headers: inRequest ? headers : [],
                                     body: inRequest ? data : nil),
            outcome: .response(RecordedResponse(status: 200, headers: inRequest ? [] : headers, body: inRequest ? Data() : data)))
    }

    @Test("every body shape under every type, request and response: flagged before redaction, clean after, the secret gone",
          arguments: shapes.map(\.name), [true, false])
    func agree(_ shape: String, _ inRequest: Bool) throws {
        let body = try #require(Self.shapes.first { $0.name == shape }).body
        for type in Self.types {
            let original = Self.interaction(body: body, type: type, inRequest: inRequest)
            let before = SecretScanner.scan(Cassette(interactions: [original]))
            #expect(!before.isEmpty, "\(shape) as \(type ?? "no type"): the scanner sees the password")
            let redacted = Redactor().redact(original)
            let text = String(decoding: (inRequest ? redacted.request.body : redacted.response?.body) ?? Data(), as: UTF8.self)
            #expect(!text.contains(Self.secret), "\(shape) as \(type ?? "no type"): \(text)")
            #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty, "\(shape) as \(type ?? "no type")")
        }
    }

    @Test("a form answer's credential fields (an OAuth 1.0a token response) are flagged and redacted")
    func formAnswer() throws {
        let original = Self.interaction(body: "oauth_token=abc123def456&oauth_token_secret=\(Self.secret)&user_id=7",
                                        type: "application/x-www-form-urlencoded", inRequest: false)
        #expect(SecretScanner.scan(Cassette(interactions: [original])).map(\.place).contains("response.body form field 'oauth_token_secret'"))
        let redacted = Redactor().redact(original)
        #expect(String(decoding: redacted.response?.body ?? Data(), as: UTF8.self) == "oauth_token=REDACTED&oauth_token_secret=REDACTED&user_id=7")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
    }

    @Test("an HTML page's lines are not rewritten; JSON lines in it that hold a credential are")
    func htmlLines() {
        let page = "<html>\n<body>{not json}\n</body>\n</html>\n"
        #expect(Redactor().redactBody(Data(page.utf8), contentType: "text/html") == Data(page.utf8))
    }
}

extension RedactionAgreementTests {
    @Test("in a multipart upload a field's JSON lines are redacted and agreed on; an uploaded file's JSON lines stay as sent")
    func multipartFilesKept() throws {
        let file = "{\"token\":\"abc123def456\"}\n{\"a\":1}\n"
        let field = "{\"x\":1}\n{\"password\":\"\(Self.secret)\"}"
        let body = "--q\r\nContent-Disposition: form-data; name=\"meta\"\r\n\r\n\(field)\r\n"
            + "--q\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"events.ndjson\"\r\nContent-Type: application/x-ndjson\r\n\r\n\(file)\r\n--q--\r\n"
        let original = Self.interaction(body: body, type: "multipart/form-data; boundary=q", inRequest: true)
        #expect(!SecretScanner.scan(Cassette(interactions: [original])).isEmpty)
        let redacted = Redactor().redact(original)
        let text = String(decoding: redacted.request.body ?? Data(), as: UTF8.self)
        #expect(!text.contains(Self.secret) && text.contains(file), "\(text)")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
    }

    @Test("a JSON document sent as a form keeps its whole text: only the secrets change (a form's '&' inside its strings splits nothing)")
    func jsonUnderFormWhole() throws {
        let body = #"{"q":"a=b","redirect":"/x?y=1&token=abc","password":"\#(Self.secret)"}"#
        let original = Self.interaction(body: body, type: "application/x-www-form-urlencoded", inRequest: true)
        let redacted = Redactor().redact(original)
        let text = String(decoding: redacted.request.body ?? Data(), as: UTF8.self)
        #expect(text == #"{"q":"a=b","redirect":"/x?y=1&token=REDACTED","password":"REDACTED"}"#, "\(text)")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
    }

    @Test("a secret of a JSON body sent as a form, or of a JSON line, is redacted where the response echoes it; a BOM before JSON stays, the document edited in place")
    func echoesAndBOM() throws {
        for (body, type) in [(#"{"password":"\#(Self.secret)"}"#, "application/x-www-form-urlencoded"),
                             ("{\"a\":1}\n{\"password\":\"\(Self.secret)\"}\n", "application/x-ndjson")] {
            let interaction = Interaction(
                index: 0,
                request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/echo")!, headers: [HeaderField("Content-Type", type)], body: Data(body.utf8)),
                outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")],
                                                    body: Data(#"{"data":"echo of \#(Self.secret) here"}"#.utf8))))
            let redacted = Redactor().redact(interaction)
            let echoed = String(decoding: redacted.response?.body ?? Data(), as: UTF8.self)
            #expect(!echoed.contains(Self.secret), "\(type): \(echoed)")
        }
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"password": "\#(Self.secret)", "a": [1, 2]}"#.utf8)
        #expect(Redactor().redactBody(bom, contentType: "text/plain") == Data([0xEF, 0xBB, 0xBF]) + Data(#"{"password": "REDACTED", "a": [1, 2]}"#.utf8))
    }
}

