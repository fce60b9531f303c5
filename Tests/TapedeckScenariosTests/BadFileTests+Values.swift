import Foundation
import Testing
import TapedeckScenarios

/// Values a user wrote that the reader used to take for something else: `~` as text, `[]` as a
/// set matching nothing, a number that is no URLError code, a space inside a URL pattern.
extension BadFileTests {
    static let valueCases: [BadFile] = [
        BadFile(what: "~ (YAML's null) is no body text", yaml: """
            traffic: {stubs: [{url: http://api.test/a, body: ~}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 50, path: "traffic.stubs[0].body",
            message: "expected text, found nothing — write the text (quoted, if it is '~' or 'null'), or leave the key out"),
        BadFile(what: "nothing where a duration goes", yaml: """
            traffic: {stubs: [{url: http://api.test/a, latency: ~}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 53, path: "traffic.stubs[0].latency",
            message: "expected a duration, found nothing — write e.g. 80ms or 1.5s, or leave the key out"),
        BadFile(what: "nothing where a byte count goes", yaml: """
            traffic: {stubs: [{url: http://api.test/a, bandwidth: }]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 55, path: "traffic.stubs[0].bandwidth",
            message: "expected a byte count, found nothing — write e.g. 1500 or 16KB, or leave the key out"),
        BadFile(what: "an empty list of protected routes", yaml: """
            traffic: {auth: {token: POST http://api.test/token, protect: []}}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 62, path: "traffic.auth.protect",
            message: "expected at least one request pattern, found an empty list — list one, or leave the key out"),
        BadFile(what: "an expected status set that is empty", yaml: """
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: x}]
            expect: {requests: {x: {status: []}}}
            """, line: 3, column: 33, path: "expect.requests.x.status",
            message: "expected at least one number or range, found an empty list — list one, or leave the key out"),
        BadFile(what: "an empty list of accepted content types", yaml: """
            traffic: {stubs: [{url: http://api.test/a}]}
            client: {validate: {contentTypes: []}}
            script: [{request: GET http://api.test/a}]
            """, line: 2, column: 35, path: "client.validate.contentTypes",
            message: "expected at least one content type ('any' accepts every type), found an empty list — list one, or leave the key out"),
        BadFile(what: "a bandwidth of zero", yaml: """
            traffic: {stubs: [{url: http://api.test/a, bandwidth: 0}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 55, path: "traffic.stubs[0].bandwidth",
            message: "a bandwidth must be positive, not 0 bytes a second — write a rate such as 64KB (a second)"),
        BadFile(what: "a number that is no URLError code", yaml: """
            traffic: {stubs: [{url: http://api.test/a, fail: 12345}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 50, path: "traffic.stubs[0].fail",
            message: "12345 is not a URLError code — use a URLError code such as -1001 (timedOut)"),
        BadFile(what: "a space inside a URL pattern", yaml: """
            traffic: {stubs: [{match: "GET http://api.test/a b"}]}
            script: [{request: GET http://api.test/a}]
            """, line: 1, column: 27, path: "traffic.stubs[0].match",
            message: "'GET http://api.test/a b': a URL has no spaces — write a space as %20 (or + in a query)"),
    ]

    @Test("a value that stands for nothing, or for something else, is refused where it is written", arguments: valueCases)
    func badValue(_ bad: BadFile) throws {
        try badFile(bad)
    }

    @Test("every spelling of a whole number works wherever a number goes; a tab parts a pattern's method from its URL; retry statuses may be empty")
    func numberSpellings() throws {
        let scenario = try Scenario.parse("""
            traffic: {stubs: [{match: "GET\\thttp://api.test/a", latency: 0o17, body: ok}]}
            client: {retry: {statuses: []}}
            script: [{request: GET http://api.test/a, name: x}]
            faults: [{kind: bandwidth, bytesPerSecond: 0x100, attempts: [0x1]}]
            expect: {requests: {x: {status: 200.0, finishedBy: 1e2}}}
            seed: 1e1
            """, file: "numbers.yaml")
        #expect(scenario.seed == 10)
        let outcome = try ScenarioRunner().run(scenario, seed: scenario.seed)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.virtualDuration >= .seconds(15), "latency 0o17 is 15 s")
    }
}
