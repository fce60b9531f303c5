import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// What an outside user found feeding Tapedeck files as other tools and hands write them: a form's
/// type given only in `postData.mimeType`, base64url bodies, brotli and raw deflate stored as
/// bytes, Python's lone surrogates, non-text comments, null header values, passwords in a URL's
/// user part, secret lists in JSON, `%7E` against `~`, and files compressed twice.
@Suite("Cassettes: other tools' files (mimeType as type, base64url, br bytes, surrogates, secrets in lists and user parts)")
struct ToolFileQuirkTests {
    /// A HAR holding one GET entry, with the given fields of its request, response and entry
    /// replacing the defaults.
    private func har(request: [String: Any] = [:], response: [String: Any] = [:], url: String = "http://a.test/x",
                     entry: [String: Any] = [:]) -> Data {
        var requestObject: [String: Any] = ["method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                                            "cookies": [], "headersSize": -1, "bodySize": 0]
        requestObject.merge(request) { $1 }
        var responseObject: [String: Any] = ["status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                                             "redirectURL": "", "headersSize": -1, "bodySize": 2,
                                             "content": ["size": 0, "mimeType": ""]]
        responseObject.merge(response) { $1 }
        var entryObject: [String: Any] = ["startedDateTime": "2024-01-01T00:00:00.000Z", "time": 1, "request": requestObject,
                                          "response": responseObject, "cache": [:], "timings": ["send": 0, "wait": 1, "receive": 0]]
        entryObject.merge(entry) { $1 }
        return har(entries: [entryObject])
    }

    private func har(entries: [[String: Any]]) -> Data {
        let document: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "hand", "version": "1"], "entries": entries]]
        return try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    }

    private func content(_ text: String, base64: Bool = false, type: String = "application/octet-stream") -> [String: Any] {
        var content: [String: Any] = ["size": 0, "mimeType": type, "text": text]
        if base64 { content["encoding"] = "base64" }
        return content
    }

    private func load(_ data: Data) throws -> Cassette {
        try CassetteFile.decode(data, file: "t.har")
    }

    @Test("a file Python wrote with NaN, or nested past what a JSON reader takes, is refused with what is wrong, not called damaged")
    func nanAndDeepNesting() throws {
        let text = String(decoding: har(), as: UTF8.self)
        do {
            _ = try load(Data(text.replacingOccurrences(of: #""time":1"#, with: #""time":NaN"#).utf8))
            Issue.record("NaN is not JSON")
        } catch let error as CassetteError {
            #expect(error.hint.contains("NaN and Infinity are not JSON") && error.place.hasPrefix("line 1, column"), "\(error)")
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        do {
            _ = try load(Data(text.replacingOccurrences(of: #""cache":{}"#, with: #""cache":{},"_initiator":\#(deep)"#).utf8))
            Issue.record("too deep for the reader")
        } catch let error as CassetteError {
            #expect(error.hint.contains("nests arrays or objects deeper"), "\(error)")
        }
    }

    @Test("a form whose type is only in postData.mimeType is redacted, scanned and matched as a form")
    func postDataMimeTypeIsTheContentType() throws {
        let data = har(request: ["postData": ["mimeType": "application/x-www-form-urlencoded", "text": "user=bob&password=hunter2"]])
        let cassette = try load(data)
        let request = try #require(cassette.interactions.first?.request)
        #expect(request.headers.value(for: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(SecretScanner.scan(cassette).contains { $0.place.contains("form field 'password'") })
        let redacted = Redactor().redact(request)
        #expect(redacted.body == Data("user=bob&password=REDACTED".utf8))

        // A params-only body gets the type the same way.
        let params = try load(har(request: ["postData": ["mimeType": "application/x-www-form-urlencoded", "params": [["name": "password", "value": "hunter2"]]]]))
        #expect(params.interactions.first?.request.headers.value(for: "Content-Type") == "application/x-www-form-urlencoded")
        // A field that names a type wins; no body, no invented type.
        let named = try load(har(request: ["headers": [["name": "content-type", "value": "text/plain"]], "postData": ["mimeType": "application/json", "text": "{}"]]))
        #expect(named.interactions.first?.request.headers.filter { $0.name.lowercased() == "content-type" }.map(\.value) == ["text/plain"])
    }

    @Test("a response body without a Content-Type takes content.mimeType, but not Chromium's x-unknown nor for an empty entry")
    func contentMimeTypeIsTheContentType() throws {
        let typed = try load(har(response: ["content": content("ok", type: "text/plain")]))
        #expect(typed.interactions.first?.response?.headers.value(for: "Content-Type") == "text/plain")
        let unknown = try load(har(response: ["content": content("ok", type: "x-unknown")]))
        #expect(unknown.interactions.first?.response?.headers.value(for: "Content-Type") == nil)
        let uncaptured = try load(har(response: ["content": ["size": 2, "mimeType": "text/plain"]]))
        #expect(uncaptured.interactions.first?.response?.headers.value(for: "Content-Type") == nil)
    }

    @Test("base64url bodies decode, line breaks and missing padding are fine, and any other character skips the entry")
    func base64Alphabets() throws {
        let bytes = Data([0xFB, 0xFF, 0xBF, 0x3E, 0x3F, 0x00, 0x01])
        let urlSafe = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let cassette = try load(har(response: ["content": content(urlSafe, base64: true)]))
        #expect(cassette.interactions.first?.response?.body == bytes)
        let wrapped = try load(har(response: ["content": content("+/+/\nPj8A\r\nAQ==", base64: true)]))
        #expect(wrapped.interactions.first?.response?.body == Data([0xFB, 0xFF, 0xBF, 0x3E, 0x3F, 0x00, 0x01]))
        let broken = try load(har(response: ["content": content("aGk*", base64: true)]))
        #expect(broken.interactions.isEmpty)
        #expect(broken.skipped.first?.description.contains("does not decode") == true)
    }

    @Test("brotli and raw deflate bodies stored as bytes are the wire form; the same text stored as text is decoded")
    func compressedBytesWithoutMagic() throws {
        let plain = Data(#"{"hello":"world","n":[1,2,3]}"#.utf8)
        let brotli = try Brotli.compress(plain)
        let stored = try load(har(response: ["headers": [["name": "Content-Encoding", "value": "br"]], "content": content(brotli.base64EncodedString(), base64: true)]))
        let response = try #require(stored.interactions.first?.response)
        #expect(response.bodyForm == .wire && response.body == brotli)

        let raw = try Zlib.compress(plain, format: .raw)
        let deflated = try load(har(response: ["headers": [["name": "Content-Encoding", "value": "deflate"]], "content": content(raw.base64EncodedString(), base64: true)]))
        #expect(deflated.interactions.first?.response?.bodyForm == .wire)

        // Bytes that only start with a short deflate stream are not one: zlib would stop early.
        let prefixed = try Zlib.compress(Data("ab".utf8), format: .raw) + Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A])
        #expect(HARCodec.inferredForm(prefixed, contentEncoding: "deflate", storedAsBytes: true) == .decoded)
        #expect(HARCodec.inferredForm(raw, contentEncoding: "deflate", storedAsBytes: true) == .wire)

        // Decoded text, even as base64, is not a stream: it stays decoded.
        let decoded = try load(har(response: ["headers": [["name": "Content-Encoding", "value": "br"]], "content": content(plain.base64EncodedString(), base64: true)]))
        #expect(decoded.interactions.first?.response?.bodyForm == .decoded)
    }

    @Test("a text body with no charset that the writer decoded one byte per character (Chromium's windows-1252, as Playwright stores it) is those bytes, when the Content-Length or bodySize says so, whatever content.size says")
    func playwrightWindows1252() throws {
        // Given the UTF-8 bytes of "data: two é" that Chromium read as windows-1252, and
        // Playwright's content.size: the UTF-8 length of what Chromium decoded
        let sent = Data("data: two é\n\n".utf8)
        let mojibake = String(sent.map { Character(Unicode.Scalar($0)) })
        func entry(_ headers: [[String: Any]], bodySize: Int) throws -> Interaction? {
            try load(har(response: ["headers": headers, "bodySize": bodySize,
                                    "content": ["size": mojibake.utf8.count, "mimeType": "text/event-stream", "text": mojibake]])).interactions.first
        }
        let byLength = try entry([["name": "Content-Type", "value": "text/event-stream"], ["name": "Content-Length", "value": "\(sent.count)"]], bodySize: -1)
        // Then the body is the bytes that were sent, with a note saying why
        #expect(byLength?.response?.body == sent)
        let byBodySize = try entry([["name": "Content-Type", "value": "text/event-stream"]], bodySize: sent.count)
        #expect(byBodySize?.response?.body == sent)
        // A text shorter than its Content-Length says (a writer that cut a large body) gets a note
        let cut = try load(har(response: ["headers": [["name": "Content-Length", "value": "100"]],
                                          "content": ["size": 100, "mimeType": "text/plain", "text": "only the start"]]))
        #expect(cut.notes.first?.text.contains("the text holds 14 bytes of a body that had 100") == true, "\(cut.notes)")
        // And with nothing counting the bytes that travelled, the text stays UTF-8
        let unknown = try entry([["name": "Content-Type", "value": "text/event-stream"]], bodySize: -1)
        #expect(unknown?.response?.body == Data(mojibake.utf8))
    }

    @Test("a lone surrogate (Python's escape of a byte that was not UTF-8) reads as U+FFFD in a header, as the byte itself in a body's text; a non-text comment and a null header value cost nothing")
    func pythonAndHandQuirks() throws {
        let text = String(decoding: har(request: ["queryString": [["name": "x", "value": "LONE"]], "headers": [["name": "X-Name", "value": "cafLONE"]]]), as: UTF8.self)
        let lone = try load(Data(text.replacingOccurrences(of: "LONE", with: #"\udce9"#).utf8))
        #expect(lone.interactions.first?.request.headers.value(for: "X-Name") == "caf\u{FFFD}")
        #expect(lone.skipped.isEmpty)
        // Foundation's reader (the fast reader's fallback) reads it the same way; a pair, an
        // escaped quote and a surrogate-looking text outside an escape stay as they were.
        let mixed = text.replacingOccurrences(of: "cafLONE", with: #"\"caf\udce9 \ud83d\ude00 \\udce9"#)
        let viaFoundation = try HARCodec.decodeWithFoundation(Data(mixed.replacingOccurrences(of: "LONE", with: #"\udc80"#).utf8), file: "x.har")
        #expect(viaFoundation.log.entries.first?.request.headers.first { $0.name == "X-Name" }?.value == "\"caf\u{FFFD} 😀 \\udce9")
        #expect(HARText.mendingLoneSurrogates(Data(#"{"a":"\ud83d\ude00 \\udce9"}"#.utf8)) == nil)
        // In a body's text, mitmproxy's escape of a byte that was not UTF-8 is that byte again
        let body = String(decoding: har(response: ["content": ["size": 8, "mimeType": "application/json", "text": "BODY"]]), as: UTF8.self)
            .replacingOccurrences(of: "BODY", with: #"{\"n\":\"Jos\udce9\"}\udcff"#)
        let escaped = try load(Data(body.utf8))
        #expect(escaped.interactions.first?.response?.body == Data(#"{"n":"Jos"#.utf8) + Data([0xE9]) + Data(#""}"#.utf8) + Data([0xFF]),
                "\(String(describing: escaped.interactions.first?.response?.body.map { $0 }))")
        let comment = try load(har(entry: ["comment": ["by": "me"]]))
        #expect(comment.interactions.count == 1)
        let nullValue = try load(har(response: ["headers": [["name": "X-Gone", "value": NSNull()], ["name": "X-Kept", "value": "1"]]]))
        let headers = try #require(nullValue.interactions.first?.response?.headers)
        #expect(headers.value(for: "X-Gone") == nil && headers.value(for: "X-Kept") == "1")
    }

    @Test("a password in the URL's user part and a list under a secret JSON name are redacted and reported")
    func secretsInUserPartsAndLists() throws {
        let json = #"{"Set-Cookie":["a=1","b=2"],"access_token":[["t1"]],"ids":[1,2]}"#
        let cassette = try load(har(response: ["content": content(json, type: "application/json")], url: "http://bob:hunter2@u.test/auth"))
        let findings = SecretScanner.scan(cassette)
        #expect(findings.contains { $0.place == "request.url" && $0.reason.contains("password") })
        #expect(findings.contains { $0.place.contains("field 'Set-Cookie'") })
        #expect(findings.contains { $0.place.contains("field 'access_token'") })

        let redacted = Redactor().redact(try #require(cassette.interactions.first))
        #expect(redacted.request.url.absoluteString == "http://bob:REDACTED@u.test/auth")
        let body = try #require(redacted.response?.body)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["Set-Cookie"] as? [String] == ["REDACTED", "REDACTED"])
        #expect(object["access_token"] as? [[String]] == [["REDACTED"]])
        #expect(object["ids"] as? [Int] == [1, 2])
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
        // In a URL-valued field too: a redirect to a URL with a password.
        let location = [HeaderField("Location", "https://bob:hunter2@u.test/next?x=1")]
        #expect(Redactor().redact(location).first?.value == "https://bob:REDACTED@u.test/next?x=1")
        var withLocation = try #require(cassette.interactions.first)
        withLocation.request.url = URL(string: "http://u.test/auth")!
        withLocation.outcome = .response(RecordedResponse(status: 302, headers: location))
        #expect(SecretScanner.scan(Cassette(interactions: [withLocation])).map(\.place) == ["response.headers.Location"])
        // In a JSON link without a query too; an e-mail address is no link.
        let links = Data(#"{"next":"https://bob:hunter2@u.test/page/2","contact":"bob@u.test"}"#.utf8)
        let redactedLinks = Redactor().redactJSON(links, contentType: "application/json")
        let linkObject = try #require(try JSONSerialization.jsonObject(with: redactedLinks) as? [String: String])
        #expect(linkObject == ["next": "https://bob:REDACTED@u.test/page/2", "contact": "bob@u.test"])
        var withLink = try #require(cassette.interactions.first)
        withLink.request.url = URL(string: "http://u.test/auth")!
        withLink.outcome = .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")], body: links))
        #expect(SecretScanner.scan(Cassette(interactions: [withLink])).map(\.reason) == ["a link's user part's password is a credential stored unredacted"])
        // Rules that keep every byte keep the password too.
        #expect(Redactor.none.redact(URL(string: "http://bob:hunter2@u.test/")!).absoluteString == "http://bob:hunter2@u.test/")
    }

    @Test("findings are numbered as inspect numbers entries, past a skipped one")
    func findingsUseTheEntryNumbers() throws {
        func entry(_ url: String, headers: [[String: Any]] = []) -> [String: Any] {
            let one = try! JSONSerialization.jsonObject(with: har(request: ["headers": headers], url: url)) as! [String: Any]
            return ((one["log"] as! [String: Any])["entries"] as! [[String: Any]])[0]
        }
        let entries = har(entries: [entry("data:text/plain,hi"), entry("http://a.test/x", headers: [["name": "Authorization", "value": "Bearer s3cret"]])])
        let cassette = try load(entries)
        #expect(cassette.skipped.count == 1)
        #expect(SecretScanner.scan(cassette).map(\.entry) == [1])
    }

    @Test("an escaped unreserved character and the character itself are one path (%7E is ~); other escapes stay apart")
    func unreservedEscapesMatch() throws {
        let rules = MatchRules()
        func request(_ url: String) -> RecordedRequest { RecordedRequest(method: "GET", url: URL(string: url)!) }
        #expect(rules.mismatches(request("http://t.test/%7Euser/%41b"), request("http://t.test/~user/Ab")).isEmpty)
        #expect(rules.mismatches(request("http://t.test/a%2fb"), request("http://t.test/a%2Fb")).isEmpty)
        #expect(!rules.mismatches(request("http://t.test/a%2Fb"), request("http://t.test/a/b")).isEmpty)
        let reason = try #require(rules.mismatches(request("http://t.test/a"), request("http://t.test/b")).first)
        #expect(reason.hasPrefix("path /a ≠ /b (URL "))
    }

    @Test("a .har.gz compressed twice, and a directory given as a cassette, are named as what they are")
    func doubleGzipAndDirectory() throws {
        let twice = try Zlib.compress(try Zlib.compress(har(), format: .gzip), format: .gzip)
        #expect(throws: CassetteError.self) { try CassetteFile.decode(twice, file: "t.har.gz") }
        do {
            _ = try CassetteFile.decode(twice, file: "t.har.gz")
        } catch {
            #expect(error.description.contains("compressed twice"))
        }
        let directory = FileManager.default.temporaryDirectory
        do {
            _ = try CassetteFile.read(directory)
            Issue.record("a directory was read as a cassette")
        } catch {
            #expect(error.description.contains("is a directory"))
        }
    }
}
