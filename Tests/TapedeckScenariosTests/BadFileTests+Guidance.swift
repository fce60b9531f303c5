import Foundation
import Testing
import TapedeckScenarios

/// Bad files whose messages guide a repair: a key that belongs elsewhere, tags that cannot
/// stand, control characters and long values in a message.
extension BadFileTests {
    static let guidingCases: [BadFile] = [
        BadFile(what: "a key indented one level too far left says where it belongs", yaml: """
            \(stub)
            client:
              retry:
                limit: 3
              base: 1s
            script: [{request: GET http://api.test/a}]
            """, line: 5, column: 3, path: "client.base",
            message: "unknown key 'base' — 'base' belongs under client.retry, not client — check its indentation"),
        BadFile(what: "a stub's key slipped to the top level names the list item it belongs in", yaml: """
            \(stub)
            latency: 80ms
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 1, path: "latency",
            message: "unknown key 'latency' — 'latency' belongs under traffic.stubs[n], not the top level — check its indentation"),
        BadFile(what: "a key of another section says where it belongs, without blaming indentation", yaml: """
            traffic: {stubs: [{url: http://api.test/a, afterBytes: 10}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 44, path: "traffic.stubs[0].afterBytes",
            message: "unknown key 'afterBytes' — 'afterBytes' belongs under faults[n], not traffic.stubs[0]"),
        BadFile(what: "a key known in several places lists three of them", yaml: """
            \(stub)
            client: {status: 200}
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 10, path: "client.status",
            message: "unknown key 'status' — 'status' belongs under client.provider.targets.NAME.sample, expect.requests.NAME, faults[n] (and 2 more), not client — check its indentation"),
        BadFile(what: "a singular of the key meant comes first, before the places the word is a key of", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              request: {a: {status: 200}}
            """, line: 4, column: 3, path: "expect.request",
            message: "unknown key 'request' — did you mean 'requests'? ('request' belongs under client.timeouts, schedule.faults[n], schedule.jitter[n] (and 2 more), not expect)"),
        BadFile(what: "a probability written as a fraction is refused with the per-mille scale, not read as 1 ‰", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults:
              - kind: stall
                probability: 1.0
            """, line: 5, column: 18, path: "faults[0].probability",
            message: "expected a whole number of thousandths from 0 to 1000, found '1.0' — probabilities count in thousandths (per mille): 1000 is always, 500 half the time, 5 one time in 200"),
        BadFile(what: "a percentage where thousandths go gets the per-mille scale", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: stall, enabled: 50%}]
            """, line: 3, column: 33, path: "faults[0].enabled",
            message: "expected a whole number of thousandths from 0 to 1000, found '50%' — probabilities count in thousandths (per mille): 1000 is always, 500 half the time, 5 one time in 200"),
        BadFile(what: "a core tag its value is not (!!null on 503) is refused, not dropped", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a}]
            faults: [{kind: status, status: !!null 503}]
            """, line: 3, column: 33, path: "",
            message: "'503' is not null, as its tag !!null says it is — remove the tag, or write a value of that type"),
        BadFile(what: "a quoted value tagged with a type it is not", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a, repeat: !!int "two"}]
            """, line: 2, column: 51, path: "",
            message: "'two' is not an integer, as its tag !!int says it is"),
        BadFile(what: "a tag outside the core schema (a timestamp, a custom tag) is refused", yaml: """
            traffic: {stubs: [{url: http://api.test/a, latency: !!timestamp 40ms}]}
            script: [{request: !custom GET http://api.test/a}]
            """, line: 1, column: 53, path: "",
            message: "tag !!timestamp is not one scenario files read — scenario files take the YAML 1.2 core tags only"),
        BadFile(what: "a raw control character is placed by line and column, and named", yaml: """
            \(stub)
            script: [{request: GET http://api.test/a\u{1B}}]
            """, line: 2, column: 41, path: "",
            message: "not valid YAML: control characters are not allowed (U+001B) — remove it"),
        BadFile(what: "a quoted value's control characters are shown as escapes, and a long value is cut short", yaml: """
            \(stub)
            client: {validate: "oops\\e[2J\\a\(String(repeating: "x", count: 200))"}
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 20, path: "client.validate",
            message: "expected true or false, found the text \"oops\\u{1B}[2J\\u{7}\(String(repeating: "x", count: 68))…\" (quoted)"),
    ]

    @Test("indentation is blamed only along the key's own branch: a stub's key is not told to move into faults")
    func slipAcrossSections() throws {
        let error = try #require(parseError("""
            traffic: {stubs: [{url: http://api.test/a, afterBytes: 10}]}
            script: [{request: GET http://api.test/a}]
            """, file: "bad.yaml"))
        #expect(error.description.hasSuffix("belongs under faults[n], not traffic.stubs[0]"), "\(error)")
    }

    @Test("an untagged hex integer past Int's range reads the same whether or not the file holds a '!' (which turns the tag check on)")
    func untaggedValuesPassTheTagCheck() throws {
        let body = "traffic: {stubs: [{url: http://api.test/a}]}\nscript: [{request: GET http://api.test/a}]\nseed: 0xFFFFFFFFFFFFFFFFF\n"
        let plain = parseError(body)
        let exclaimed = parseError("description: Hello!\n" + body)
        #expect(plain?.reason == exclaimed?.reason && plain?.hint == exclaimed?.hint, "\(String(describing: plain)) / \(String(describing: exclaimed))")
        #expect(exclaimed?.reason.contains("tag") != true, "\(String(describing: exclaimed))")
    }
}
