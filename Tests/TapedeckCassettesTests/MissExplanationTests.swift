import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import HTTPTypes

/// What a miss says: the entries nearest the request first, the part of the URL that differs
/// named, and entries numbered as `tapedeck cassette inspect` numbers them.
@Suite("Cassettes: miss explanations and header rules")
struct MissExplanationTests {
    private func entry(_ index: Int, _ url: String, headers: [HeaderField] = []) -> Interaction {
        Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: url)!, headers: headers),
                    outcome: .response(RecordedResponse(status: 200)))
    }

    @Test("the nearest paths come first (not the first entries of the file), and another scheme or host is named as such")
    func nearestFirst() {
        let paths = ["/", "/api/items", "/api/items/1", "/api/me", "/api/orders", "/api/report", "/api/slow"]
        let player = CassettePlayer(cassette: Cassette(interactions: paths.enumerated().map { entry($0.offset, "http://127.0.0.1:8080" + $0.element) }))
        let slowx = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "http://127.0.0.1:8080/api/slowx")!))
        let lines = slowx.split(separator: "\n")
        #expect(lines.count == 4 && lines[1].contains("entry 6 GET http://127.0.0.1:8080/api/slow:"), "\(slowx)")
        let host = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "http://localhost:8080/api/slow")!))
        #expect(host.split(separator: "\n")[1].contains("entry 6") && host.contains("host localhost ≠ 127.0.0.1"), "\(host)")
        let scheme = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "https://127.0.0.1:8080/api/me")!))
        #expect(scheme.split(separator: "\n")[1].contains("entry 3") && scheme.contains("scheme https ≠ http"), "\(scheme)")
    }

    @Test("the same request recorded again is named beside the first rather than taking a place of its own")
    func sameRequestAgain() {
        let urls = ["/redirect/3", "/redirect/2", "/redirect/3", "/redirect/1", "/redirect/3"]
        let player = CassettePlayer(cassette: Cassette(interactions: urls.enumerated().map { entry($0.offset, "http://h.test" + $0.element) }))
        let why = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "http://h.test/redirect/4")!))
        let lines = why.split(separator: "\n")
        #expect(lines.count == 4 && lines[1].contains("entry 0 (and 2, 4, the same) GET http://h.test/redirect/3"), "\(why)")
        #expect(lines[2].contains("entry 1 GET") && lines[3].contains("entry 3 GET"), "\(why)")
    }

    @Test("a JSON body that differs is named by the first place it differs (never by value), a redacted value matching any")
    func jsonBodyPlace() {
        func request(_ body: String) -> RecordedRequest {
            RecordedRequest(method: "POST", url: URL(string: "http://api.test/search")!, headers: [HeaderField("Content-Type", "application/json")],
                            body: Data(body.utf8))
        }
        let rules = MatchRules(body: .json)
        let recorded = request(#"{"q": "spoon", "page": 1, "filters": {"tags": ["a", "b"]}, "token": "REDACTED"}"#)
        #expect(rules.mismatches(request(#"{"token": "t-123", "page": 1, "q": "spoon", "filters": {"tags": ["a", "b"]}}"#), recorded).isEmpty)
        #expect(rules.mismatches(request(#"{"q": "fork", "page": 1, "filters": {"tags": ["a", "b"]}, "token": "x"}"#), recorded)
                == ["JSON body differs at $.q"])
        #expect(rules.mismatches(request(#"{"q": "spoon", "page": 1, "filters": {"tags": ["a", "c"]}, "token": "x"}"#), recorded)
                == ["JSON body differs at $.filters.tags[1]"])
        #expect(rules.mismatches(request(#"{"q": "spoon", "page": 1, "filters": {"tags": ["a"]}, "token": "x"}"#), recorded)
                == ["JSON body differs at $.filters.tags (1 elements here, 2 recorded)"])
        #expect(rules.mismatches(request(#"{"q": "spoon", "filters": {"tags": ["a", "b"]}, "token": "x"}"#), recorded)
                == ["JSON body differs at $.page (the recorded request has it, this one does not)"])
        #expect(rules.mismatches(request(#"{"q": "spoon", "page": 1, "filters": {"tags": ["a", "b"]}, "token": "x", "my key": 2}"#), recorded)
                == ["JSON body differs at $['my key'] (this request has it, the recorded one does not)"])
    }

    @Test("a path sharing more of its start and end comes first, and in a large cassette the nearest entries are still found")
    func sharedStartAndEnd() {
        let player = CassettePlayer(cassette: Cassette(interactions: [entry(0, "http://a.test/json"), entry(1, "http://a.test/nothing-here")]))
        let nope = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "http://a.test/nope")!))
        #expect(nope.split(separator: "\n")[1].contains("entry 1 GET http://a.test/nothing-here"), "\(nope)")

        // 5,000 entries: the one differing only by its query, and the one by its method, are the
        // nearest, wherever they are in the file.
        var interactions = (0..<5_000).map { entry($0, "http://a.test/items/\($0)/detail") }
        interactions.append(entry(5_000, "http://a.test/orders/7?page=2"))
        interactions.append(Interaction(index: 5_001, request: RecordedRequest(method: "DELETE", url: URL(string: "http://a.test/orders/7?page=1")!),
                                        outcome: .response(RecordedResponse(status: 204))))
        let large = CassettePlayer(cassette: Cassette(interactions: interactions))
        let lines = large.explainMiss(RecordedRequest(method: "GET", url: URL(string: "http://a.test/orders/7?page=1")!)).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains("entry 5000 GET http://a.test/orders/7?page=2"), "\(lines)")
        #expect(lines[2].contains("entry 5001 DELETE http://a.test/orders/7?page=1: method"), "\(lines)")
    }

    @Test("the entry that matched but was played is named first, among 300 on one path, and under rules that ignore the method")
    func playedEntryIsFound() {
        func ask(_ player: CassettePlayer, _ request: RequestSnapshot) -> String {
            let reply = player.reply(to: request, context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
            guard case let .noMatch(reason) = reply else { return "answered" }
            return reason
        }
        let graphql = (0..<300).map { index in
            Interaction(index: index, request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/graphql")!, body: Data("q\(index)".utf8)),
                        outcome: .response(RecordedResponse(status: 200)))
        }
        let many = CassettePlayer(cassette: Cassette(interactions: graphql), rules: MatchRules(body: .raw), afterLast: .noMatch)
        #expect(ask(many, RequestSnapshot(method: .post, url: URL(string: "http://a.test/graphql")!, body: Data("q280".utf8))) == "answered")
        let again = ask(many, RequestSnapshot(method: .post, url: URL(string: "http://a.test/graphql")!, body: Data("q280".utf8)))
        #expect(again.split(separator: "\n")[1].contains("entry 280 POST http://a.test/graphql: matches, but was already played"), "\(again)")

        // Past the entries compared in full: the one with the request's query, or its body, is still found
        let tenants = (0..<1_500).map { entry($0, "http://a.test/items?id=\($0)", headers: [HeaderField("X-Tenant", "a")]) }
        let byTenant = CassettePlayer(cassette: Cassette(interactions: tenants), rules: MatchRules(headers: ["X-Tenant"]), afterLast: .noMatch)
        var other = RequestSnapshot(method: .get, url: URL(string: "http://a.test/items?id=1450")!)
        other.headerFields[HTTPField.Name("X-Tenant")!] = "b"
        let tenant = ask(byTenant, other)
        #expect(tenant.split(separator: "\n")[1].contains("entry 1450 GET http://a.test/items?id=1450: header X-Tenant"), "\(tenant)")
        let posts = (0..<1_500).map { index in
            Interaction(index: index, request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/graphql")!, body: Data("q\(index)".utf8)),
                        outcome: .response(RecordedResponse(status: 200)))
        }
        let played = CassettePlayer(cassette: Cassette(interactions: posts), rules: MatchRules(body: .raw), afterLast: .noMatch)
        #expect(ask(played, RequestSnapshot(method: .post, url: URL(string: "http://a.test/graphql")!, body: Data("q1280".utf8))) == "answered")
        let late = ask(played, RequestSnapshot(method: .post, url: URL(string: "http://a.test/graphql")!, body: Data("q1280".utf8)))
        #expect(late.split(separator: "\n")[1].contains("entry 1280 POST http://a.test/graphql: matches, but was already played"), "\(late)")

        let pages = (1...3).map { entry($0 - 1, "http://a.test/items?page=\($0)") }
        let posted = Interaction(index: 3, request: RecordedRequest(method: "POST", url: URL(string: "http://a.test/items")!),
                                 outcome: .response(RecordedResponse(status: 201)))
        let anyMethod = CassettePlayer(cassette: Cassette(interactions: pages + [posted]), rules: MatchRules(method: false), afterLast: .noMatch)
        #expect(ask(anyMethod, RequestSnapshot(method: .put, url: URL(string: "http://a.test/items")!)) == "answered")
        let put = ask(anyMethod, RequestSnapshot(method: .put, url: URL(string: "http://a.test/items")!))
        #expect(put.split(separator: "\n")[1].contains("entry 3 POST http://a.test/items: matches, but was already played"), "\(put)")
    }

    @Test("entries are numbered by their place in the file (entries skipped at load still count), as inspect lists them")
    func numberedAsInspected() {
        let player = CassettePlayer(cassette: Cassette(interactions: [entry(4, "http://a.test/me"), entry(6, "http://a.test/me/2")]))
        let text = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "http://a.test/you")!))
        #expect(text.contains("entry 4 GET http://a.test/me:") && text.contains("entry 6 GET http://a.test/me/2:"), "\(text)")
    }

    @Test("a redacted header matches any value but not its absence: an anonymous request is not the authenticated one")
    func redactedIsNotAbsent() {
        let rules = MatchRules(headers: ["Authorization"])
        let recorded = RecordedRequest(method: "GET", url: URL(string: "http://a.test/me")!, headers: [HeaderField("Authorization", "REDACTED")])
        let anonymous = RecordedRequest(method: "GET", url: URL(string: "http://a.test/me")!)
        let signedIn = RecordedRequest(method: "GET", url: URL(string: "http://a.test/me")!, headers: [HeaderField("Authorization", "Bearer t")])
        #expect(rules.mismatches(anonymous, recorded) == ["header Authorization: absent ≠ 'REDACTED'"])
        #expect(rules.mismatches(recorded, anonymous) == ["header Authorization: 'REDACTED' ≠ absent"])
        #expect(rules.mismatches(signedIn, recorded).isEmpty)
        #expect(rules.mismatches(anonymous, anonymous).isEmpty)
    }

    @Test("an empty pair in a query (a trailing '&') is nothing a server reads; a missing query is shown as (none)")
    func emptyQueryPairs() {
        let rules = MatchRules()
        func request(_ url: String) -> RecordedRequest { RecordedRequest(method: "GET", url: URL(string: url)!) }
        #expect(rules.mismatches(request("http://a.test/p?a=1&"), request("http://a.test/p?a=1")).isEmpty)
        #expect(rules.mismatches(request("http://a.test/p?&a=1"), request("http://a.test/p?a=1")).isEmpty)
        #expect(rules.mismatches(request("http://a.test/p?x=1"), request("http://a.test/p")) == ["query x=1 ≠ (none)"])
    }
}


extension MissExplanationTests {
    @Test("among many forms posted to one path, the one differing in fewest parts is named first, with the part that differs")
    func nearestForm() {
        func form(_ boundary: String, caption: String, file: String) -> RecordedRequest {
            var body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n\(caption)\r\n"
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\(file)\r\n"
            body += "--\(boundary)--\r\n"
            return RecordedRequest(method: "POST", url: URL(string: "http://a.test/photos")!,
                                   headers: [HeaderField("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: Data(body.utf8))
        }
        var interactions = (0..<6).map {
            Interaction(index: $0, request: form("rec\($0)", caption: "other \($0)", file: "bytes-\($0)"), outcome: .response(RecordedResponse(status: 201)))
        }
        interactions.append(Interaction(index: 6, request: form("rec6", caption: "sunset", file: "old-bytes"), outcome: .response(RecordedResponse(status: 201))))
        let player = CassettePlayer(cassette: Cassette(interactions: interactions), rules: MatchRules(body: .multipart))
        let why = player.explainMiss(form("live", caption: "sunset", file: "new-bytes"))
        let lines = why.split(separator: "\n")
        #expect(lines.count == 4 && lines[1].contains("entry 6 POST http://a.test/photos: body part 2 ('photo') differs in its content"), "\(why)")
    }
}
