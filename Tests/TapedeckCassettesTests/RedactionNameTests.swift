import Foundation
import Testing
import TapedeckHTTP
@testable import TapedeckCassettes

/// What the default redaction catches beyond its exact name lists: form fields, secrets a server
/// echoes under a header's name, headers and query items named like secrets, and what it leaves.
@Suite("Redaction: form bodies, echoed header names, secret-looking names; validate agrees with redact")
struct RedactionNameTests {
    private func echo() -> Interaction {
        let request = RecordedRequest(
            method: "POST", url: URL(string: "http://api.test/login?X-Auth-Token=QSECRET&page_token=PT&X-Amz-Signature=SIG&color=red")!,
            headers: [HeaderField("Content-Type", "application/x-www-form-urlencoded"), HeaderField("X-Api-Key", "HKEY")],
            body: Data("user=bob&password=FORMSECRET&pass+word=x&remember=1".utf8))
        let json = #"{"headers":{"X-Api-Key":"HKEY","Accept":"*/*"},"token_type":"Bearer","user":"bob","sessionToken":"ST2","nextPageToken":"NPT","has_password":true,"max_tokens":5}"#
        let response = RecordedResponse(
            status: 401, headers: [HeaderField("Content-Type", "application/json"), HeaderField("access_token", "ATQ"),
                                   HeaderField("WWW-Authenticate", #"Bearer realm="api""#), HeaderField("X-Session-Token", "ST"),
                                   HeaderField("X-RateLimit-Remaining-Tokens", "90"), HeaderField("Ocp-Apim-Subscription-Key", "SK")],
            body: Data(json.utf8))
        return Interaction(index: 0, request: request, outcome: .response(response))
    }

    @Test("the defaults redact a form's password, an echoed X-Api-Key, an access_token header and a token-named query item")
    func defaults() throws {
        // Given an exchange with secrets under names the exact lists do not hold
        let original = echo()
        // When redacted with the defaults
        let redacted = Redactor().redact(original)
        // Then each secret is gone, and what is not a secret stays as it was spelt
        #expect(String(decoding: try #require(redacted.request.body), as: UTF8.self) == "user=bob&password=REDACTED&pass+word=x&remember=1")
        let query = URLComponents(url: redacted.request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.map { "\($0.name)=\($0.value ?? "")" } == ["X-Auth-Token=REDACTED", "page_token=PT", "X-Amz-Signature=REDACTED", "color=red"],
                "a page token tells pages apart on replay: kept")
        let response = try #require(redacted.response)
        #expect(response.headers.value(for: "access_token") == "REDACTED")
        #expect(response.headers.value(for: "X-Session-Token") == "REDACTED")
        #expect(response.headers.value(for: "Ocp-Apim-Subscription-Key") == "REDACTED")
        #expect(response.headers.value(for: "X-RateLimit-Remaining-Tokens") == "90")
        #expect(response.headers.value(for: "WWW-Authenticate") == #"Bearer realm="api""#, "a challenge URLSession reads is kept")
        let body = try #require(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect((body["headers"] as? [String: String])?["X-Api-Key"] == "REDACTED")
        #expect((body["headers"] as? [String: String])?["Accept"] == "*/*")
        #expect(body["token_type"] as? String == "Bearer", "a name's last word decides, not a part of it")
        #expect(body["sessionToken"] as? String == "REDACTED")
        #expect(body["nextPageToken"] as? String == "NPT")
        #expect(body["has_password"] as? Bool == true, "a name rule redacts strings only: a client decoding a Bool still can")
        #expect(body["max_tokens"] as? Int == 5)
        // And validate finds nothing left; on the original it finds each of them.
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty, "\(SecretScanner.scan(Cassette(interactions: [redacted])))")
        let places = SecretScanner.scan(Cassette(interactions: [original])).map(\.place)
        for place in ["request.body form field 'password'", "request.url query 'X-Auth-Token'", "response.headers.access_token", "response.body field 'X-Api-Key'"] {
            #expect(places.contains(place), "\(places)")
        }
    }

    @Test("a value public by its shape stays under a secret's name (an image link, a PGP signature); a presigned or plain link, a user's own field, do not")
    func publicShapes() throws {
        // Given a body shaped as GitHub's emoji list and a commit's verification, beside secrets that look alike
        let json = #"""
        {"cookie": "https://assets.test/emoji/cookie.png?v8", "secret": "https://assets.test/emoji/secret.png?v8",
         "signature": "-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQ\n-----END PGP SIGNATURE-----\n",
         "token": "https://bucket.test/a.png?X-Amz-Signature=SIG", "password": "https://hooks.test/services/T0/B0/XYZ",
         "mine": "https://assets.test/mine.png", "client_secret": "https://assets.test/logo.png",
         "more": {"secret": ["https://files.test/file/bot123456:AAEsecret/photo.jpg", "https://assets.test/a.png#access_token=T",
                             "https://assets.test/a.png?hm=abcdef", "-----BEGIN PGP SIGNATURE-----\nx\n-----END PGP SIGNATURE-----\nhunter2",
                             "https://assets.test/b.png?v=8"]}}
        """#
        let interaction = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/emojis")!),
                                      outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")],
                                                                          body: Data(json.utf8))))
        // When redacted with the defaults, and with a field the user added
        let redacted = Redactor(extraJSONFields: ["mine"]).redact(interaction)
        let answer = try #require(redacted.response)
        let object = try #require(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        let body = object.compactMapValues { $0 as? String }
        // Then public shapes stay and everything else is replaced
        #expect(body["cookie"] == "https://assets.test/emoji/cookie.png?v8")
        #expect(body["secret"] == "https://assets.test/emoji/secret.png?v8")
        #expect(body["signature"]?.hasPrefix("-----BEGIN PGP SIGNATURE-----") == true)
        #expect(body["token"] == "REDACTED", "a presigned link's signature makes it a secret")
        #expect(body["password"] == "REDACTED", "a link to no static file may be the secret itself (a webhook)")
        #expect(body["mine"] == "REDACTED", "a field the user names is always redacted")
        #expect(body["client_secret"] == "REDACTED", "only a field named exactly secret, cookie or signature keeps a public shape")
        let more = (object["more"] as? [String: Any])?["secret"] as? [String]
        #expect(more == Array(repeating: "REDACTED", count: 4) + ["https://assets.test/b.png?v=8"],
                "a token in the path, a fragment, a query other than v, text after the signature: \(String(describing: more))")
        // And validate agrees: it flags only what redaction replaces (once redacted, nothing)
        let places = SecretScanner.scan(Cassette(interactions: [interaction])).map(\.place)
        #expect(places.contains("response.body field 'token'") && places.contains("response.body field 'password'"), "\(places)")
        #expect(places.contains("response.body field 'secret'"), "the list under more.secret holds secrets: \(places)")
        #expect(!places.contains { $0.contains("'cookie'") || $0.contains("'signature'") }, "\(places)")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty, "\(SecretScanner.scan(Cassette(interactions: [redacted])))")
    }

    @Test("rules given exactly, and none, apply no name heuristics")
    func exactRules() {
        let original = echo()
        #expect(Redactor.none.redact(original) == original)
        let exact = Redactor(headers: ["x-api-key"], queryItems: [], jsonFields: []).redact(original)
        #expect(exact.request.headers.value(for: "X-Api-Key") == "REDACTED")
        #expect(exact.request.body == original.request.body)
        #expect(exact.request.url == original.request.url)
        #expect(exact.response?.headers.value(for: "access_token") == "ATQ")
    }

    @Test("a name's words", arguments: [
        ("nextPageToken", ["next", "page", "token"]), ("APIKey", ["api", "key"]), ("X-Amz-Security-Token", ["x", "amz", "security", "token"]),
        ("client_secret", ["client", "secret"]), ("SecretAccessKey", ["secret", "access", "key"]), ("oauth2Token", ["oauth2", "token"]),
    ])
    func words(_ name: String, _ expected: [String]) {
        #expect(Redactor.words(of: name) == expected)
    }

    @Test("a compressed body that decodes past the inspection limit (a gzip bomb) is stored as it is, not decoded to look inside; the check skips it too")
    func bombIsNotInspected() throws {
        let json = Data(#"{"password":"hunter2","pad":""#.utf8) + Data(repeating: UInt8(ascii: " "), count: Redactor.inspectionLimit) + Data(#""}"#.utf8)
        let bomb = try Zlib.compress(json, format: .gzip)
        #expect(bomb.count < 1_048_576, "a small file that decodes large")
        let interaction = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/big")!),
                                      outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip"),
                                                                                                 HeaderField("Content-Type", "application/json")],
                                                                          body: bomb, bodyForm: .wire)))
        #expect(Redactor().redact(interaction) == interaction)
        #expect(SecretScanner.scan(Cassette(interactions: [interaction])).isEmpty)
        // Within the limit, the same secret is found and replaced.
        let small = try Zlib.compress(Data(#"{"password":"hunter2"}"#.utf8), format: .gzip)
        var within = interaction
        within.outcome = .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip")], body: small, bodyForm: .wire))
        let redacted = try #require(Redactor().redact(within).response)
        #expect(try Zlib.decompress(redacted.body, format: .gzip) == Data(#"{"password":"REDACTED"}"#.utf8))
    }

    @Test("frameworks' spellings of secrets are caught: Django's X-CSRFToken, a Rails form's user[password], pwd, pass, jwt, session ids")
    func frameworkSpellings() throws {
        let redactor = Redactor()
        for header in ["X-CSRFToken", "x-csrftoken", "X-XSRF-TOKEN", "X-Session-Id"] {
            #expect(redactor.isSecretHeader(header), "\(header)")
        }
        for item in ["jwt", "sessionid", "session_id", "JSESSIONID", "PHPSESSID", "pwd", "pass", "user[password]", "code_verifier", "oauth_verifier"] {
            #expect(redactor.isSecretQueryName(item), "\(item)")
        }
        for field in ["pwd", "pass", "passwd", "jwt", "sessionId"] {
            #expect(redactor.isSecretJSONField(field, value: "x"), "\(field)")
        }
        // Not secrets: names that only hold the letters, and a boolean under a secret-looking name.
        for name in ["passenger_count", "bypass", "session", "sessions", "compass_heading", "id"] {
            #expect(!redactor.isSecretQueryName(name) && !redactor.isSecretJSONField(name, value: "x"), "\(name)")
        }
        #expect(!redactor.isSecretJSONField("pass", value: true))
        let form = redactor.redactBody(Data("user[email]=a%40b.test&user[password]=hunter2".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(String(decoding: form, as: UTF8.self) == "user[email]=a%40b.test&user[password]=REDACTED")
    }

    @Test("a redacted URL keeps every other item as spelt: %2B stays %2B (decoded and encoded again it became +, a space)")
    func redactionKeepsSpelling() {
        let redactor = Redactor()
        #expect(redactor.redact(URL(string: "http://u.test/s?q=c%2B%2B&token=t")!).absoluteString == "http://u.test/s?q=c%2B%2B&token=REDACTED")
        #expect(redactor.redact(URL(string: "http://u.test/s?q=c%20%20&token=t")!).absoluteString == "http://u.test/s?q=c%20%20&token=REDACTED")
        // A link in a value is redacted inside and written back escaped.
        let link = redactor.redact(URL(string: "http://u.test/login?next=%2Faccount%3Ftoken%3Dabc&q=a%2Bb")!)
        #expect(link.absoluteString == "http://u.test/login?next=/account?token%3DREDACTED&q=a%2Bb")
        let next = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first?.value
        #expect(next == "/account?token=REDACTED")
    }

    @Test("links inside query values are redacted however deep and however spelt: a Location, a JSON link, an escaped link in an escaped link")
    func nestedLinks() throws {
        let redactor = Redactor()
        // A real SSO redirect, raw: the return address carries the token unescaped.
        #expect(redactor.redactURLText("/login?return=/account?token=SSO_161616") == "/login?return=/account?token=REDACTED")
        #expect(redactor.redactURLText("https://a.test/login?return=%2Faccount%3Faccess_token%3Dabc") == "https://a.test/login?return=/account?access_token%3DREDACTED")
        // Two levels, each escaped once more (httpbin's /redirect-to?url=…).
        let deep = redactor.redact(URL(string: "http://h.test/redirect-to?url=/login%3Freturn%3D/account%253Ftoken%253DDEEP_77")!)
        #expect(!deep.absoluteString.contains("DEEP_77"), "\(deep.absoluteString)")
        #expect(deep.absoluteString.contains("REDACTED"))

        let interaction = Interaction(
            index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://h.test/sso")!),
            outcome: .response(RecordedResponse(status: 302, headers: [HeaderField("Location", "/login?return=/account?token=SSO_161616"),
                                                                       HeaderField("Content-Type", "application/json")],
                                                body: Data(#"{"next":"https://h.test/login?return=/account?token=JSON_515"}"#.utf8))))
        let found = SecretScanner.scan(Cassette(interactions: [interaction])).map(\.description)
        #expect(found.contains { $0.contains("Location") && $0.contains("return → token") }, "\(found)")
        #expect(found.contains { $0.contains("link") && $0.contains("return → token") }, "\(found)")
        let redacted = redactor.redact(interaction)
        #expect(redacted.response?.headers.value(for: "Location") == "/login?return=/account?token=REDACTED")
        #expect(!String(decoding: try #require(redacted.response).body, as: UTF8.self).contains("JSON_515"))
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)

        // OAuth's implicit flow hands the token back in the redirect's fragment.
        let implicit = "https://app.test/callback#access_token=IMPLICIT_9&token_type=bearer&state=xyz"
        #expect(redactor.redactURLText(implicit) == "https://app.test/callback#access_token=REDACTED&token_type=bearer&state=xyz")
        #expect(redactor.redactURLText("https://app.test/docs#section-2") == "https://app.test/docs#section-2")
        let callback = Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "https://auth.test/authorize")!),
                                   outcome: .response(RecordedResponse(status: 302, headers: [HeaderField("Location", implicit)])))
        #expect(SecretScanner.scan(Cassette(interactions: [callback])).map(\.description).contains { $0.contains("access_token") })
    }

    @Test("a header is flagged for its name only when its value could be a credential; a session-affinity switch is not one")
    func suggestiveNames() {
        func findings(_ headers: [HeaderField]) -> [String] {
            let interaction = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://a.test/")!, headers: headers),
                                          outcome: .response(RecordedResponse(status: 200)))
            return SecretScanner.scan(Cassette(interactions: [interaction])).map(\.place)
        }
        #expect(findings([HeaderField("X-Auth", "d7f1a9c0e4b2")]) == ["request.headers.X-Auth"])
        #expect(findings([HeaderField("X-Auth", "1"), HeaderField("X-Cookie", "none")]).isEmpty)
        #expect(findings([HeaderField("Arr-Disable-Session-Affinity", "True"), HeaderField("X-Session", "blue-green-42")]).isEmpty)
        #expect(findings([HeaderField("X-Session", "5f2b9c0e41d7a8b3c6e2")]) == ["request.headers.X-Session"], "as long as an id")
        #expect(Redactor().isSecretHeader("X-Session-Key"))
    }
}

