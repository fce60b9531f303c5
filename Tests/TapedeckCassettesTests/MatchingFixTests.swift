import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// Requests a person would call the recorded one, which the player used to miss or answer with
/// another entry's reply: empty query pairs, form fields spelt two ways, a Chromium multipart
/// upload with accents, values redacted when recorded, entries that differ only in a value the
/// redactor hides, the exact URL rule, escapes that are not UTF-8.
@Suite("Cassettes: matching what a person would call the same request")
struct MatchingFixTests {
    private func entry(_ index: Int, _ method: String, _ url: String, headers: [HeaderField] = [], body: String? = nil, answer: String) -> Interaction {
        Interaction(index: index, request: RecordedRequest(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) }),
                    outcome: .response(RecordedResponse(status: 200, body: Data(answer.utf8))))
    }

    /// The body `player` answers with (nil: a miss).
    private func answer(_ player: CassettePlayer, _ url: String, method: String = "GET",
                        headers: [(String, String)] = [], body: String? = nil) -> String? {
        var fields = HTTPFieldsBuilder()
        for (name, value) in headers { fields.append(name, value) }
        let reply = player.reply(to: RequestSnapshot(method: .init(method)!, url: URL(string: url)!, headerFields: fields.fields, body: body.map { Data($0.utf8) }),
                                 context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .response(plan) = reply else { return nil }
        return String(decoding: plan.body, as: UTF8.self)
    }

    @Test("an empty query pair (a trailing or doubled &) is nothing a server reads: it matches either way round")
    func emptyQueryPairs() {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://api.test/p?a=1&", answer: "one"),
            entry(1, "GET", "http://api.test/q?&b=2&&c=3", answer: "two"),
        ]))
        #expect(answer(player, "http://api.test/p?a=1") == "one")
        #expect(answer(player, "http://api.test/q?c=3&b=2") == "two")
        #expect(answer(player, "http://api.test/p?a=1&&") == "one", "and a live empty pair too")
    }

    @Test("a Cookie header rule compares the cookies a server reads: any order, any spacing, redacted values matching any value; a missing cookie misses, naming only cookie names")
    func cookiesAsPairs() throws {
        let recorded = entry(0, "GET", "http://api.test/me", headers: [HeaderField("Cookie", "sid=REDACTED; theme=dark")], answer: "me")
        let rules = MatchRules(headers: ["Cookie"])
        func player() -> CassettePlayer { CassettePlayer(cassette: Cassette(interactions: [recorded]), rules: rules) }
        #expect(answer(player(), "http://api.test/me", headers: [("Cookie", "sid=abc; theme=dark")]) == "me")
        #expect(answer(player(), "http://api.test/me", headers: [("Cookie", "theme=dark; sid=abc")]) == "me", "curl's jar sends them the other way round")
        #expect(answer(player(), "http://api.test/me", headers: [("Cookie", "sid=abc;theme=dark")]) == "me")
        #expect(answer(player(), "http://api.test/me", headers: [("Cookie", "sid=abc")]) == nil, "a cookie missing")
        // Cookies in several fields are the cookies of all of them (RFC 9110 lets a client split them)
        #expect(answer(player(), "http://api.test/me", headers: [("Cookie", "theme=dark"), ("Cookie", "sid=abc")]) == "me")
        #expect(answer(player(), "http://api.test/me", headers: [("Cookie", "sid=abc; theme=dark"), ("Cookie", "extra=1")]) == nil,
                "a cookie in a second field counts too")
        let reasons = rules.mismatches(RecordedRequest(method: "GET", url: URL(string: "http://api.test/me")!, headers: [HeaderField("Cookie", "sid=s3cret")]),
                                       recorded.request)
        #expect(reasons == ["header Cookie: cookies sid ≠ sid, theme"], "names only, never a value: \(reasons)")
    }

    @Test("form fields compare as a server reads them: + or %20 for a space, either case of an escape, any order")
    func formFieldsDecoded() {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "POST", "http://api.test/form", headers: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
                  body: "q=hello+world&n=caf%C3%A9", answer: "found"),
        ]), rules: MatchRules(body: .form))
        #expect(answer(player, "http://api.test/form", method: "POST", body: "n=caf%c3%a9&q=hello%20world") == "found")
        #expect(answer(player, "http://api.test/form", method: "POST", body: "q=hello+there&n=caf%C3%A9") == nil, "another value is another request")
        // A miss names the field: one the live body lacks, or one whose value differs (by length only)
        func why(_ body: String) -> String {
            player.explainMiss(RecordedRequest(method: "POST", url: URL(string: "http://api.test/form")!, body: Data(body.utf8)))
        }
        #expect(why("q=x").contains("form fields differ: the recorded body has 'n', this one does not"), "\(why("q=x"))")
        #expect(why("q=hello+world&n=cafe&extra=1").contains("this body has 'extra'"), "\(why("q=hello+world&n=cafe&extra=1"))")
        #expect(why("q=hello+world&n=cafe").contains("form fields differ: 'n' (4 vs 4 characters)"), "\(why("q=hello+world&n=cafe"))")
    }

    @Test("values stored as REDACTED match any value in JSON, form and multipart bodies")
    func redactedBodyFieldsAreWildcards() {
        let json = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "POST", "http://api.test/verify", body: #"{"user":"ada","pin":"REDACTED","nested":{"otp":"REDACTED"}}"#, answer: "ok"),
        ]), rules: MatchRules(body: .json))
        #expect(answer(json, "http://api.test/verify", method: "POST", body: #"{"nested":{"otp":"991"},"pin":"1234","user":"ada"}"#) == "ok")
        #expect(answer(json, "http://api.test/verify", method: "POST", body: #"{"user":"bob","pin":"1234","nested":{"otp":"991"}}"#) == nil,
                "a field that was not redacted still decides")

        let form = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "POST", "http://api.test/login", body: "user=ada&pin=REDACTED", answer: "in"),
        ]), rules: MatchRules(body: .form))
        #expect(answer(form, "http://api.test/login", method: "POST", body: "pin=4321&user=ada") == "in")

        func multipart(_ boundary: String, pin: String) -> String {
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"pin\"\r\n\r\n\(pin)\r\n--\(boundary)--\r\n"
        }
        let parts = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "POST", "http://api.test/upload", headers: [HeaderField("Content-Type", "multipart/form-data; boundary=rec")],
                  body: multipart("rec", pin: "REDACTED"), answer: "stored"),
        ]), rules: MatchRules(body: .multipart))
        #expect(answer(parts, "http://api.test/upload", method: "POST", headers: [("Content-Type", "multipart/form-data; boundary=live")],
                       body: multipart("live", pin: "2468")) == "stored")
    }

    @Test("entries that differ only in a value the redactor hides: the one whose real value the client sent is preferred")
    func unredactedValuePreferred() {
        // `key` is a secret name to the default redactor, so both entries are /kv?key=REDACTED once redacted.
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://api.test/kv?key=alpha", answer: "A"),
            entry(1, "GET", "http://api.test/kv?key=beta", answer: "B"),
        ]))
        #expect(answer(player, "http://api.test/kv?key=beta") == "B")
        #expect(answer(player, "http://api.test/kv?key=alpha") == "A")
        #expect(answer(player, "http://api.test/kv?key=beta") == "B", "used up: the last match repeats")

        // Under a header rule, two users' tokens in another tool's unredacted HAR.
        let users = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://api.test/me", headers: [HeaderField("Authorization", "Bearer alice")], answer: "alice"),
            entry(1, "GET", "http://api.test/me", headers: [HeaderField("Authorization", "Bearer bob")], answer: "bob"),
        ]), rules: MatchRules(headers: ["Authorization"]))
        #expect(answer(users, "http://api.test/me", headers: [("Authorization", "Bearer bob")]) == "bob")

        // A token that changed since the recording still replays the entries in their order.
        let rotated = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://api.test/feed?token=t1", answer: "page 1"),
            entry(1, "GET", "http://api.test/feed?token=t1", answer: "page 2"),
        ]))
        #expect(answer(rotated, "http://api.test/feed?token=t9") == "page 1")
        #expect(answer(rotated, "http://api.test/feed?token=t9") == "page 2")
        #expect(rotated.consumedCount == 2)
    }

    @Test("of entries the default rule finds equal (a query in another order or spelling), the one recorded as the client asked answers it; with none, any equal one does, in recording order")
    func sameSpellingPreferred() {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://api.test/echo?tag=a&tag=b", answer: "a then b"),
            entry(1, "GET", "http://api.test/echo?tag=b&tag=a", answer: "b then a"),
            entry(2, "GET", "http://api.test/n?q=a+b", answer: "plus"),
            entry(3, "GET", "http://api.test/n?q=a%20b", answer: "escaped"),
            entry(4, "GET", "http://api.test/o?x=1&y=2", answer: "first"),
            entry(5, "GET", "http://api.test/o?y=2&x=1", answer: "second"),
        ]))
        // Asked in the other order than recorded, each gets its own
        #expect(answer(player, "http://api.test/echo?tag=b&tag=a") == "b then a")
        #expect(answer(player, "http://api.test/echo?tag=a&tag=b") == "a then b")
        #expect(answer(player, "http://api.test/n?q=a%20b") == "escaped")
        #expect(answer(player, "http://api.test/n?q=a+b") == "plus")
        // A spelling recorded by neither gets the equal entries in recording order
        #expect(answer(player, "http://api.test/o?x=1&y=2&") == "first")
        #expect(answer(player, "http://api.test/o?y=2&x=1") == "second")
        #expect(player.consumedCount == 6)
        // Replaying always the first match (no consumption), the same spelling is still preferred
        let first = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://api.test/echo?tag=a&tag=b", answer: "a then b"),
            entry(1, "GET", "http://api.test/echo?tag=b&tag=a", answer: "b then a"),
        ]), afterLast: .alwaysFirst)
        #expect(answer(first, "http://api.test/echo?tag=b&tag=a") == "b then a")
        #expect(answer(first, "http://api.test/echo?tag=b&tag=a") == "b then a")
    }

    @Test("the exact URL rule compares normalised URLs, with the query's order")
    func exactRuleNormalises() {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "GET", "http://www.example.com", answer: "home"),
            entry(1, "GET", "https://API.test:443/search?a=1&b=caf%c3%a9", answer: "found"),
        ]), rules: MatchRules(url: .exact))
        #expect(answer(player, "http://www.example.com/") == "home")
        #expect(answer(player, "https://api.test/search?a=1&b=caf%C3%A9") == "found")
        #expect(answer(player, "https://api.test/search?b=caf%C3%A9&a=1") == nil, "the order of the query's items counts")
        let reason = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "https://api.test/search?b=caf%C3%A9&a=1")!))
        #expect(reason.contains("in this order"), "\(reason)")
    }

    @Test("a query escape that is not UTF-8 matches in either case (caf%e9 is caf%E9)")
    func nonUTF8EscapesIgnoreCase() {
        let player = CassettePlayer(cassette: Cassette(interactions: [entry(0, "GET", "http://legacy.test/find?q=caf%E9", answer: "latin1")]))
        #expect(answer(player, "http://legacy.test/find?q=caf%e9") == "latin1")
        #expect(answer(player, "http://legacy.test/find?q=caf%E8") == nil)
    }

    @Test("a Chromium multipart upload with accents, stored as text with its UTF-8 size, is read as UTF-8 and matches")
    func chromiumMultipartUTF8() throws {
        let body = "------WebKitFormBoundaryQ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\ncafé\r\n"
            + "------WebKitFormBoundaryQ\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n------WebKitFormBoundaryQ--\r\n"
        let type = "multipart/form-data; boundary=----WebKitFormBoundaryQ"
        let entry: [String: Any] = [
            "startedDateTime": "2026-11-27T03:00:00.000Z", "time": 3,
            "request": ["method": "POST", "url": "http://127.0.0.1:18931/mp", "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [],
                        "headers": [["name": "Content-Type", "value": type], ["name": "Content-Length", "value": String(body.utf8.count)]],
                        "headersSize": -1, "bodySize": body.utf8.count, "postData": ["mimeType": type, "text": body]],
            "response": ["status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "redirectURL": "",
                         "headersSize": -1, "bodySize": 2, "content": ["size": 2, "mimeType": "text/plain", "text": "ok"]],
            "cache": [:], "timings": ["send": 0, "wait": 1, "receive": 0],
        ]
        let har: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "Playwright", "version": "1.65.0"], "entries": [entry]]]
        let data = try JSONSerialization.data(withJSONObject: har)
        let cassette = try HARCodec.decode(data, file: "pw.har")
        #expect(try #require(cassette.interactions.first).request.body == Data(body.utf8))

        let player = CassettePlayer(cassette: cassette, rules: MatchRules(body: .multipart))
        let live = body.replacingOccurrences(of: "----WebKitFormBoundaryQ", with: "curlBoundary7")
        #expect(answer(player, "http://127.0.0.1:18931/mp", method: "POST", headers: [("Content-Type", "multipart/form-data; boundary=curlBoundary7")],
                       body: live) == "ok")
    }
}
