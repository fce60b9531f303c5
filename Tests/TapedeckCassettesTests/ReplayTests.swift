import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckCassettes
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A simulated world replaying one cassette to a real URLSession through the bridge.
private final class ReplayWorld: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; results are in a Mutex.
    let scheduler = SimulatedScheduler(seed: 3, violationPolicy: .record)
    let network: SimulatedNetwork
    let harness: Harness
    let session: URLSession
    let root: SimulatedQueue
    let player: CassettePlayer
    let results = Mutex<[String: (status: Int?, body: Data, error: URLError?)]>([:])

    /// Frees the sessions and the simulation when the test lets go of it (see Harness.endSimulation()).
    deinit {
        harness.endSimulation()
    }

    init(_ player: CassettePlayer, timingScale: Double = 0) {
        self.player = player
        network = SimulatedNetwork(scheduler: scheduler)
        network.add(Route(.any, responder: player, options: RouteOptions(latency: .recorded(scale: timingScale))))
        root = scheduler.makeSimulatedQueue(label: "client.rootQueue", target: nil)
        harness = Harness(network: network)   // sessions hold their harness weakly
        session = harness.makeSession(delegate: nil, delegateQueue: root)
    }

    /// Sends `request` (remembered under `key`) when the simulation runs.
    func send(_ key: String, _ request: URLRequest) {
        root.async { [self] in
            session.dataTask(with: request) { [self] data, response, error in
                results.withLock { $0[key] = ((response as? HTTPURLResponse)?.statusCode, data ?? Data(), error as? URLError) }
            }.resume()
        }
    }

    func send(_ key: String, _ url: String) {
        send(key, URLRequest(url: URL(string: url)!))
    }

    func run() throws -> [String: (status: Int?, body: Data, error: URLError?)] {
        try scheduler.runUntilIdle()
        return results.withLock { $0 }
    }
}

@Suite("Cassettes: replay through a real URLSession")
struct ReplayTests {
    @Test("a HAR written by mitmproxy replays: JSON, a gzip body stored decoded, binary, a POST, a 404")
    func mitmproxyHAR() throws {
        let url = fixturesDirectory.appendingPathComponent("interop/mitmproxy.har")
        let cassette = try CassetteFile.read(url)
        #expect(cassette.creator == "mitmproxy")
        // Default redaction on an unredacted recording: both sides are redacted before matching.
        let world = ReplayWorld(CassettePlayer(cassette: cassette))
        let base = "http://127.0.0.1:18081"
        var user = URLRequest(url: URL(string: base + "/users/1")!)
        user.setValue("Bearer another-token", forHTTPHeaderField: "Authorization")
        world.send("user", user)
        world.send("search", base + "/search?page=2&q=swift")      // query order differs from the recording
        world.send("gzip", base + "/gzip")
        world.send("image", base + "/image.png")
        var login = URLRequest(url: URL(string: base + "/login")!)
        login.httpMethod = "POST"
        login.httpBody = Data(#"{"user":"ada","password":"hunter2"}"#.utf8)
        world.send("login", login)
        world.send("missing", base + "/missing")
        let results = try world.run()
        #expect(results["user"]?.status == 200)
        let userText = String(decoding: results["user"]?.body ?? Data(), as: UTF8.self)
        #expect(userText.contains("Ada"))
        #expect(results["search"]?.status == 200)
        // mitmproxy kept Content-Encoding: gzip but stored the decoded text: the client gets that text.
        let gzipText = String(decoding: results["gzip"]?.body ?? Data(), as: UTF8.self)
        #expect(gzipText.hasPrefix("{") && gzipText.contains("gzip"), "\(gzipText)")
        let image = results["image"]?.body ?? Data()
        #expect(image.count == 209 && image.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(results["login"]?.status == 200)
        let loginText = String(decoding: results["login"]?.body ?? Data(), as: UTF8.self)
        #expect(loginText.contains("token"))
        #expect(results["missing"]?.status == 404)
        #expect(world.player.unplayed.isEmpty)
    }

    @Test("our own cassette replays: wire gzip arrives decoded, a recorded transport error fails the task")
    func ownCassette() throws {
        let world = ReplayWorld(CassettePlayer(cassette: try sampleCassette()))
        world.send("gzip", "http://api.test/gzip")
        world.send("decoded", "http://api.test/decoded")
        world.send("down", "http://down.test/")
        world.send("user", "http://api.test/users/1?a=1&b=2")
        let results = try world.run()
        #expect(results["gzip"]?.body == Data(#"{"compressed":true}"#.utf8))
        #expect(results["decoded"]?.body == Data("already decoded".utf8))
        #expect(results["down"]?.error?.code == .cannotConnectToHost)
        #expect(results["user"]?.status == 200)
    }

    @Test("br and zstd bodies stored as they travelled (tapedeck record's wire form) reach the client decoded, as Debian's libcurl hands them over")
    func brotliAndZstdWire() throws {
        // Given wire-form bodies in codings URLSession on this platform decodes.
        let text = Data(#"{"coding":"compressed","items":[1,2,3]}"#.utf8)
        func entry(_ index: Int, _ coding: String, _ body: Data) -> Interaction {
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/\(coding)")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json"),
                                                                                   HeaderField("Content-Encoding", coding)],
                                                            body: body, bodyForm: .wire)))
        }
        let world = ReplayWorld(CassettePlayer(cassette: Cassette(interactions: [
            entry(0, "br", try Brotli.compress(text)), entry(1, "zstd", try Zstd.compress(text)),
        ])))
        // When a URLSession asks for them.
        world.send("br", "http://api.test/br")
        world.send("zstd", "http://api.test/zstd")
        let results = try world.run()
        // Then it gets the decoded JSON, not the compressed bytes.
        #expect(results["br"]?.body == text)
        #expect(results["zstd"]?.body == text)
    }

    @Test("recorded timings on the virtual clock: instant, as recorded, or scaled")
    func timings() throws {
        func clock(after scale: Double) throws -> VirtualInstant {
            let world = ReplayWorld(CassettePlayer(cassette: try sampleCassette()), timingScale: scale)
            world.send("user", "http://api.test/users/1?b=2&a=1")
            _ = try world.run()
            return world.scheduler.now
        }
        // Entry 0: connect 3 ms, send 0.25 ms, wait 40 ms, receive 1.5 ms = 44.75 ms.
        #expect(try clock(after: 0) == .zero)
        #expect(try clock(after: 1) == VirtualInstant.zero.advanced(by: .microseconds(44_750)))
        #expect(try clock(after: 2) == VirtualInstant.zero.advanced(by: .microseconds(89_500)))
    }

    @Test("identical requests get the recorded answers in order; after the last, the policy decides")
    func consumedInOrder() throws {
        let recorded = Cassette(interactions: (0..<3).map { index in
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/poll")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("answer \(index)".utf8))))
        })
        for (policy, fourth) in [(CassettePlayer.AfterLast.repeatLast, "answer 2"), (.alwaysFirst, "answer 0"), (.noMatch, "")] {
            let world = ReplayWorld(CassettePlayer(cassette: recorded, afterLast: policy))
            // One at a time, so the order of sending is the order of asking.
            var bodies: [String] = []
            for attempt in 0..<4 {
                world.send("poll \(attempt)", "http://api.test/poll")
                let result = try world.run()["poll \(attempt)"]
                bodies.append(String(decoding: result?.body ?? Data(), as: UTF8.self))
                if policy == .noMatch && attempt == 3 { #expect(result?.error != nil) }
            }
            let expected = policy == .alwaysFirst ? ["answer 0", "answer 0", "answer 0", fourth] : ["answer 0", "answer 1", "answer 2", fourth]
            #expect(bodies == expected, "\(policy)")
        }
    }

    @Test("a miss lists first the entries on its own path (another method weighs less than another path); + in a query is a space")
    func missRankingAndPlus() throws {
        func entry(_ method: String, _ url: String) -> Interaction {
            Interaction(index: 0, request: RecordedRequest(method: method, url: URL(string: url)!), outcome: .response(RecordedResponse(status: 200)))
        }
        // Given POSTs elsewhere recorded before GETs of the path asked for
        let cassette = Cassette(interactions: [
            entry("POST", "http://api.test/post"), entry("POST", "http://api.test/post?x=1"),
            entry("GET", "http://api.test/get?a=1"), entry("GET", "http://api.test/search?q=hello%20world"),
        ].enumerated().map { position, interaction in
            var copy = interaction
            copy.index = position
            return copy
        })
        let player = CassettePlayer(cassette: cassette, source: "c.har")
        // When a DELETE of that path misses: then the GET of the path is named first
        let lines = player.explainMiss(RecordedRequest(method: "DELETE", url: URL(string: "http://api.test/get?b=2")!)).split(separator: "\n")
        #expect(lines.dropFirst().first?.hasPrefix("  entry 2 GET http://api.test/get?a=1:") == true, "\(lines)")
        // And a form-style query matches its %20 spelling
        let plus = RecordedRequest(method: "GET", url: URL(string: "http://api.test/search?q=hello+world")!)
        if case .noMatch = player.reply(to: RequestSnapshot(method: .get, url: plus.url), context: ResponderContext(exchange: 1, transaction: 0, time: .zero)) {
            Issue.record("no match: \(player.explainMiss(plus))")
        }
    }

    @Test("an unmatched request is an error naming the closest recorded entries and why each did not match")
    func explainsMisses() throws {
        let player = CassettePlayer(cassette: try sampleCassette(), source: "login.har.gz")
        let explanation = player.explainMiss(RecordedRequest(method: "DELETE", url: URL(string: "http://api.test/users/1?a=1&b=2")!))
        #expect(explanation.hasPrefix("login.har.gz: no recorded interaction matches DELETE http://api.test/users/1?a=1&b=2"))
        #expect(explanation.contains("entry 0 GET http://api.test/users/1?b=2&a=1: method DELETE ≠ GET"), "\(explanation)")
        #expect(explanation.split(separator: "\n").count == 4)

        let world = ReplayWorld(player)
        world.send("delete", {
            var request = URLRequest(url: URL(string: "http://api.test/users/1")!)
            request.httpMethod = "DELETE"
            return request
        }())
        let result = try world.run()["delete"]
        #expect(result?.error != nil, "strict playback: the task fails")
        #expect(world.network.records.last?.description.contains("method DELETE ≠ GET") == true,
                "\(String(describing: world.network.records.last))")
    }
}

@Suite("Cassettes: matching rules")
struct MatchingTests {
    private func request(_ method: String = "POST", url: String = "http://a.test/p?x=1&y=2", headers: [HeaderField] = [], body: String? = nil) -> RecordedRequest {
        RecordedRequest(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) })
    }

    @Test("default: method and URL, query order ignored, body and headers ignored")
    func defaults() {
        let rules = MatchRules()
        #expect(rules.mismatches(request(url: "http://a.test/p?y=2&x=1", body: "a"), request(body: "b")).isEmpty)
        #expect(rules.mismatches(request("GET"), request()) == ["method GET ≠ POST"])
        #expect(rules.mismatches(request(url: "http://a.test/p?x=1&y=3"), request()).count == 1)
        #expect(rules.mismatches(request(url: "http://a.test/q?x=1&y=2"), request()).count == 1)
        #expect(!MatchRules(url: .exact).mismatches(request(url: "http://a.test/p?y=2&x=1"), request()).isEmpty)
        #expect(MatchRules(url: .ignoringQuery).mismatches(request(url: "http://a.test/p?z=9"), request()).isEmpty)
    }

    @Test("bodies: raw bytes, JSON ignoring key order, form fields ignoring order, multipart ignoring the boundary")
    func bodies() {
        #expect(!MatchRules(body: .raw).mismatches(request(body: #"{"a":1,"b":2}"#), request(body: #"{"b":2,"a":1}"#)).isEmpty)
        #expect(MatchRules(body: .json).mismatches(request(body: #"{"a":1,"b":[1,2]}"#), request(body: #"{ "b":[1,2], "a":1 }"#)).isEmpty)
        #expect(!MatchRules(body: .json).mismatches(request(body: #"{"a":1}"#), request(body: #"{"a":2}"#)).isEmpty)
        #expect(MatchRules(body: .form).mismatches(request(body: "a=1&b=2"), request(body: "b=2&a=1")).isEmpty)
        func multipart(_ boundary: String, _ value: String) -> RecordedRequest {
            request(headers: [HeaderField("Content-Type", "multipart/form-data; boundary=\(boundary)")],
                    body: "--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n\(value)\r\n--\(boundary)--\r\n")
        }
        #expect(MatchRules(body: .multipart).mismatches(multipart("AAA", "v"), multipart("BBBBBB", "v")).isEmpty)
        #expect(MatchRules(body: .multipart).mismatches(multipart("AAA", "v"), multipart("BBBBBB", "w"))
                == ["body part 1 ('f') differs in its content (1 vs 1 bytes)"])
        #expect(MatchRules(body: .multipart).mismatches(request(body: "plain"), multipart("B", "v"))
                == ["body is not a multipart form (no multipart Content-Type with a boundary); the recorded one is"])
        // Raw matching says where the bytes part, and that two forms would match as multipart.
        #expect(MatchRules(body: .raw).mismatches(multipart("AAA", "v"), multipart("BBB", "v"))
                == ["body differs (63 vs 63 bytes, first at byte 2); both are multipart forms: match bodies as multipart to compare their parts whatever the boundary"])
    }

    @Test("chosen headers must match, except that a redacted value matches any value (not its absence); a custom rule has the last word")
    func headersAndCustom() {
        let rules = MatchRules(headers: ["X-Tenant", "Authorization"])
        let recorded = request(headers: [HeaderField("x-tenant", "blue"), HeaderField("Authorization", Redactor.placeholder)])
        #expect(rules.mismatches(request(headers: [HeaderField("X-Tenant", "blue"), HeaderField("Authorization", "Bearer live")]), recorded).isEmpty)
        #expect(rules.mismatches(request(headers: [HeaderField("X-Tenant", "red")]), recorded)
                == ["header X-Tenant: 'red' ≠ 'blue'", "header Authorization: absent ≠ 'REDACTED'"], "a redacted value is some value, not none")
        let custom = MatchRules(custom: { live, _ in live.url.fragment == nil ? nil : "fragments are not replayed" })
        #expect(custom.mismatches(request(url: "http://a.test/p?x=1&y=2#top"), request()) == ["fragments are not replayed"])
    }
}

@Suite("Cassettes: redaction and the secrets check")
struct RedactionTests {
    private func secretive() -> Interaction {
        Interaction(
            index: 0,
            request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/login?api_key=k123&page=1")!,
                                     headers: [HeaderField("Authorization", "Bearer abcdefghijklmnop"), HeaderField("Accept", "*/*")],
                                     body: Data(#"{"user":"ada","password":"hunter2"}"#.utf8)),
            outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json"),
                                                                       HeaderField("Set-Cookie", "session=s3cr3t")],
                                                body: Data(#"{"profile":{"token":"t0k3n","name":"Ada"}}"#.utf8))))
    }

    @Test("the default rules replace credential headers, query items and JSON fields, and nothing else")
    func redacts() throws {
        let redacted = Redactor().redact(secretive())
        #expect(redacted.request.headers == [HeaderField("Authorization", "REDACTED"), HeaderField("Accept", "*/*")])
        #expect(redacted.request.url.absoluteString == "http://a.test/login?api_key=REDACTED&page=1")
        let body = try JSONSerialization.jsonObject(with: redacted.request.body!) as? [String: String]
        #expect(body == ["user": "ada", "password": "REDACTED"])
        let response = try #require(redacted.response)
        #expect(response.headers.value(for: "Set-Cookie") == "session=REDACTED")
        // Only the secret's bytes change: the server's key order stays.
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"profile":{"token":"REDACTED","name":"Ada"}}"#)
    }

    @Test("cookies lose their values, never their names or attributes: Cookie pairs, Set-Cookie with Expires, folded Set-Cookie fields")
    func cookiesByValue() throws {
        let interaction = Interaction(
            index: 0,
            request: RecordedRequest(method: "GET", url: URL(string: "http://a.test/")!,
                                     headers: [HeaderField("Cookie", "theme=dark; sid=abc123;flag")]),
            outcome: .response(RecordedResponse(status: 200, headers: [
                HeaderField("Set-Cookie", "sid=xyz; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly"),
                // URLSession folds repeated fields with ", ".
                HeaderField("Set-Cookie", "a=1; Path=/, b=2; Expires=Thu, 01 Jan 2026 00:00:00 GMT, c=3"),
            ])))
        let redacted = Redactor().redact(interaction)
        #expect(redacted.request.headers.value(for: "Cookie") == "theme=REDACTED; sid=REDACTED;REDACTED")
        let setCookies = try #require(redacted.response).headers.filter { $0.name == "Set-Cookie" }.map(\.value)
        #expect(setCookies == ["sid=REDACTED; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly",
                               "a=REDACTED; Path=/, b=REDACTED; Expires=Thu, 01 Jan 2026 00:00:00 GMT, c=REDACTED"])
        #expect(Redactor().redact(redacted) == redacted, "redacting again changes nothing")
        // Anything in a Set-Cookie that is not a known attribute could be a secret: its value goes too.
        let odd = Redactor().redact([HeaderField("Set-Cookie", "a=1; sid=secret; Path=/, sid =also; Secure, =tok; HttpOnly")])
        #expect(odd.first?.value == "a=REDACTED; sid=REDACTED; Path=/, sid =REDACTED; Secure, =REDACTED; HttpOnly", "\(odd)")
        #expect(SecretScanner.scan(Cassette(interactions: [redacted])).isEmpty)
        let places = SecretScanner.scan(Cassette(interactions: [interaction])).map(\.place)
        #expect(places.contains("request.headers.Cookie") && places.contains("response.headers.Set-Cookie"), "\(places)")
        // Replay: a live request with other cookie values matches the redacted recording.
        let player = CassettePlayer(cassette: Cassette(interactions: [redacted]), rules: MatchRules(headers: ["Cookie"]))
        var fields = HTTPFieldsBuilder()
        fields.append("Cookie", "theme=light; sid=other;flag")
        let reply = player.reply(to: RequestSnapshot(method: .get, url: URL(string: "http://a.test/")!, headerFields: fields.fields),
                                 context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case .response = reply else { Issue.record("no match: \(reply)"); return }
    }

    @Test("a redacted body's Content-Length follows it (wire bodies); JSON without a JSON type is redacted too")
    func lengthsAndUnlabelledJSON() throws {
        let echo = Data(#"{"user":"ada","password":"correct horse battery"}"#.utf8)
        let interaction = Interaction(
            index: 0,
            request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/echo")!,
                                     headers: [HeaderField("Content-Length", String(echo.count))], body: echo),
            outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/octet-stream"),
                                                                       HeaderField("Content-Length", String(echo.count))], body: echo)))
        let redacted = Redactor().redact(interaction)
        let response = try #require(redacted.response)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("correct horse"))
        #expect(response.headers.value(for: "Content-Length") == String(response.body.count))
        #expect(redacted.request.headers.value(for: "Content-Length") == String(redacted.request.body?.count ?? -1))
        // A decoded body keeps the wire's length header (what libcurl hands a client too).
        var decoded = interaction
        decoded.outcome = .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip"),
                                                                            HeaderField("Content-Length", "31")],
                                                     body: echo, bodyForm: .decoded))
        #expect(Redactor().redact(decoded).response?.headers.value(for: "Content-Length") == "31")
        // Compressed wire bytes are redacted inside and compressed again; the scanner looks inside too.
        var compressed = interaction
        let gzipped = try Zlib.compress(echo, format: .gzip)
        compressed.outcome = .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip"),
                                                                               HeaderField("Content-Length", String(gzipped.count))],
                                                        body: gzipped, bodyForm: .wire))
        #expect(SecretScanner.scan(Cassette(interactions: [compressed])).contains { $0.place.hasPrefix("response.body (decoded gzip)") })
        let wire = try #require(Redactor().redact(compressed).response)
        let inside = String(decoding: try Zlib.decompress(wire.body, format: .gzip), as: UTF8.self)
        #expect(inside.contains(#""password":"REDACTED""#) && !inside.contains("correct horse"))
        #expect(wire.headers.value(for: "Content-Length") == String(wire.body.count))
        #expect(SecretScanner.scan(Cassette(interactions: [Redactor().redact(compressed)])).isEmpty)
        // br and zstd wire bodies too (tapedeck record keeps them as they travelled).
        for coding in ["br", "zstd"] {
            var packed = interaction
            let body = try #require(try ContentCoding.encode(echo, contentEncoding: coding))
            packed.outcome = .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", coding)], body: body, bodyForm: .wire))
            #expect(SecretScanner.scan(Cassette(interactions: [packed])).contains { $0.place.hasPrefix("response.body (decoded \(coding))") })
            let cleaned = try #require(Redactor().redact(packed).response)
            let plain = String(decoding: try ContentCoding.decode(cleaned.body, contentEncoding: coding), as: UTF8.self)
            #expect(plain.contains(#""password":"REDACTED""#) && !plain.contains("correct horse"), "\(coding)")
        }
        // Binary that merely starts with "{" is left alone.
        let binary = Data([0x7B, 0x00, 0xFF, 0x10])
        #expect(Redactor().redactJSON(binary, contentType: nil) == binary)
    }

    @Test("the secrets check finds what redaction would remove, plus recognisable token shapes; nothing after redaction")
    func scans() {
        let findings = SecretScanner.scan(Cassette(interactions: [secretive()]))
        let places = Set(findings.map(\.place))
        #expect(places.isSuperset(of: ["request.headers.Authorization", "request.url query 'api_key'", "request.body field 'password'",
                                       "response.headers.Set-Cookie", "response.body field 'token'"]), "\(places)")
        #expect(SecretScanner.scan(Cassette(interactions: [Redactor().redact(secretive())])).isEmpty)
        let jwt = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://a.test/")!,
                                                                 headers: [HeaderField("X-Debug", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc")]),
                              outcome: .response(RecordedResponse(status: 204)))
        #expect(SecretScanner.scan(Cassette(interactions: [jwt])).map(\.reason) == ["the value looks like a JSON Web Token"])
    }

    @Test("replay matches a live request carrying the real secret against the redacted recording")
    func matchesRedacted() throws {
        let player = CassettePlayer(cassette: Cassette(interactions: [Redactor().redact(secretive())]))
        let reply = player.reply(
            to: RequestSnapshot(method: .post, url: URL(string: "http://a.test/login?page=1&api_key=another")!),
            context: ResponderContext(exchange: 0, transaction: 0, time: .zero))
        guard case let .response(plan) = reply else {
            Issue.record("expected a response, got \(reply)")
            return
        }
        #expect(plan.head.status == 200)
    }
}
