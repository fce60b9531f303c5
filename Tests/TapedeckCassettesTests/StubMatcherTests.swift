import Foundation
import Testing
@testable import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// The body, header and cookie matchers of WireMock and Hoverfly stubs read as they are:
/// JSONPath expressions (Jayway's reading, which WireMock uses), `equalToJson` with its options and
/// JsonUnit's placeholders, `and`/`or`/`not`, `binaryEqualTo`, Hoverfly's `jsonPartial`, and stubs
/// with an exact URL told apart by their body or headers, replayed through a real URLSession.
@Suite("Cassettes: WireMock and Hoverfly body, header and cookie matchers")
struct StubMatcherTests {
    private let store = """
    {"store": {"book": [
      {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
      {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
      {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3", "price": 8.99},
      {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": "0-395-19395-8", "price": 22.99}
    ], "bicycle": {"color": "red", "price": 19.95}}, "expensive": 10, "empty": [], "nothing": null}
    """

    private func selected(_ expression: String) -> [String]? {
        guard let path = JSONPath.compiled(expression), let document = ForeignNode.json(Data(store.utf8)) else { return nil }
        return path.select(in: document).map { node in node.string ?? node.jsonText() }
    }

    @Test("JSONPath: names, indexes, slices, wildcards, any depth, lengths and filters select what Jayway selects")
    func jsonPathSelection() {
        #expect(selected("$.store.bicycle.color") == ["red"])
        #expect(selected("$['store']['bicycle']['price']") == ["19.95"])
        #expect(selected("$.store.book[*].author") == ["Nigel Rees", "Evelyn Waugh", "Herman Melville", "J. R. R. Tolkien"])
        #expect(selected("$..author")?.count == 4)
        #expect(selected("$.store.*")?.count == 2)
        #expect(selected("$..price")?.count == 5)
        #expect(selected("$..book[2].title") == ["Moby Dick"])
        #expect(selected("$..book[-1].title") == ["The Lord of the Rings"])
        #expect(selected("$..book[0,1].title") == ["Sayings of the Century", "Sword of Honour"])
        #expect(selected("$..book[:2].price") == ["8.95", "12.99"])
        #expect(selected("$..book[1:].price")?.count == 3)
        #expect(selected("$..book[?(@.isbn)].title") == ["Moby Dick", "The Lord of the Rings"])
        #expect(selected("$.store.book[?(@.price < 10)].title") == ["Sayings of the Century", "Moby Dick"])
        #expect(selected("$..book[?(@.price <= $['expensive'])].title") == ["Sayings of the Century", "Moby Dick"])
        #expect(selected("$..book[?(@.author =~ /.*REES/i)].title") == ["Sayings of the Century"])
        #expect(selected("$..book[?(@.category == 'fiction' && @.price > 20)].title") == ["The Lord of the Rings"])
        #expect(selected("$..book[?(@.category != 'fiction' || !(@.price > 9))].title") == ["Sayings of the Century", "Moby Dick"])
        #expect(selected("$..book[?(@.author in ['Evelyn Waugh', 'Nobody'])].price") == ["12.99"])
        #expect(selected("$..book[?(@.title size 9)].author") == ["Herman Melville"])
        #expect(selected("$.store.book.length()") == ["4"])
        #expect(selected("$[?(@.expensive == 10)].expensive") == ["10"], "a filter on an object tests the object itself")
        #expect(selected("$.store.missing") == [])
        #expect(selected("store.bicycle.color") == ["red"], "Jayway reads a path without its $")
        for broken in ["$.store[", "$[?(@.a == )]", "$.a.b(", "$..", "$.store.book.first()", "$[?(@.a == 'x']"] {
            #expect(JSONPath.compiled(broken) == nil, "\(broken)")
        }
    }

    @Test("matchesJsonPath decides as WireMock does: something not null and not empty; with a matcher, something selected matching it")
    func matchesJsonPath() {
        func holds(_ expression: String, _ body: String, then: StubPattern.Value? = nil) -> Bool {
            StubPattern.Value.jsonPath(expression, then: then).matches(body: Data(body.utf8))
        }
        #expect(holds("$.name", #"{"name": "Tom"}"#))
        #expect(!holds("$.name", #"{"other": "Tom"}"#))
        #expect(!holds("$.name", #"{"name": null}"#), "a null value does not match")
        #expect(!holds("$.things", #"{"things": []}"#), "nor an empty array")
        #expect(holds("$.things[?(@.name == 'RequiredThing')]", #"{"things": [{"name": "RequiredThing"}, {"name": "Other"}]}"#))
        #expect(!holds("$.things[?(@.name == 'RequiredThing')]", #"{"things": [{"name": "Other"}]}"#))
        #expect(holds("$[?(@.operationName == 'GetUser')]", #"{"operationName": "GetUser", "variables": {}}"#))
        #expect(!holds("$[?(@.operationName == 'GetUser')]", #"{"operationName": "GetPosts"}"#))
        #expect(!holds("$.name", "<name>Tom</name>"), "XML is not read as JSON")
        #expect(!holds("$.name", "not json"))
        #expect(holds("$.name", #"{"name": "Tom"}"#, then: .equal("Tom")))
        #expect(!holds("$.name", #"{"name": "Tim"}"#, then: .equal("Tom")))
        #expect(holds("$.tags", #"{"tags": ["a", "b"]}"#, then: .equal("b")), "an array's elements are matched one by one")
        #expect(holds("$.count", #"{"count": 3}"#, then: .matches(regex: "[0-9]+")))
        #expect(holds("$.missing", #"{"name": "Tom"}"#, then: .absent))
        #expect(!holds("$.name", #"{"name": "Tom"}"#, then: .absent))
        #expect(holds("$.address", #"{"address": {"city": "Oslo", "zip": "0150"}}"#, then: .equalJSON(#"{"zip": "0150", "city": "Oslo"}"#)))
        #expect(holds("$.items.length()", #"{"items": [1, 2, 3]}"#, then: .equal("3")))
    }

    @Test("equalToJson with WireMock's options and JsonUnit's placeholders; Hoverfly's jsonPartial; and, or, not; bytes")
    func jsonEquality() {
        func equal(_ expected: String, _ body: String, order: Bool = false, extra: Bool = false) -> Bool {
            StubPattern.Value.equalJSON(expected, ignoringArrayOrder: order, ignoringExtraElements: extra).matches(body)
        }
        #expect(equal(#"{"a": 1, "b": [1, 2]}"#, #"{"b": [1, 2], "a": 1.0}"#), "key order aside; numbers by value")
        #expect(!equal(#"{"b": [1, 2]}"#, #"{"b": [2, 1]}"#))
        #expect(equal(#"{"b": [1, 2]}"#, #"{"b": [2, 1]}"#, order: true))
        #expect(!equal(#"{"a": 1}"#, #"{"a": 1, "b": 2}"#))
        #expect(equal(#"{"a": 1}"#, #"{"a": 1, "b": 2}"#, extra: true))
        #expect(equal(#"{"a": [{"id": 2}, {"id": 1}]}"#, #"{"a": [{"id": 1, "x": 0}, {"id": 2, "y": 0}, {"id": 3}]}"#, order: true, extra: true))
        #expect(equal(#"{"id": "${json-unit.any-number}", "name": "${json-unit.any-string}", "at": "${json-unit.ignore}"}"#,
                      #"{"id": 7, "name": "x", "at": [1]}"#))
        #expect(!equal(#"{"id": "${json-unit.any-number}"}"#, #"{"id": "7"}"#))
        #expect(equal(#"{"code": "${json-unit.regex}[A-Z]{3}"}"#, #"{"code": "ABC"}"#))
        #expect(!equal(#"{"code": "${json-unit.regex}[A-Z]{3}"}"#, #"{"code": "ABCD"}"#))

        let partial = StubPattern.Value.containsJSON(#"{"user": {"id": 1}, "roles": ["admin"]}"#)
        #expect(partial.matches(#"{"data": {"user": {"id": 1, "name": "x"}, "roles": ["dev", "admin"]}}"#), "an object at any depth")
        #expect(!partial.matches(#"{"data": {"user": {"id": 2}, "roles": ["admin"]}}"#))

        let combined = StubPattern.Value.all([.contains("x"), .not(.contains("y"))])
        #expect(combined.matches("xx") && !combined.matches("xy") && !combined.matches(nil))
        #expect(StubPattern.Value.any([.equal("a"), .equal("b")]).matches("b"))
        let bytes = StubPattern.Value.bytes(Data([0xFF, 0x00, 0x80]))
        #expect(bytes.matches(body: Data([0xFF, 0x00, 0x80])) && !bytes.matches(body: Data([0xFF, 0x00])))
    }

    @Test("WireMock stubs on one URL told apart by body, header, cookie or credentials answer as WireMock does, and still convert to HAR")
    func exactURLStubsByMatchers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let mappings = directory.file("wm").appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try Data("""
        {"mappings": [
          {"request": {"method": "POST", "url": "/graphql", "bodyPatterns": [{"matchesJsonPath": "$[?(@.operationName == 'GetUser')]"}]},
           "response": {"status": 200, "body": "user"}},
          {"request": {"method": "POST", "url": "/graphql", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.operationName", "equalTo": "GetPosts"}}]},
           "response": {"status": 200, "body": "posts"}},
          {"request": {"method": "POST", "url": "/orders", "bodyPatterns": [{"equalToJson": {"sku": "A1", "tags": ["b", "a"]}, "ignoreArrayOrder": true, "ignoreExtraElements": true}]},
           "response": {"status": 201, "body": "ordered"}},
          {"request": {"method": "GET", "url": "/ping", "headers": {"Authorization": {"equalTo": "Bearer good"}}},
           "response": {"status": 200, "body": "pong"}},
          {"request": {"method": "GET", "url": "/me", "cookies": {"session": {"matches": "s-[0-9]+"}}},
           "response": {"status": 200, "body": "me"}},
          {"request": {"method": "GET", "url": "/admin", "basicAuthCredentials": {"username": "u", "password": "p"}},
           "response": {"status": 200, "body": "admin"}},
          {"request": {"method": "PUT", "url": "/blob", "bodyPatterns": [{"binaryEqualTo": "/wCA"}]}, "response": {"status": 204}}
        ]}
        """.utf8).write(to: mappings.appendingPathComponent("stubs.json"))
        let cassette = try CassetteFile.read(mappings.deletingLastPathComponent(), foreign: .convert)
        #expect(cassette.interactions.allSatisfy { $0.pattern?.namesItsRequest == true }, "every stub answers by its matchers")
        #expect(cassette.skipped.isEmpty && cassette.notes.isEmpty, "\(cassette.skipped) \(cassette.notes)")

        let replay = SequentialReplay(cassette)
        func answer(_ method: String, _ path: String, body: String? = nil, bytes: Data? = nil, headers: [String: String] = [:]) throws -> String {
            var request = RecordedRequest(method: method, url: URL(string: "http://localhost:8080" + path)!, body: body.map { Data($0.utf8) })
            if let bytes { request.body = bytes }
            let result = try replay.send(request, headers: headers)
            return result.response.map { "\($0.statusCode) " + String(decoding: result.body, as: UTF8.self) } ?? "miss"
        }
        // The order asked is not the order in the file: each answer is chosen by the body.
        #expect(try answer("POST", "/graphql", body: #"{"operationName": "GetPosts", "variables": {}}"#) == "200 posts")
        #expect(try answer("POST", "/graphql", body: #"{"operationName": "GetUser"}"#) == "200 user")
        #expect(try answer("POST", "/graphql", body: #"{"operationName": "GetPosts"}"#) == "200 posts", "as often as asked")
        #expect(try answer("POST", "/graphql", body: #"{"operationName": "Other"}"#) == "miss")
        #expect(try answer("POST", "/orders", body: #"{"tags": ["a", "b"], "sku": "A1", "note": "x"}"#) == "201 ordered")
        #expect(try answer("POST", "/orders", body: #"{"tags": ["a"], "sku": "A1"}"#) == "miss")
        #expect(try answer("GET", "/ping") == "miss", "the header is required")
        #expect(try answer("GET", "/ping", headers: ["Authorization": "Bearer good"]) == "200 pong")
        #expect(try answer("GET", "/me", headers: ["Cookie": "a=1; session=s-42"]) == "200 me")
        #expect(try answer("GET", "/me", headers: ["Cookie": "session=t-42"]) == "miss")
        #expect(try answer("GET", "/admin", headers: ["Authorization": "Basic dTpw"]) == "200 admin")
        #expect(try answer("GET", "/admin", headers: ["Authorization": "Basic dTpx"]) == "miss")
        #expect(try answer("PUT", "/blob", bytes: Data([0xFF, 0x00, 0x80])) == "204 ")
        #expect(try answer("PUT", "/blob", bytes: Data([0xFF, 0x00])) == "miss")

        // Each names one request, so files written from the cassette keep it (its body, when exact).
        let written = try HARCodec.decode(HARCodec.encode(cassette), file: "x.har")
        #expect(written.interactions.map(\.request.url.path) == ["/graphql", "/graphql", "/orders", "/ping", "/me", "/admin", "/blob"])
        #expect(written.interactions[2].request.body.map { String(decoding: $0, as: UTF8.self) }?.contains("A1") == true)
        #expect(try ForeignCassette.export(cassette, as: .vcrpy).written == 7)
        // Import (for recording into) reads them as before: recorded requests, no patterns.
        #expect(try ForeignCassette.loadWireMock(folder: mappings.deletingLastPathComponent()).cassette.interactions.allSatisfy { $0.pattern == nil })
    }

    @Test("Hoverfly's jsonpath and jsonPartial body matchers; a JSONPath Tapedeck cannot read is noted, not guessed")
    func hoverflyJSONMatchers() throws {
        let simulation = Data("""
        {"data": {"pairs": [
          {"request": {"path": [{"matcher": "exact", "value": "/graphql"}], "method": [{"matcher": "exact", "value": "POST"}],
                       "body": [{"matcher": "jsonpath", "value": "$.variables.id"}]},
           "response": {"status": 200, "body": "by id"}},
          {"request": {"path": [{"matcher": "exact", "value": "/graphql"}], "method": [{"matcher": "exact", "value": "POST"}],
                       "body": [{"matcher": "jsonPartial", "value": "{\\"query\\": \\"{ viewer }\\"}"}]},
           "response": {"status": 200, "body": "viewer"}},
          {"request": {"path": [{"matcher": "exact", "value": "/odd"}], "body": [{"matcher": "jsonpath", "value": "$.a.first()"}]},
           "response": {"status": 200, "body": "odd"}}
        ]}, "meta": {"schemaVersion": "v5"}}
        """.utf8)
        let reading = try ForeignCassette.load(simulation, file: "sim.json", keepingPatterns: true)
        #expect(reading.cassette.interactions.count { $0.pattern != nil } == 3)
        #expect(reading.cassette.notes.contains { $0.text.contains("$.a.first()") && $0.text.contains("cannot read") }, "\(reading.cassette.notes)")
        let replay = SequentialReplay(reading.cassette)
        func answer(_ body: String) throws -> String? {
            let result = try replay.send(RecordedRequest(method: "POST", url: URL(string: "http://api.test/graphql")!, body: Data(body.utf8)))
            return result.response.map { _ in String(decoding: result.body, as: UTF8.self) }
        }
        #expect(try answer(#"{"query": "{ viewer }", "variables": {}}"#) == "viewer")
        #expect(try answer(#"{"query": "q", "variables": {"id": 4}}"#) == "by id")
        #expect(try answer(#"{"query": "q"}"#) == nil)
    }
}
