import Foundation
import Testing
import TapedeckScenarios

/// What the reader refuses beyond keys and types: strings that are not request patterns, schedule
/// decisions for requests the run never sends, impossible combinations; several problems of one
/// file reported together; syntax errors with a hint.
@Suite("Scenario files: values that cannot work are load errors")
struct LoadCheckTests {
    private static let stub = "traffic:\n  stubs: [{match: GET https://api.example.com/items, json: {}}]"

    struct Case: CustomTestStringConvertible, Sendable {
        let what: String
        let yaml: String
        let line: Int
        let column: Int
        let path: String
        let reason: String
        let hint: String
        var testDescription: String { what }
    }

    static let cases: [Case] = [
        Case(what: "a stub matching a request's name", yaml: """
            traffic:
              stubs: [{match: items, json: {}}]
            script: [{request: GET https://api.example.com/items}]
            """, line: 2, column: 19, path: "traffic.stubs[0].match", reason: "'items' is not a request pattern",
            hint: "did you mean 'GET https://api.example.com/items' (the URL of request 'items')? Patterns match URLs, not request names"),
        Case(what: "a fault route that is a request's name", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items}]
            faults: [{kind: stall, route: items}]
            """, line: 4, column: 31, path: "faults[0].route", reason: "'items' is not a request pattern",
            hint: "did you mean 'GET https://api.example.com/items' (the URL of request 'items')? Patterns match URLs, not request names"),
        Case(what: "an exchanges key that is a request's name", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items}]
            expect:
              exchanges: {items: 1}
            """, line: 5, column: 15, path: "expect.exchanges.items", reason: "'items' is not a request pattern",
            hint: "did you mean 'GET https://api.example.com/items' (the URL of request 'items')? Patterns match URLs, not request names"),
        Case(what: "a URL without its scheme", yaml: """
            traffic:
              stubs: [{match: GET api.example.com/items, json: {}}]
            script: [{request: GET https://api.example.com/items}]
            """, line: 2, column: 19, path: "traffic.stubs[0].match", reason: "'GET api.example.com/items' is not a request pattern: the URL has no scheme",
            hint: "write http://api.example.com/items or https://api.example.com/items"),
        Case(what: "a token URL with * while the client refreshes against it", yaml: """
            traffic:
              auth: {token: POST https://auth.example.com/token*, protect: https://api.example.com/*}
              stubs: [{match: GET https://api.example.com/me, json: {}}]
            client: {auth: true}
            script: [{request: GET https://api.example.com/me}]
            """, line: 2, column: 17, path: "traffic.auth.token",
            reason: "with client.auth the token endpoint must be a full URL (the client's refresh requests exactly it)",
            hint: "write it without '*', with its scheme and host, e.g. POST https://auth.example.com/token"),
        Case(what: "a schedule decision for a request the run never sends", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items, repeat: 2}]
            faults: [{name: flaky, kind: status, status: 503}]
            schedule:
              faults: [{site: flaky, request: "item#2"}]
            """, line: 6, column: 35, path: "schedule.faults[0].request", reason: "no request of the run is named 'item#2'",
            hint: "did you mean 'items#2'?"),
        Case(what: "a reversed window", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items}]
            faults: [{kind: stall, window: {from: 3s, until: 1s}}]
            """, line: 4, column: 32, path: "faults[0].window", reason: "the window is empty: 'from' (3s) is not before 'until' (1s)",
            hint: "the fault may strike from 'from' up to (not including) 'until'; swap them or widen the window"),
        Case(what: "every without repeat", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items, every: 1s}]
            """, line: 3, column: 62, path: "script[0].every", reason: "'every' spaces the repeats of a step, and this one is sent once",
            hint: "add 'repeat: N' (2 or more), or remove 'every' (use 'at' for when it is sent)"),
        Case(what: "a JSON body on a GET", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items, json: {q: 1}}]
            """, line: 3, column: 61, path: "script[0].json", reason: "a GET request carries no body (URLSession refuses to send one)",
            hint: "use POST, PUT or PATCH for a body, or put the values in the URL's query"),
        Case(what: "a provider target sending a form on a GET", yaml: """
            client:
              provider:
                baseURL: https://api.example.com
                targets: {search: {path: /search, task: {form: {q: tape}}}}
            \(stub)
            script: [{target: search}]
            """, line: 4, column: 45, path: "client.provider.targets.search.task",
            reason: "a GET request carries no body, and this task sends one", hint: "give the target 'method: POST' (or PUT, PATCH), or use a 'query' task"),
        Case(what: "a malformed JSON path", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items}]
            expect:
              requests:
                items: {json: {path: "items[", equals: 1}}
            """, line: 6, column: 26, path: "expect.requests.items.json.path", reason: "'items[' is not a JSON path: a '[' without its ']'",
            hint: "write keys joined by dots and indices in brackets, e.g. items[0].name"),
        Case(what: "a negative duration", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items, at: -5ms}]
            """, line: 3, column: 59, path: "script[0].at", reason: "'-5ms' is negative: a duration cannot be", hint: "write 0 or more, e.g. 5ms"),
        Case(what: "a duration past 31 years", yaml: """
            \(stub)
            script: [{request: GET https://api.example.com/items, at: 100000000h}]
            """, line: 3, column: 59, path: "script[0].at", reason: "'100000000h' is too large", hint: "at most 1000000000s (about 31 years)"),
        Case(what: "a timeout of zero", yaml: """
            \(stub)
            client: {timeouts: {request: 0s}}
            script: [{request: GET https://api.example.com/items}]
            """, line: 3, column: 30, path: "client.timeouts.request", reason: "0 is no timeout",
            hint: "write e.g. 10s, or leave 'request' out for URLSession's 60 s"),
    ]

    @Test("the error names the place, what is wrong and what to write", arguments: cases)
    func loadError(_ bad: Case) throws {
        // Given a file with the problem; when it is read; then it is refused at the value's place
        let error = try #require(parseError(bad.yaml), "\(bad.what): it parsed")
        #expect((error.line, error.column) == (bad.line, bad.column), "\(error)")
        #expect(error.path == bad.path)
        #expect(error.reason == bad.reason)
        #expect(error.hint == bad.hint)
    }

    @Test("a JSON file may carry \"$schema\" for editors; the reader ignores it")
    func schemaKey() throws {
        let scenario = try Scenario.parse("""
            {"$schema": "../../docs/scenario.schema.json",
             "traffic": {"stubs": [{"match": "GET http://api.test/a", "body": "x"}]},
             "script": [{"request": "GET http://api.test/a"}]}
            """, file: "with-schema.json")
        #expect(scenario.requests.map(\.name) == ["a"])
    }

    @Test("every unknown key and every wrong value of a file is reported at once, in file order")
    func everyProblem() throws {
        // Given three mistakes: a misspelt section, a wrong value and a wrong choice, in that order
        let error = try #require(parseError("""
            trafic: {}
            client:
              redirects: dontFollow
              queues: alamofir
            script: [{request: GET https://api.example.com/items}]
            expectations: {}
            """))
        // Then each is named at its line, first to last
        let all = [error] + error.more
        #expect(all.map(\.line) == [1, 3, 4, 6], "\(error)")
        #expect(all.map(\.path) == ["trafic", "client.redirects", "client.queues", "expectations"])
        #expect(error.description.split(separator: "\n").count == 4)
    }

    @Test("two wrong values side by side in one mapping are both reported, and those of a fault after them")
    func siblingsInOneMapping() throws {
        let error = try #require(parseError("""
            \(Self.stub)
            client:
              retry: {limit: 200, base: 1}
            script: [{request: GET https://api.example.com/items}]
            faults:
              - {kind: status, status: 503, probability: 1500, attempts: 0}
            """))
        let all = [error] + error.more
        #expect(all.map(\.path) == ["client.retry.limit", "client.retry.base", "faults[0].probability", "faults[0].attempts"], "\(error)")
        #expect(all.last?.description.hasSuffix("0 is out of range — stay within 1-1000000") == true, "\(error)")
    }

    @Test("every wrong part of a multipart body is reported, not the first: a missing file, a part with no content, two sources, an unknown key")
    func everyMultipartProblem() throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{match: POST http://api.test/upload, status: 201}]}
            script:
              - request: POST http://api.test/upload
                multipart:
                  - {name: a, file: nope/missing.png}
                  - {name: b}
                  - {name: c, text: x, bytes: 1}
                  - {name: d, txet: x}
              - {request: POST http://api.test/other, repeat: 0}
            """))
        let all = [error] + error.more
        #expect(all.map(\.line) == [5, 6, 7, 8, 8, 9], "\(error)")   // d: an unknown key and no content
        #expect(all.first?.description.contains("missing.png: there is no such file") == true, "\(error)")
        #expect(all.contains { $0.path.hasSuffix("multipart[3].txet") }, "\(error)")
    }

    @Test("a misspelt required section is reported as the misspelling, not as a missing section")
    func misspeltRequired() throws {
        let error = try #require(parseError("""
            \(Self.stub)
            scirpt: [{request: GET https://api.example.com/items}]
            """))
        #expect(error.more.isEmpty)
        #expect(error.description == "bad.yaml:3:1: scirpt: unknown key 'scirpt' — did you mean 'script'?")
    }

    @Test("syntax errors: a tab says YAML indents with spaces; a misaligned key says to check the indentation; a .json file's error is JSON's")
    func syntaxHints() throws {
        let tab = try #require(parseError("traffic:\n\tstubs: []\nscript: []\n"))
        #expect(tab.line == 2 && tab.hint == "YAML does not allow tabs for indentation: indent with spaces", "\(tab)")
        let indent = try #require(parseError("traffic:\n  stubs:\n    - match: GET http://a.test/x\n      body: x\n     latency: 1s\n"))
        #expect(indent.line == 5 && indent.hint.hasPrefix("check the indentation of this line and the one before"), "\(indent)")
        let json = try #require(parseError(#"{"script": [{"request": "GET http://a.test/x"},]}"#, file: "trailing.json"))
        #expect(json.reason.hasPrefix("not valid JSON: "), "\(json)")
        #expect(json.reason == "not valid JSON: a trailing comma before ']'" && (json.line, json.column) == (1, 48), "\(json)")
        #expect(json.hint.hasPrefix("a .json scenario must be strict JSON"))
        let yaml = try #require(parseError("name: x\nscript:\n  - request: GET http://a.test/x\n", file: "yaml.json"))
        #expect(yaml.reason == "not valid JSON: the file reads as YAML (key: value lines)" && yaml.hint.hasPrefix("name it .yaml"), "\(yaml)")
        let nul = try #require(parseError("{\"name\": \"a\u{0}b\"}", file: "nul.json"))
        #expect(nul.reason.hasPrefix("not valid JSON: a NUL byte inside a string: write it escaped"), "\(nul)")
        let bell = try #require(parseError("{\"name\": \"a\u{7}b\"}", file: "bell.json"))
        #expect(bell.reason.hasPrefix("not valid JSON: the control character U+0007 inside a string"), "\(bell)")
    }
}
