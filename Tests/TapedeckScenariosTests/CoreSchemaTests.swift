import Foundation
import Testing
import TapedeckScenarios

/// Scenario files read plain scalars as YAML 1.2's core schema does (what the YAML language server
/// shows in the editor), not YAML 1.1's wider rules: `NO` is text, `01234` is 1234, `12:30` is text.
@Suite("Scenario files: YAML 1.2 core schema values")
struct CoreSchemaTests {
    private let checks = filesDirectory.appendingPathComponent("checks")

    @Test("a json: body reads NO, yes, on, y and 12:30 as text, 01234 as 1234, hex and octal as numbers, and keeps 1.10 as written")
    func jsonBody() throws {
        // Given a stub whose json: body holds the values YAML 1.1 reads differently
        let scenario = try Scenario.load(checks.appendingPathComponent("core-schema.yaml"))
        // When it runs
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        // Then the body is what YAML 1.2 (and the editor) says, and `equals: NO` compares with the text "NO"
        let body = try #require(outcome.request("country").body)
        #expect(String(decoding: body, as: UTF8.self) == #"""
            {"country":"NO","answer":"yes","on":"on","off":"off","y":"y","time":"12:30","zip":1234,"hex":31,"octal":15,\#
            "version":1.10,"exponent":2e3,"negative":-0.5,"nothing":null,"flag":true,"quoted":"0x1F","tagged":"42",\#
            "under":"1_000","big":123456789012345678901234567890}
            """#)
        #expect(outcome.passed, "\(outcome.failures)")
    }

    @Test("an expectation's equals: NO is the text NO: a body with false does not meet it")
    func equalsIsText() throws {
        // Given a body {"country": false} and an expectation equals: NO
        let outcome = try run("""
            traffic:
              stubs: [{match: GET http://api.test/c, json: {country: false}}]
            script: [{request: GET http://api.test/c, name: c}]
            expect:
              requests:
                c: {json: {path: country, equals: NO}}
            """)
        // Then the check fails: "NO" is not false
        #expect(outcome.failures("json").map(\.message) == [#"country: expected "NO", got false"#])
    }

    @Test("booleans are true and false only: yes, on and off are refused with what to write instead", arguments: [
        ("yes", "write true"), ("off", "write false"), ("Y", "write true"),
    ])
    func yamlOneOneBooleans(_ word: String, _ hint: String) throws {
        let error = try #require(parseError("""
            traffic:
              stubs: [{match: GET http://api.test/c, body: x, gzip: \(word)}]
            script: [{request: GET http://api.test/c}]
            """))
        #expect(error.path == "traffic.stubs[0].gzip")
        #expect(error.reason.hasPrefix("expected true or false, found '\(word)' (text in YAML 1.2"), "\(error)")
        #expect(error.hint == hint)
    }

    @Test("a whole number is decimal, 0x hex or 0o octal; a quoted one is text, and the error says to remove the quotes")
    func wholeNumbers() throws {
        let scenario = try parse("""
            seed: 0x10
            traffic:
              stubs: [{match: GET http://api.test/c, body: x}]
            script: [{request: GET http://api.test/c, repeat: 0o3}]
            """)
        #expect(scenario.seed == 16)
        #expect(scenario.requests.count == 3)
        let quoted = try #require(parseError("""
            traffic:
              stubs: [{match: GET http://api.test/c, body: x}]
            script: [{request: GET http://api.test/c, repeat: "3"}]
            """))
        #expect(quoted.description.hasSuffix(#"script[0].repeat: expected a whole number, found the text "3" (quoted) — remove the quotes"#))
        let sexagesimal = try #require(parseError("""
            traffic:
              stubs: [{match: GET http://api.test/c, body: x}]
            script: [{request: GET http://api.test/c, repeat: 1:30}]
            """))
        #expect(sexagesimal.reason == "expected a whole number, found '1:30'")
        // A core tag types a quoted scalar, as YAML says: !!int "3" is 3
        let tagged = try parse("""
            seed: !!int "7"
            traffic:
              stubs: [{match: GET http://api.test/c, body: x}]
            script: [{request: GET http://api.test/c, repeat: !!int "3"}]
            """)
        #expect(tagged.seed == 7 && tagged.requests.count == 3)
        #expect(parseError("""
            traffic:
              stubs: [{match: GET http://api.test/c, body: x}]
            script: [{request: GET http://api.test/c, repeat: !!int "three"}]
            """) != nil)
    }

    @Test("a value JSON cannot hold (.inf) is an error at its place")
    func infinity() throws {
        let error = try #require(parseError("""
            traffic:
              stubs: [{match: GET http://api.test/c, json: {rate: .inf}}]
            script: [{request: GET http://api.test/c}]
            """))
        #expect((error.line, error.column, error.path) == (2, 55, "traffic.stubs[0].json"))
        #expect(error.reason.hasPrefix("'.inf' has no JSON form"))
    }
}
