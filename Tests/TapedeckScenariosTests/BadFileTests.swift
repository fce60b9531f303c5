import Foundation
import Testing
import TapedeckScenarios

/// A bad scenario and the error a user must see: where (line, column, key path) and what.
struct BadFile: CustomTestStringConvertible, Sendable {
    let what: String
    let yaml: String
    let line: Int
    let column: Int
    let path: String
    /// The whole message after `file:line:column: ` (reason, and hint when there is one).
    let message: String

    var testDescription: String { what }
}

@Suite("Scenario files: bad files name the file, line, column and key, and say what to do")
struct BadFileTests {
    /// One stub, the traffic most bad files need to be otherwise whole.
    static let stub = "traffic: {stubs: [{url: http://api.test/a}]}"

    @Test("the error names the place and says what is wrong", arguments: cases + guidingCases)
    func badFile(_ bad: BadFile) throws {
        let error = try #require(parseError(bad.yaml, file: "bad.yaml"), "\(bad.what): it parsed")
        #expect(error.file == "bad.yaml")
        #expect(error.line == bad.line, "line")
        #expect(error.column == bad.column, "column")
        #expect(error.path == bad.path, "key path")
        // What a user sees: `bad.yaml:LINE:COLUMN: PATH: reason — hint`.
        let place = bad.line > 0 ? "bad.yaml:\(bad.line):\(bad.column): " : "bad.yaml: "
        let prefix = place + (bad.path.isEmpty ? "" : bad.path + ": ")
        #expect(error.description.hasPrefix(prefix + bad.message), "\(error.description)")
    }

    @Test("a bad file on disk is named by its path, and nothing is written beside it")
    func badFileOnDisk() throws {
        let url = parsingDirectory.appendingPathComponent("bad-near-miss.yaml")
        let before = try FileManager.default.contentsOfDirectory(atPath: parsingDirectory.path).sorted()
        let error = try #require(throws: ScenarioError.self) { try Scenario.load(url) }
        #expect(error.description == "\(url.path):7:5: faults[0].atempts: unknown key 'atempts' — did you mean 'attempts'?")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parsingDirectory.path).sorted() == before)
    }

    @Test("a file that is not there")
    func missingFile() throws {
        let url = parsingDirectory.appendingPathComponent("no-such-scenario.yaml")
        let error = try #require(throws: ScenarioError.self) { try Scenario.load(url) }
        #expect(error.description == "\(url.path): no such file — check the path")
    }

    @Test("a cassette given where a scenario goes (`tapedeck run api.har`) is named as a cassette, with how a scenario uses it")
    func cassetteGivenAsScenario() throws {
        let compressed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../fixtures/cassettes/api.har.gz").standardizedFileURL
        let gzip = try #require(throws: ScenarioError.self) { try Scenario.load(compressed) }
        #expect(gzip.reason == "is gzip-compressed (a .har.gz cassette?), not a scenario file", "\(gzip)")
        #expect(gzip.hint.contains("traffic.cassette"))

        let har = #"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": []}}"#
        let plain = try #require(throws: ScenarioError.self) { try Scenario.parse(har, file: "site.har", source: URL(fileURLWithPath: "/tmp/site.har")) }
        #expect(plain.description.hasPrefix("site.har:1:1: is a HAR file (a cassette), not a scenario — a scenario replays it from traffic.cassette: "
                                            + "write a .yaml file with 'traffic: {cassette: site.har}'"), "\(plain)")
    }

    @Test("problems across a file's parts (a cancel naming no request, two faults of one name, an unknown expectation) come at once, in file order")
    func crossPartProblemsAtOnce() throws {
        let text = """
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/a
              - cancel: b
                at: 1s
            faults:
              - {name: x, kind: latency, delay: 1s}
              - {name: x, kind: latency, delay: 2s}
            expect:
              requests:
                c: {status: 200}
            """
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(text, file: "many.yaml") }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(error.description)")
        #expect(lines[0].contains("no request is named 'b'") && lines[1].contains("two faults are named 'x'") && lines[2].contains("no request is named 'c'"),
                "\(error.description)")
    }

    @Test("a fault plan file (serve --faults) reports every bad fault at once, as a scenario file does")
    func faultPlanProblemsAtOnce() throws {
        let text = """
            faults:
              - {kind: reset, route: GET /y}
              - {kind: latency, delay: -1s}
              - {kind: stall, routee: GET /z}
            """
        let error = try #require(throws: ScenarioError.self) { try FaultPlan.parse(text, file: "plan.yaml") }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(error.description)")
        #expect(lines[0].contains("plan.yaml:2:") && lines[0].contains("afterBytes") && lines[1].contains("negative")
                && lines[2].contains("did you mean 'route'"), "\(error.description)")
    }

    @Test("a key given twice in a JSON file points at the second one")
    func duplicateJSONKey() throws {
        let json = #"{"traffic": {"stubs": [{"match": "GET http://api.test/a"}]}, "script": [{"request": "GET http://api.test/a"}], "script": []}"#
        let error = try #require(parseError(json, file: "dup.json"))
        #expect(error.line == 1 && error.column == 112, "\(error)")
        #expect(error.description.contains("'script' appears more than once"), "\(error)")
        // and in a file with CRLF line ends, past a comment that spells the key
        let crlf = "traffic: {stubs: [{match: GET http://api.test/a}]}\r\nscript: [{request: GET http://api.test/a, # a, request: x\r\n  name: a, request: GET http://api.test/b}]\r\n"
        let second = try #require(parseError(crlf, file: "dup.yaml"))
        #expect(second.line == 3 && second.column == 12, "\(second)")
    }

    @Test("a request without a name whose URL ends in a component that is no name (%20, %0A) is named by its host")
    func defaultNameFromHost() throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: "*"}]}
            script:
              - request: GET http://api.test/%20
              - request: GET http://other.test/items%0Afoo
            """)
        #expect(scenario.requests.map(\.name) == ["api.test", "other.test"])
    }

    @Test("every schedule decision naming an unknown request or fault is reported at once, not the first of them")
    func scheduleProblemsAtOnce() throws {
        let text = """
            traffic: {stubs: [{url: http://api.test/items}]}
            script: [{request: GET http://api.test/items, repeat: 2}]
            faults: [{name: f, kind: status, status: 503}]
            schedule:
              faults:
                - {site: f, request: "items#3"}
                - {site: f, request: "itemz"}
                - {site: g, request: "items#1"}
            """
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(text, file: "schedule.yaml") }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(error.description)")
        #expect(lines.contains { $0.contains("schedule.faults[0].request") && $0.contains("'items#3'") }, "\(error.description)")
        #expect(lines.contains { $0.contains("schedule.faults[1].request") && $0.contains("'itemz'") }, "\(error.description)")
        #expect(lines.contains { $0.contains("schedule.faults[2].site") && $0.contains("'g'") }, "\(error.description)")
    }

    @Test("top-level x- keys are skipped: a place for anchors a file reuses (YAML 1.2 has no merge keys); elsewhere they are unknown keys")
    func extensionKeysHoldAnchors() throws {
        let scenario = try parse("""
            x-json: &json {Content-Type: application/json, X-App: demo}
            x-ok: &ok {status: 200, json: {ok: true}}
            traffic:
              stubs:
                - {match: GET http://api.test/a, responses: [{status: 503}, *ok]}
            client: {headers: *json, validate: true, retry: {limit: 1, statuses: [503]}}
            script: [{request: GET http://api.test/a, name: a}]
            expect: {requests: {a: {status: 200, attempts: 2}}}
            """)
        #expect(scenario.client.headers.map(\.name).sorted() == ["Content-Type", "X-App"])
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(parseError("""
            traffic: {stubs: [{url: http://api.test/a, x-note: hi}]}
            script: [{request: GET http://api.test/a}]
            """)?.path == "traffic.stubs[0].x-note")
        // A merge key in header fields is named at its own line, not at the anchor the alias names.
        let merge = parseError("""
            x-common: &common
              Accept: application/json
            script:
              - request: GET http://api.test/a
                headers:
                  <<: *common
            """)
        #expect(merge?.line == 6 && merge?.path == "script[0].headers.<<", "\(String(describing: merge))")
        #expect(merge?.hint.contains("no merge keys") == true, "\(String(describing: merge))")
    }

    @Test("every wrong value of one item, one section and the top comes at once, not only the first of each")
    func everyWrongValueAtOnce() throws {
        let text = """
            seed: 1.5
            name: 7
            traffic:
              stubs:
                - match: GET http://api.test/a
                  gzip: yes
                  bandwidth: 0
                - match: GET http://api.test/b
                  latency: -1s
            client: {timeouts: {request: 0s, resource: 2e10s}}
            script:
              - request: GET http://api.test/a
            """
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(text, file: "values.yaml") }
        let places = ([error] + error.more).map { "\($0.line):\($0.column) \($0.path)" }
        #expect(places == ["1:7 seed", "2:7 name", "6:13 traffic.stubs[0].gzip", "7:18 traffic.stubs[0].bandwidth",
                           "9:16 traffic.stubs[1].latency", "10:30 client.timeouts.request", "10:44 client.timeouts.resource"],
                "\(error.description)")
    }

    @Test("a problem with a whole item (two kinds of step in one) is one problem, not followed by what re-reading it without a key would say")
    func wholeItemProblemIsOne() throws {
        let text = """
            traffic: {stubs: [{match: "*", body: ok}]}
            script:
              - request: GET http://api.test/a
                headers: {X: y}
                cancel: a
                at: 1s
            """
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(text, file: "both.yaml") }
        #expect(error.more.isEmpty, "\(error.description)")
    }

    @Test("a step named like another step's repeat is refused: two requests would share the name")
    func repeatNamesAreTaken() throws {
        let text = """
            traffic: {stubs: [{match: "*", body: ok}]}
            script:
              - request: GET http://api.test/x
                repeat: 2
              - request: GET http://api.test/y
                name: "x#1"
            """
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(text, file: "names.yaml") }
        #expect(error.line == 5 && error.description.contains("two requests would be named 'x#1'"), "\(error.description)")
    }

    @Test("aliases that expand past a million values are refused before anything reads them (a billion-laughs file)")
    func aliasBomb() throws {
        var lines = ["traffic:", "  stubs:", "    - match: GET http://api.test/a", "      json:", "        a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for (index, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].enumerated() {
            let previous = String(UnicodeScalar(UInt8(97 + index)))
            lines.append("        \(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]")
        }
        lines.append("script: [{request: GET http://api.test/a}]")
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(lines.joined(separator: "\n"), file: "bomb.yaml") }
        #expect(error.description.contains("more than 1000000 values once its aliases are expanded"), "\(error.description)")
    }

    @Test("a stub status of 1xx and a fraction of a byte are refused")
    func interimStatusAndFractionalBytes() throws {
        let interim = try #require(throws: ScenarioError.self) {
            try Scenario.parse("traffic: {stubs: [{match: \"*\", status: 100}]}\nscript: [{request: GET http://api.test/a}]", file: "s.yaml")
        }
        #expect(interim.description.contains("100 is an interim status (1xx)"), "\(interim.description)")
        let half = try #require(throws: ScenarioError.self) {
            try Scenario.parse("traffic: {stubs: [{match: \"*\", bandwidth: 0.5B}]}\nscript: [{request: GET http://api.test/a}]", file: "s.yaml")
        }
        #expect(half.description.contains("'0.5B' is not a byte count"), "\(half.description)")
        // A fraction of a larger unit that makes whole bytes is fine, exactly (16.1 × 1000 is not, in floating point).
        for (text, bytes) in [("1.5KB", 1_500), ("16.1KB", 16_100), ("4.1MB", 4_100_000), ("0.5KiB", 512), (".25MiB", 262_144), ("2048", 2_048)] {
            let scenario = try Scenario.parse("traffic: {stubs: [{match: \"*\", bandwidth: \(text)}]}\nscript: [{request: GET http://api.test/a}]", file: "s.yaml")
            #expect(scenario.traffic.stubs.first?.bandwidth == bytes, "\(text)")
        }
    }

    @Test("a device or a pipe is read as a stream: /dev/null is an empty file, not a permissions problem; an endless one is refused past 64 MiB")
    func streamedFiles() throws {
        let error = try #require(throws: ScenarioError.self) { try Scenario.load(URL(fileURLWithPath: "/dev/null")) }
        #expect(error.description == "/dev/null: the file is empty — start from a file in docs/examples/scenarios")
        let endless = try #require(throws: ScenarioError.self) { try Scenario.load(URL(fileURLWithPath: "/dev/zero")) }
        #expect(endless.reason == "is larger than 64 MiB (or never ends), too large for a scenario file", "\(endless)")
    }

    @Test("a file that is not UTF-8 names the line, column and byte of the first byte that is not (a Latin-1 é)")
    func notUTF8() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-latin1-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try (Data("name: x\ndescription: caf".utf8) + Data([0xE9]) + Data("\nscript: []\n".utf8)).write(to: file)
        let error = try #require(throws: ScenarioError.self) { try Scenario.load(file) }
        #expect((error.line, error.column) == (2, 17), "\(error)")
        #expect(error.reason == "is not UTF-8 text: byte 24 is 0xE9, which starts no UTF-8 character there", "\(error.reason)")
    }

    @Test("a file with hundreds of problems lists the first 50 and counts the rest")
    func manyProblemsCapped() throws {
        let steps = String(repeating: "  - {request: GET http://api.test/a, name: a}\n", count: 120)
        let error = try #require(throws: ScenarioError.self) {
            try Scenario.parse("traffic: {stubs: [{match: \"*\"}]}\nscript:\n" + steps, file: "many.yaml")
        }
        let lines = error.description.split(separator: "\n")
        #expect(error.more.count == 118, "every problem is kept for a program: \(error.more.count)")
        #expect(lines.count == 51 && lines.last == "many.yaml: … and 69 more problems of the same file (fix these first)", "\(lines.suffix(2))")
    }

    @Test("repeats spaced so far apart that the last would start past the virtual clock's 10⁹ s are refused at 'every'")
    func repeatsPastTheClock() throws {
        let error = try #require(throws: ScenarioError.self) {
            try Scenario.parse("traffic: {stubs: [{match: \"*\"}]}\nscript:\n  - request: GET http://api.test/a\n    repeat: 11\n    every: 1000000000s", file: "s.yaml")
        }
        #expect(error.path == "script[0].every" && error.line == 5, "\(error)")
        #expect(error.reason.hasPrefix("the last of the 11 repeats would start at 10000000000 s"), "\(error.reason)")
        // Ten repeats a 10⁸ s apart end at 9 × 10⁸ s: within the clock's range
        _ = try Scenario.parse("traffic: {stubs: [{match: \"*\"}]}\nscript:\n  - request: GET http://api.test/a\n    repeat: 10\n    every: 100000000s", file: "s.yaml")
    }

    @Test("a cassette that is not there: the run names the file, the line of the key, and says how to record it (an upstream first)")
    func missingCassette() throws {
        let url = parsingDirectory.appendingPathComponent("missing-cassette.yaml")
        // Loading succeeds: `tapedeck run --record once` creates a missing cassette.
        let scenario = try Scenario.load(url)
        let error = try #require(throws: ScenarioError.self) { try ScenarioRunner().run(scenario, seed: 1) }
        #expect(error.file == url.path)
        #expect(error.path == "traffic.cassette")
        #expect((error.line, error.column) == (3, 13), "the line and column of the path in the file")
        #expect(error.reason.hasPrefix("the cassette "))
        #expect(error.reason.hasSuffix("never-recorded.har.gz does not exist"))
        // The file has no upstream, so recording needs one first: the hint says so.
        #expect(error.hint.contains("add traffic.upstream and run tapedeck run "), "\(error.hint)")
        #expect(error.hint.hasSuffix("missing-cassette.yaml --record once"), "\(error.hint)")
    }

    @Test("a cassette path that is a directory is named as one, at its line")
    func cassetteDirectory() throws {
        let scenario = try Scenario.parse("""
            traffic:
              cassette: {file: ., timing: instant}
            script: [{request: GET http://api.test/a}]
            """, file: parsingDirectory.appendingPathComponent("inline.yaml").path, source: parsingDirectory.appendingPathComponent("inline.yaml"))
        let error = try #require(throws: ScenarioError.self) { try ScenarioRunner().run(scenario, seed: 1) }
        #expect(error.path == "traffic.cassette.file")
        #expect((error.line, error.column) == (2, 20))
        #expect(error.reason.hasSuffix("is a directory, not a cassette"), "\(error.reason)")
    }
}
