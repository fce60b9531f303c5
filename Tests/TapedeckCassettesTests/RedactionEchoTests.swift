import Foundation
import Testing
import TapedeckHTTP
@testable import TapedeckCassettes

/// A response that repeats the request's secrets where no rule would find them: an echo server's
/// body as a JSON string, query items as JSON fields under their own names, a bearer token quoted
/// in text.
@Suite("Redaction: secrets the response repeats")
struct RedactionEchoTests {
    /// What httpbin's `/anything` answers to a JSON POST with a token in its query.
    private func httpbinEcho(encoding: String?) throws -> Interaction {
        let posted = #"{"apiToken":"JSONSECRET10","secret":"JSONSECRET11","Authorization":"Bearer JSONSECRET12","note":"hello"}"#
        let request = RecordedRequest(
            method: "POST", url: URL(string: "http://api.test/anything?sig=SIGSECRET21&color=red")!,
            headers: [HeaderField("Content-Type", "application/json"), HeaderField("Authorization", "Bearer HEADERTOKEN99")],
            body: Data(posted.utf8))
        let quoted = posted.replacingOccurrences(of: "\"", with: "\\\"")
        let echoed = #"{"args":{"color":"red","sig":"SIGSECRET21"},"data":""# + quoted
            + #"","headers":{"X-Forwarded-Auth":"Bearer HEADERTOKEN99"},"url":"http:\/\/api.test\/anything?sig=SIGSECRET21&color=red"}"#
        var body = Data(echoed.utf8)
        var headers = [HeaderField("Content-Type", "application/json")]
        if let encoding {
            body = try #require(try ContentCoding.encode(body, contentEncoding: encoding))
            headers.append(HeaderField("Content-Encoding", encoding))
        }
        headers.append(HeaderField("Content-Length", String(body.count)))
        return Interaction(index: 0, request: request, outcome: .response(RecordedResponse(status: 200, headers: headers, body: body)))
    }

    @Test("what the request's rules redact is redacted where the response repeats it, plain or gzip on the wire; the rest stays", arguments: [nil, "gzip"])
    func echoedSecrets(encoding: String?) throws {
        // Given an echo of a request with secrets in its JSON body, query and Authorization header
        let original = try httpbinEcho(encoding: encoding)
        // When redacted with the default rules
        let redacted = Redactor().redact(original)
        // Then no secret is left anywhere in the response, and what is no secret is kept
        let response = try #require(redacted.response)
        let body = try ContentCoding.decode(response.body, contentEncoding: encoding)
        let text = String(decoding: body, as: UTF8.self)
        for secret in ["JSONSECRET10", "JSONSECRET11", "JSONSECRET12", "SIGSECRET21", "HEADERTOKEN99"] {
            #expect(!text.contains(secret), "\(secret) left in \(text)")
        }
        #expect(text.contains("hello") && text.contains(#""color":"red""#), "\(text)")
        #expect(response.headers.value(for: "Content-Length") == String(response.body.count))
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty, "validate agrees")
        // And rules that redact nothing keep every byte
        #expect(Redactor.none.redact(original) == original)
    }

    @Test("secret fields of a multipart form are redacted where the response repeats them (an echo server), and validate sees what would be left")
    func multipartEchoes() throws {
        let boundary = "----tapedeck7MA4YWxk"
        let form = "--\(boundary)\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nmultipartPassw0rd42\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"api_key\":\"partKEY-998877\"}\r\n"
            + "--\(boundary)--\r\n"
        let request = RecordedRequest(method: "POST", url: URL(string: "http://api.test/anything")!,
                                      headers: [HeaderField("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: Data(form.utf8))
        let echo = #"{"form":{"user":"ada","password":"multipartPassw0rd42"},"note":"you sent multipartPassw0rd42 and partKEY-998877"}"#
        let original = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(
            status: 200, headers: [HeaderField("Content-Type", "text/plain")], body: Data(echo.utf8))))
        let redacted = Redactor().redact(original)
        let text = String(decoding: redacted.response?.body ?? Data(), as: UTF8.self)
        #expect(!text.contains("multipartPassw0rd42") && !text.contains("partKEY-998877"), "\(text)")
        #expect(text.contains(#""user":"ada""#), "\(text)")
        let sent = String(decoding: redacted.request.body ?? Data(), as: UTF8.self)
        #expect(!sent.contains("multipartPassw0rd42") && !sent.contains("partKEY-998877") && sent.contains("ada"), "\(sent)")
    }

    @Test("credentials under names no rule lists are redacted by their shape: a Link target's access_token, X-Authorization's bearer token, a JWT header, a token-shaped query value, a token as a URL's user part")
    func secretShapes() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4YXV0aHoifQ.c2lnbmF0dXJlWGF1dGh6"
        let github = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
        let request = RecordedRequest(method: "GET", url: URL(string: "https://\(github)@git.test/o/r.git?x=\(jwt)&page=2")!,
                                      headers: [HeaderField("X-Authorization", "Bearer \(jwt)"), HeaderField("X-Amzn-Oidc-Data", jwt),
                                                HeaderField("X-Request-Id", "7f9c2ba4e88f827d616045507605853e"), HeaderField("User-Agent", "curl/8.14.1")])
        let original = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(status: 200, headers: [
            HeaderField("Link", #"<https://api.test/v1/list?page=2&access_token=linkHeaderAccessToken123>; rel="next", <https://api.test/v1/list?page=9>; rel="last""#),
        ])))
        let before = SecretScanner.scan(Cassette(interactions: [original]))
        for place in ["request.headers.X-Authorization", "request.headers.X-Amzn-Oidc-Data", "request.url", "request.url query 'x'", "response.headers.Link"] {
            #expect(before.contains { $0.place == place }, "validate names \(place): \(before)")
        }
        let redacted = Redactor().redact(original)
        #expect(redacted.request.headers.value(for: "X-Authorization") == "Bearer REDACTED")
        #expect(redacted.request.headers.value(for: "X-Amzn-Oidc-Data") == "REDACTED")
        #expect(redacted.request.headers.value(for: "X-Request-Id") == "7f9c2ba4e88f827d616045507605853e", "an id is no credential")
        #expect(redacted.request.headers.value(for: "User-Agent") == "curl/8.14.1")
        #expect(redacted.request.url.absoluteString == "https://REDACTED@git.test/o/r.git?x=REDACTED&page=2", "\(redacted.request.url)")
        #expect(redacted.response?.headers.value(for: "Link")
                == #"<https://api.test/v1/list?page=2&access_token=REDACTED>; rel="next", <https://api.test/v1/list?page=9>; rel="last""#)
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty, "validate is content")
        // A plain user name stays; exact rules and none apply no shapes.
        #expect(Redactor().redact(URL(string: "https://bob@git.test/x")!).absoluteString == "https://bob@git.test/x")
        #expect(Redactor(headers: ["authorization"], queryItems: [], jsonFields: []).redact(original).request.headers.value(for: "X-Amzn-Oidc-Data") == jwt)
        #expect(Redactor.none.redact(original) == original)
    }

    @Test("shapes spare what replay needs: a JWT page cursor, a JWT-shaped ETag, a user name with dots and escapes; a token user keeps no token when a password follows it")
    func shapesSpareWhatReplayNeeds() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJwYWdlIjozfQ.c2lnbmF0dXJlUGFnZTM"
        let github = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
        let redactor = Redactor()
        for query in ["cursor=\(jwt)", "page_token=\(jwt)", "nextPageToken=\(jwt)", "after=\(jwt)"] {
            let url = URL(string: "http://api.test/list?\(query)")!
            #expect(redactor.redact(url) == url, "\(query)")
        }
        let headers = redactor.redact([HeaderField("ETag", "\"\(jwt)\""), HeaderField("If-None-Match", "\"\(jwt)\"")])
        #expect(headers.map(\.value) == ["\"\(jwt)\"", "\"\(jwt)\""])
        // And validate leaves what redaction keeps on purpose: `redact` clears what `validate` finds.
        let kept = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/list?cursor=\(jwt)&page_token=\(jwt)")!,
                                                                  headers: [HeaderField("If-None-Match", "\"\(jwt)\""), HeaderField("X-Request-Id", jwt)]),
                               outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("ETag", "\"\(jwt)\"")])))
        #expect(SecretScanner.scan(Cassette(interactions: [kept])).isEmpty, "\(SecretScanner.scan(Cassette(interactions: [kept])))")
        #expect(redactor.redact(URL(string: "https://first.last%40company.com@bitbucket.test/team/repo.git")!).absoluteString
                == "https://first.last%40company.com@bitbucket.test/team/repo.git")
        #expect(redactor.redact(URL(string: "https://\(github):x-oauth-basic@github.test/o/r.git")!).absoluteString
                == "https://REDACTED:REDACTED@github.test/o/r.git")
        // A redacted recording of the password form is content, redacted again unchanged.
        let location = redactor.redact([HeaderField("Location", "https://abcdefghij0123456789xyz@git.test/r.git")])
        #expect(location.first?.value == "https://REDACTED@git.test/r.git")
    }

    @Test("a value redacted for its shape is also redacted where the response echoes it; validate is content with the result")
    func shapeEchoes() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJlY2hvIn0.c2lnbmF0dXJlRWNobw"
        let other = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvaWRjIn0.c2lnbmF0dXJlT2lkYw"
        let request = RecordedRequest(method: "GET", url: URL(string: "http://api.test/get?x=\(jwt)")!,
                                      headers: [HeaderField("X-Amzn-Oidc-Data", other)])
        let echo = #"{"args":{"x":"\#(jwt)"},"headers":{"X-Amzn-Oidc-Data":"\#(other)"}}"#
        let original = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(
            status: 200, headers: [HeaderField("Content-Type", "application/json")], body: Data(echo.utf8))))
        let redacted = Redactor().redact(original)
        let text = String(decoding: redacted.response?.body ?? Data(), as: UTF8.self)
        #expect(text == #"{"args":{"x":"REDACTED"},"headers":{"X-Amzn-Oidc-Data":"REDACTED"}}"#, "\(text)")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
    }

    @Test("every recognisable shape is found in a header under an innocent name and redacted there; ordinary values are left alone", arguments: [
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzaGFwZSJ9.c2lnbmF0dXJl", "a JSON Web Token"),
        ("AKIAIOSFODNN7EXAMPLE", "an AWS access key id"),
        ("gho_16C7e42F292c6912E7710c838347Ae178B4a", "a GitHub token"),
        ("-----BEGIN RSA PRIVATE KEY-----MIIEow", "a private key"),
        ("Bearer k7f9A2-mQx81.zz", "a bearer token"),
    ])
    func shapesInHeaders(_ value: String, _ kind: String) throws {
        let interaction = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/x")!,
                                                                          headers: [HeaderField("X-Thing", value)]),
                                      outcome: .response(RecordedResponse(status: 200)))
        let findings = SecretScanner.scan(Cassette(interactions: [interaction]))
        #expect(findings.contains { $0.place == "request.headers.X-Thing" && $0.reason.contains(kind) }, "\(findings)")
        let redacted = Redactor().redact(interaction).request.headers.value(for: "X-Thing")
        #expect(redacted == (kind == "a bearer token" ? "Bearer REDACTED" : "REDACTED"))
        for ordinary in ["Mon, 23 Nov 2026 10:00:00 GMT", "application/json; charset=utf-8", "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0",
                         "max-age=3600, must-revalidate", "be right back, they say: highly --verbose"] {
            #expect(Redactor().redact([HeaderField("X-Thing", ordinary)]).first?.value == ordinary)
        }
    }

    @Test("validate names a token in a URL's user part or path, which it used to pass")
    func tokensInURLParts() throws {
        let github = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
        let cassette = Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "https://\(github)@github.test/o/r.git")!),
                        outcome: .response(RecordedResponse(status: 200))),
            Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "https://api.test/p/\(github)/info")!),
                        outcome: .response(RecordedResponse(status: 200))),
        ])
        let findings = SecretScanner.scan(cassette)
        #expect(findings.contains { $0.entry == 0 && $0.place == "request.url" && $0.reason.contains("user part looks like a token") }, "\(findings)")
        #expect(findings.contains { $0.entry == 1 && $0.place == "request.url path" && $0.reason.contains("GitHub token") }, "\(findings)")
    }

    @Test("a bearer token quoted in a body is redacted by cassette redact even when the request that carried it already was")
    func bearerInText() throws {
        // Given a stored exchange whose request is redacted but whose error page quotes the token
        let page = Data("<p>Rejected header: Authorization: Bearer abcDEF123456.xyz</p>".utf8)
        let stored = Interaction(
            index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/x")!, headers: [HeaderField("Authorization", "REDACTED")]),
            outcome: .response(RecordedResponse(status: 401, headers: [HeaderField("Content-Type", "text/html")], body: page)))
        #expect(!SecretScanner.scan(Cassette(interactions: [stored])).isEmpty, "validate flags it")
        // When redacted again
        let redacted = Redactor().redact(stored)
        // Then the token is gone, the word that says what it was is kept, and validate is content
        #expect(String(decoding: redacted.response?.body ?? Data(), as: UTF8.self) == "<p>Rejected header: Authorization: Bearer REDACTED</p>")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
    }

    @Test("cookie settings and words after 'Bearer' stay: only a cookie value shaped like a token is looked for, only a token after Bearer replaced")
    func settingsAndWordsStay() {
        // Given a request with a settings cookie and a session cookie, and a response using those words
        let request = RecordedRequest(method: "GET", url: URL(string: "http://api.test/me")!,
                                      headers: [HeaderField("Cookie", "consent=accepted; theme=darkmode; session=9f8e7d6c5b4a3210")])
        let text = #"{"status":"accepted","theme":"darkmode","msg":"Bearer authentication required","cupbearer":"cupbearer x1234567","sid":"9f8e7d6c5b4a3210"}"#
        let interaction = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(
            status: 401, headers: [HeaderField("Content-Type", "application/json")], body: Data(text.utf8))))
        // When redacted with the defaults
        let body = String(decoding: Redactor().redact(interaction).response?.body ?? Data(), as: UTF8.self)
        // Then the session id is gone, and the words are as they were
        #expect(body == text.replacingOccurrences(of: "9f8e7d6c5b4a3210", with: "REDACTED"), "\(body)")
        #expect(SecretScanner.scan(Cassette(interactions: [interaction])).allSatisfy { !$0.reason.contains("bearer") },
                "'Bearer authentication' is no token")
        // And rules that redact nothing keep every byte, cookie or not
        #expect(Redactor.none.redact(interaction) == interaction)
    }

    @Test("short values are not looked for in the response: a 4-character password does not blank every 'abcd' of the body")
    func shortValuesIgnored() {
        let request = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                      headers: [HeaderField("Content-Type", "application/json")], body: Data(#"{"password":"abcd"}"#.utf8))
        let interaction = Interaction(index: 0, request: request, outcome: .response(RecordedResponse(
            status: 200, headers: [HeaderField("Content-Type", "text/plain")], body: Data("abcdefgh".utf8))))
        #expect(Redactor().redact(interaction).response?.body == Data("abcdefgh".utf8))
    }
}
