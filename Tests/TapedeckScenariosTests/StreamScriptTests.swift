import Foundation
import Testing
import TapedeckScenarios
import TapedeckTestSupport

/// A script step sent as a stream request (`stream: true`): its pieces counted as the client's
/// stream handler gets them, expected with `pieces`, and the problems a file can have with it.
@Suite("Scenarios: stream requests in the script")
struct StreamScriptTests {
    static func load(_ yaml: String, in directory: TemporaryDirectory) throws -> Scenario {
        try Data(yaml.utf8).write(to: directory.file("stream.yaml"))
        return try Scenario.load(directory.file("stream.yaml"))
    }

    static let events = (1...10).map { String(format: "data: token-%02d\\n\\n", $0) }.joined()

    @Test("the documented example: 5 pieces before the reset, 10 on the retry, the same trace every run")
    func example() throws {
        let file = fixturesDirectory.appendingPathComponent("../docs/examples/scenarios/stream.yaml").standardizedFileURL
        let scenario = try Scenario.load(file)
        let runner = ScenarioRunner()
        let outcome = try runner.run(scenario, seed: 1)
        #expect(outcome.passed, "\(outcome.failures)")
        let answer = try #require(outcome.requests.first)
        #expect(answer.pieces == 15 && answer.attempts == 2 && answer.status == 200)
        #expect(answer.bodyBytes == 15 * 16)
        for seed in [1, 2, 3] as [UInt64] {
            #expect(try runner.run(scenario, seed: seed).traceHash == runner.run(scenario, seed: seed).traceHash)
        }
    }

    @Test("each piece counts as the handler gets it: a bandwidth splits the body, a cancel mid-stream keeps what came; plain requests have no pieces")
    func counting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let scenario = try Self.load("""
            name: counting
            traffic:
              stubs:
                - {match: GET http://api.test/feed, bandwidth: 160, body: "\(Self.events)"}
            script:
              - {request: GET http://api.test/feed, name: whole, stream: true}
              - {request: GET http://api.test/feed, name: cut, stream: true}
              - {cancel: cut, at: 0.35s}
              - {request: GET http://api.test/feed, name: plain}
            expect:
              requests:
                whole: {status: 200, pieces: 10, bodyBytes: 160}
                cut: {error: cancelled, pieces: 3}
                plain: {status: 200, bodyBytes: 160}
            """, in: directory)
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.requests.map(\.pieces) == [10, 3, nil])
        let wrong = try Self.load(String(decoding: try Data(contentsOf: directory.file("stream.yaml")), as: UTF8.self)
            .replacingOccurrences(of: "pieces: 10", with: "pieces: 9"), in: directory)
        let failed = try ScenarioRunner().run(wrong, seed: 1)
        #expect(failed.failures.map(\.check) == ["pieces"])
        #expect(failed.failures.first?.message.contains("got 10") == true)
    }

    @Test("a file's stream problems are named: pieces on a plain request, a streamed multipart form, stream not a boolean")
    func badFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func problem(_ step: String, expect: String = "") -> String {
            do {
                _ = try Self.load("""
                    name: bad
                    traffic:
                      stubs:
                        - {match: POST http://api.test/up, status: 201}
                    script:
                    \(step)
                    \(expect)
                    """, in: directory)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(problem("  - {request: POST http://api.test/up, name: up}", expect: "expect: {requests: {up: {pieces: 2}}}")
            .contains("'up' is not a stream request"))
        #expect(problem("  - {request: POST http://api.test/up, stream: true, multipart: [{name: a, text: x}]}").contains("not a multipart form"))
        #expect(problem("  - {request: POST http://api.test/up, stream: maybe}").contains("stream"))
        #expect(problem("  - {request: POST http://api.test/up, stream: true, json: {q: 1}}") == "loaded")
    }
}
