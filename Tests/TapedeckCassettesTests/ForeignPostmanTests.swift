import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

/// A Postman collection's saved example responses as a cassette: every example in folder order,
/// the request it was saved from with its `{{variables}}` set (collection, then environment, then
/// the caller), each body mode, and what cannot replay said (fixtures/interop/foreign/postman-shop.*).
@Suite("Cassettes: Postman collections' saved examples")
struct ForeignPostmanTests {
    private func fixture(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/foreign/\(name)")
    }

    private func load(variables: [String: String] = [:], environment: Bool = true) throws -> ForeignCassette.Reading {
        var values: [String: String] = [:]
        if environment {
            values = try ForeignCassette.postmanEnvironment(Data(contentsOf: fixture("postman-shop.postman_environment.json")), file: "env")
        }
        values.merge(variables) { _, given in given }
        return try ForeignCassette.load(Data(contentsOf: fixture("postman-shop.postman_collection.json")), file: "shop", variables: values)
    }

    @Test("each saved example is an entry in folder order, with the environment's base URL, path variables set and disabled fields left out")
    func examples() throws {
        let reading = try load()
        #expect(reading.format == .postman)
        let cassette = reading.cassette
        #expect(cassette.interactions.map { "\($0.request.method) \($0.request.url.absoluteString) \($0.response?.status ?? 0)" } == [
            "GET https://staging.shop.test/v1/items?page=1 200", "GET https://staging.shop.test/v1/items?page=1 429",
            "GET https://staging.shop.test/v1/items/7 200", "POST https://staging.shop.test/v1/login 200",
            "POST https://staging.shop.test/v1/graphql 200", "PUT https://staging.shop.test/v1/me/avatar 204",
        ])
        #expect(cassette.interactions[0].request.headers == [HeaderField("Accept", "application/json")], "the disabled X-Off is left out")
        #expect(cassette.interactions[0].response?.body == Data("{\n  \"items\": [\"tape\"]\n}".utf8))
        #expect(cassette.interactions[1].response?.statusText == "Too Many Requests" && cassette.interactions[1].response?.headers.value(for: "Retry-After") == "3")
        #expect(cassette.interactions[3].request.body == Data("user=ada&password=lovelace".utf8))
        #expect(cassette.interactions[3].request.headers.value(for: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(cassette.interactions[4].request.body == Data(#"{"query":"query($q: String) { items(q: $q) { id } }","variables":{"q": "tape"}}"#.utf8))
        #expect(cassette.interactions[4].response?.headers == [HeaderField("Content-Type", "application/json"), HeaderField("X-Request-Id", "42")],
                "a header list written as text")
        #expect(cassette.notes.map(\.position) == [5] && cassette.notes[0].text.contains("'formdata' body is not in the collection"))
        #expect(cassette.skipped.map(\.position) == [6] && cassette.skipped[0].error.reason.contains("'{{$guid}}'")
                && cassette.skipped[0].error.hint.contains("draws a new value"))
        #expect(reading.remarks == [#"1 request has no saved example response (Postman's "Save Response"), so nothing of it can replay"#])
    }

    @Test("variables: the collection's own are used without an environment; the caller's win; a missing one skips its example, naming it and how to give it")
    func variables() throws {
        let bare = try load(environment: false).cassette
        #expect(bare.interactions.first?.request.url.host == "api.shop.test", "the collection's own baseUrl")
        // A body's {{password}} with no value is kept as written (matching does not read bodies by default).
        #expect(bare.interactions.contains { $0.request.body == Data("user=ada&password=%7B%7Bpassword%7D%7D".utf8) })
        let given = try load(variables: ["baseUrl": "http://localhost:8080"]).cassette
        #expect(given.interactions.first?.request.url.absoluteString == "http://localhost:8080/items?page=1")
    }

    @Test("the examples replay through a real URLSession, the two answers to one request in saved order")
    func replays() throws {
        let cassette = try load().cassette
        let replay = SequentialReplay(cassette)
        let first = try replay.send(cassette.interactions[0].request)
        let second = try replay.send(cassette.interactions[1].request)
        #expect(first.response?.statusCode == 200 && first.body == Data("{\n  \"items\": [\"tape\"]\n}".utf8))
        #expect(second.response?.statusCode == 429)
    }

    @Test("an old v1 collection and an environment that is none are refused with what to do")
    func refused() throws {
        #expect {
            try ForeignCassette.load(Data(#"{"id": "x", "name": "old", "order": [], "requests": []}"#.utf8), file: "v1", format: .postman)
        } throws: { error in
            (error as? CassetteError)?.hint.contains("Collection v2.1") == true
        }
        #expect {
            try ForeignCassette.postmanEnvironment(Data(#"{"name": "x"}"#.utf8), file: "env")
        } throws: { error in
            (error as? CassetteError)?.reason.contains("no Postman environment") == true
        }
    }

    @Test("writers' variations: an example without a URL takes its item's, a bare URL string is a GET, header lists of strings, a dynamic value in a header is kept and counted")
    func variations() throws {
        let reading = try ForeignCassette.load(Data("""
        {"info": {"name": "v", "schema": "https://schema.getpostman.com/json/collection/v2.0.0/collection.json"},
         "item": [
          {"name": "a", "request": {"method": "POST", "url": "https://api.test/a", "header": [{"key": "X-Id", "value": "{{$guid}}"}]},
           "response": [{"originalRequest": {"header": []}, "code": 201, "header": ["Content-Type: text/plain"], "body": "made"}]},
          {"name": "b", "request": "https://api.test/b",
           "response": [{"originalRequest": "https://api.test/b?x=1", "code": 200, "header": null, "body": null}]},
          {"name": "c", "request": {"method": "GET", "url": {"raw": "https://api.test/items/:id", "variable": [{"id": "id", "value": "{{item}}"}]}},
           "response": [{"code": 200, "body": "{}", "header": [{"key": "Content-Encoding", "value": "gzip"}, {"key": "Content-Length", "value": "99"}]}]}
         ],
         "variable": [{"key": "item", "value": "42"}]}
        """.utf8), file: "v")
        let cassette = reading.cassette
        #expect(cassette.skipped.isEmpty, "\(cassette.skipped)")
        #expect(cassette.interactions.map { "\($0.request.method) \($0.request.url.absoluteString)" }
                == ["POST https://api.test/a", "GET https://api.test/b?x=1", "GET https://api.test/items/42"])
        #expect(cassette.interactions[0].request.headers == [], "the example's own (empty) header list wins over the item's")
        #expect(cassette.interactions[0].response?.headers == [HeaderField("Content-Type", "text/plain")])
        #expect(cassette.interactions[2].response?.headers == [HeaderField("Content-Length", "2")], "a saved body is text: no coding, its own length")
        #expect(reading.remarks.isEmpty)
        let dynamic = try ForeignCassette.load(Data("""
        {"info": {"name": "d"}, "item": [{"name": "d", "request": {"method": "GET", "url": "https://api.test/d", "header": [{"key": "X-Id", "value": "{{$guid}}"}]},
          "response": [{"code": 200, "body": "ok"}]}]}
        """.utf8), file: "d")
        #expect(dynamic.cassette.interactions.first?.request.headers == [HeaderField("X-Id", "{{$guid}}")])
        #expect(dynamic.remarks.first?.hasPrefix("1 example has {{names}} with no value in headers or bodies") == true, "\(dynamic.remarks)")
    }

    @Test("a URL from parts (host and path as strings or lists, segments as objects), variables naming variables, a form of text fields sent as multipart")
    func partsNestingAndForms() throws {
        let reading = try ForeignCassette.load(Data("""
        {"info": {"name": "p"},
         "variable": [{"key": "baseUrl", "value": "{{scheme}}://{{host}}/api"}, {"key": "scheme", "value": "https"}, {"key": "host", "value": "api.test"},
                      {"key": "a", "value": "{{b}}"}, {"key": "b", "value": "{{a}}"}],
         "item": [
          {"name": "parts", "request": {"method": "GET", "url": {"protocol": "https", "host": ["api", "test"], "path": "v1/things", "query": [{"key": "q", "value": "1"}, {"key": "off", "value": "2", "disabled": true}]}},
           "response": [{"code": 200, "body": "1"}]},
          {"name": "segments", "request": {"method": "GET", "url": {"host": "api.test", "path": ["v1", {"type": "string", "value": "seg"}, "end"]}},
           "response": [{"code": 200, "body": "2"}]},
          {"name": "nested", "request": {"method": "GET", "url": "{{baseUrl}}/items"}, "response": [{"code": 200, "body": "3"}]},
          {"name": "cycle", "request": {"method": "GET", "url": "https://api.test/{{a}}"}, "response": [{"code": 200, "body": "4"}]},
          {"name": "form", "request": {"method": "POST", "url": "https://api.test/form",
            "body": {"mode": "formdata", "formdata": [{"key": "name", "value": "ada", "type": "text"}, {"key": "off", "value": "x", "disabled": true}]}},
           "response": [{"code": 201, "body": "5"}]}
         ]}
        """.utf8), file: "p")
        let cassette = reading.cassette
        #expect(cassette.interactions.map(\.request.url.absoluteString)
                == ["https://api.test/v1/things?q=1", "http://api.test/v1/seg/end", "https://api.test/api/items", "https://api.test/form"])
        #expect(cassette.skipped.map(\.position) == [3] && cassette.skipped.first?.error.reason.contains("name it back") == true, "\(cassette.skipped)")
        let form = try #require(cassette.interactions.last?.request)
        #expect(form.headers.value(for: "Content-Type") == "multipart/form-data; boundary=tapedeck-postman-form")
        #expect(form.body == Data("--tapedeck-postman-form\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nada\r\n--tapedeck-postman-form--\r\n".utf8))
        #expect(cassette.notes.isEmpty, "a text-only form is no file the collection lacks: \(cassette.notes)")
    }
}
