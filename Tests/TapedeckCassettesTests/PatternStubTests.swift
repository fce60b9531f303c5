import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// WireMock and Hoverfly stubs that match by pattern, read as they are for replay: the pattern's
/// parts one by one, a folder of mappings replayed through a real URLSession (each stub answering
/// as often as asked, after every recorded request, lowest priority first), and import, which
/// writes HAR, still leaving them out and saying where they work.
@Suite("Cassettes: stubs matching by pattern (WireMock, Hoverfly) replayed as they are")
struct PatternStubTests {
    private func request(_ method: String, _ url: String, headers: [HeaderField] = [], body: String? = nil) -> RecordedRequest {
        RecordedRequest(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) })
    }

    @Test("a pattern's parts: a whole-match regex, a template, a glob, absent and present query items, a header ignoring case, a JSON body")
    func parts() {
        var users = StubPattern(shown: "users")
        users.method = "GET"
        users.path = .matches(regex: "/users/[0-9]+")
        #expect(users.matches(request("GET", "http://a.test/users/42")))
        #expect(users.matches(request("get", "http://other.test/users/7?x=1")), "any host, any query, the method's case aside")
        #expect(!users.matches(request("GET", "http://a.test/users/42/posts")), "the regex matches the whole path, as Java's matches() does")
        #expect(!users.matches(request("POST", "http://a.test/users/42")))

        var items = StubPattern(shown: "items")
        items.path = .template("/orders/{id}/items")
        #expect(items.matches(request("POST", "http://a.test/orders/9/items")))
        #expect(!items.matches(request("POST", "http://a.test/orders/9/8/items")), "a {name} is one segment")
        #expect(!items.matches(request("POST", "http://a.test/orders//items")))

        var tags = StubPattern(shown: "tags")
        tags.query = [StubPattern.Rule(name: "tag", value: .equal("a"), count: 1)]   // WireMock's hasExactly [a]
        #expect(tags.matches(request("GET", "http://a.test/t?tag=a")))
        #expect(!tags.matches(request("GET", "http://a.test/t?tag=a&tag=b")), "exactly one tag")
        #expect(StubPattern.Value.glob("/q?x*").matches("/q?x/1") && !StubPattern.Value.glob("/q?x").matches("/qzx"), "only * is special")

        var search = StubPattern(shown: "search")
        search.path = .glob("/search/*.json")
        search.query = [StubPattern.Rule(name: "q", value: .matches(regex: "sw.*")), StubPattern.Rule(name: "debug", value: .absent)]
        search.headers = [StubPattern.Rule(name: "accept", value: .equal("APPLICATION/JSON", ignoringCase: true))]
        let accept = [HeaderField("Accept", "application/json")]
        #expect(search.matches(request("GET", "http://a.test/search/all.json?q=swift", headers: accept)))
        #expect(!search.matches(request("GET", "http://a.test/search/all.json?q=swift&debug=1", headers: accept)), "debug must be absent")
        #expect(!search.matches(request("GET", "http://a.test/search/all.json?q=rust", headers: accept)))
        #expect(!search.matches(request("GET", "http://a.test/search/all.json?q=swift")), "the header is required")
        #expect(!search.matches(request("GET", "http://a.test/search/all.xml?q=swift", headers: accept)))

        var order = StubPattern(shown: "order")
        order.body = [.equalJSON(#"{"sku": "A1", "n": 2}"#)]
        #expect(order.matches(request("POST", "http://a.test/o", body: #"{"n":2,"sku":"A1"}"#)), "key order and spacing aside")
        #expect(!order.matches(request("POST", "http://a.test/o", body: #"{"n":3,"sku":"A1"}"#)))
        #expect(!order.matches(request("POST", "http://a.test/o")))
        #expect(!StubPattern.isValid(regex: "/users/[0-9+") && StubPattern.isValid(regex: "/users/[0-9]+"))
    }

    private func wireMockFolder(in directory: TemporaryDirectory) throws -> URL {
        let root = directory.file("wiremock")
        let mappings = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try Data("""
        {"mappings": [
          {"request": {"method": "GET", "urlPathPattern": "/users/[0-9]+"},
           "response": {"status": 200, "jsonBody": {"name": "someone"}, "headers": {"Content-Type": "application/json"}}},
          {"request": {"method": "GET", "urlPathPattern": "/users/9[0-9]*"}, "response": {"status": 200, "body": "nines"}},
          {"priority": 1, "request": {"method": "GET", "urlPathPattern": "/users/1"},
           "response": {"status": 200, "body": "the first user"}},
          {"request": {"method": "GET", "url": "/users/2"}, "response": {"status": 200, "body": "recorded"}},
          {"request": {"method": "GET", "urlPath": "/search", "queryParameters": {"q": {"absent": true}}},
           "response": {"status": 400, "body": "q is required"}},
          {"request": {"method": "POST", "urlPathTemplate": "/orders/{id}/items", "bodyPatterns": [{"equalToJson": {"sku": "A1"}}]},
           "response": {"status": 201, "body": "added"}},
          {"request": {"method": "GET", "urlPattern": "/broken/[0-9"}, "response": {"status": 200}}
        ]}
        """.utf8).write(to: mappings.appendingPathComponent("stubs.json"))
        return root
    }

    @Test("a WireMock folder replayed as it is: pattern stubs answer as often as asked, after recorded requests, the lowest priority first")
    func wireMockReplay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given a folder of mappings read as a replay reads it
        let cassette = try CassetteFile.read(try wireMockFolder(in: directory), foreign: .convert)
        #expect(cassette.interactions.count { $0.pattern != nil } == 5)
        #expect(cassette.skipped.count == 1 && cassette.skipped[0].error.reason.contains("not a regular expression"), "\(cassette.skipped)")
        // When a real URLSession asks
        let replay = SequentialReplay(cassette)
        func text(_ method: String, _ path: String, body: String? = nil) throws -> (Int?, String) {
            let result = try replay.send(request(method, "http://localhost:8080" + path, body: body))
            return (result.response?.statusCode, String(decoding: result.body, as: UTF8.self))
        }
        // Then each pattern answers every request it matches, as often as asked
        #expect(try text("GET", "/users/42") == (200, #"{"name":"someone"}"#))
        #expect(try text("GET", "/users/43") == (200, #"{"name":"someone"}"#))
        #expect(try text("GET", "/users/42") == (200, #"{"name":"someone"}"#))
        #expect(try text("GET", "/users/1") == (200, "the first user"), "priority 1 before the default 5")
        #expect(try text("GET", "/users/99") == (200, "nines"), "of equal priority, the later stub, as WireMock's most recent")
        #expect(try text("GET", "/users/2") == (200, "recorded"), "a recorded request before any pattern")
        #expect(try text("GET", "/search") == (400, "q is required"))
        #expect(try text("POST", "/orders/7/items", body: #"{ "sku" : "A1" }"#) == (201, "added"))
        let miss = try replay.send(request("GET", "http://localhost:8080/users/abc"))
        #expect(miss.response == nil, "nothing matches")
        #expect(replay.player.explainMiss(request("GET", "http://localhost:8080/users/abc")).contains("a stub matching by pattern (GET urlPathPattern"))
    }

    @Test("import, which writes HAR, leaves pattern stubs out saying where they work; HAR and export never hold one")
    func importLeavesThemOut() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let folder = try wireMockFolder(in: directory)
        let imported = try ForeignCassette.loadWireMock(folder: folder).cassette
        // (A path whose query item must be absent imports as the path, as it did, noted.)
        #expect(imported.interactions.map(\.request.url.path) == ["/users/2", "/search"])
        #expect(imported.skipped.filter { $0.error.hint.contains("tapedeck serve") }.count == 5, "\(imported.skipped)")
        // A cassette holding them (read as it is) writes only its recorded interactions.
        let asIs = try CassetteFile.read(folder, foreign: .convert)
        let written = try HARCodec.decode(HARCodec.encode(asIs), file: "x.har")
        #expect(written.interactions.map(\.request.url.path) == ["/users/2"])
        let export = try ForeignCassette.export(asIs, as: .vcrpy)
        #expect(export.written == 1 && export.leftOut.count { $0.contains("a stub matching by pattern") } == 5, "\(export.leftOut)")
    }

    @Test("a Hoverfly simulation read as it is: glob and regex matchers answer; exact pairs still replay in order")
    func hoverflyReplay() throws {
        let simulation = Data("""
        {"data": {"pairs": [
          {"request": {"path": [{"matcher": "glob", "value": "/search/*"}], "method": [{"matcher": "exact", "value": "GET"}]},
           "response": {"status": 200, "body": "[]"}},
          {"request": {"path": [{"matcher": "regex", "value": "^/v[0-9]/ping$"}], "destination": [{"matcher": "glob", "value": "*.test"}]},
           "response": {"status": 204}},
          {"request": {"path": [{"matcher": "exact", "value": "/exact"}], "method": [{"matcher": "exact", "value": "GET"}],
                       "destination": [{"matcher": "exact", "value": "api.test"}]},
           "response": {"status": 200, "body": "exact"}},
          {"request": {"path": [{"matcher": "regex", "value": "^/(?P<id>[0-9]+)$"}]}, "response": {"status": 200, "body": "go syntax"}}
        ]}, "meta": {"schemaVersion": "v5"}}
        """.utf8)
        let reading = try ForeignCassette.load(simulation, file: "sim.json", keepingPatterns: true)
        #expect(reading.cassette.interactions.count { $0.pattern != nil } == 2)
        #expect(reading.cassette.skipped.count == 1 && reading.cassette.skipped[0].error.reason.contains("(?P<name>"),
                "a regex that does not compile leaves its pair out, not a catch-all: \(reading.cassette.skipped)")
        let replay = SequentialReplay(reading.cassette)
        #expect(try replay.send(request("GET", "http://api.test/search/swift")).body == Data("[]".utf8))
        #expect(try replay.send(request("DELETE", "http://api.test/v2/ping")).response?.statusCode == 204, "no method matcher: any method")
        #expect(try replay.send(request("GET", "http://api.example/v2/ping")).response == nil, "the destination glob")
        #expect(try replay.send(request("GET", "http://api.test/exact")).body == Data("exact".utf8))
        // Read for import, the pattern pairs are left out as before.
        #expect(try ForeignCassette.load(simulation, file: "sim.json").cassette.interactions.count == 1)
    }

    @Test("a Hoverfly pair with a destination alone answers any method and path on that host; imported, it is GET / with both noted")
    func hoverflyDestinationOnly() throws {
        let simulation = Data("""
        {"data": {"pairs": [
          {"request": {"destination": [{"matcher": "exact", "value": "helloworld-test.com"}]}, "response": {"status": 200, "body": "Hello World"}},
          {"request": {"path": [{"matcher": "exact", "value": "/only-post"}], "method": []}, "response": {"status": 201, "body": "any method"}}
        ]}, "meta": {"schemaVersion": "v5.2"}}
        """.utf8)
        let reading = try ForeignCassette.load(simulation, file: "sim.json", keepingPatterns: true)
        let replay = SequentialReplay(reading.cassette)
        for (method, url) in [("GET", "http://helloworld-test.com/"), ("GET", "http://helloworld-test.com/hello"), ("POST", "http://helloworld-test.com/a/b?c=1")] {
            #expect(try replay.send(request(method, url)).body == Data("Hello World".utf8), "\(method) \(url)")
        }
        #expect(try replay.send(request("GET", "http://elsewhere.test/hello")).response == nil, "the destination still matters")
        #expect(try replay.send(request("PUT", "http://elsewhere.test/only-post")).body == Data("any method".utf8), "an empty method list: any method")
        let imported = try ForeignCassette.load(simulation, file: "sim.json").cassette
        #expect(imported.interactions.first?.request.url.absoluteString == "http://helloworld-test.com/")
        let notes = imported.notes.filter { $0.position == 0 }.map(\.field)
        #expect(notes.contains("request.method") && notes.contains("request.path"), "\(imported.notes)")
    }
}
