import Foundation
import Testing
import TapedeckCassettes
import TapedeckScenarios
import TapedeckTestSupport

@Suite("Runner: cassettes read once per runner, again when the file changes")
struct RunnerCassetteTests {
    private func write(status: Int, body: String, to url: URL) throws {
        let cassette = Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/items")!),
                        outcome: .response(RecordedResponse(status: status, headers: [HeaderField("Content-Type", "application/json")],
                                                            body: Data(body.utf8)))),
        ])
        try CassetteFile.write(cassette, to: url)
    }

    @Test("a runner replays the cassette it read for each run, and a re-recorded file is read again, even one of the same size")
    func changedCassetteIsReadAgain() throws {
        // Given a scenario over a cassette answering 200, run once by a runner.
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try write(status: 200, body: "{}", to: directory.file("api.har.gz"))
        try Data("""
            name: cache
            traffic:
              cassette: api.har.gz
            script:
              - request: GET http://api.test/items
                name: items
            """.utf8).write(to: directory.file("cache.yaml"))
        let scenario = try Scenario.load(directory.file("cache.yaml"))
        let runner = ScenarioRunner()
        #expect(try runner.run(scenario, seed: 1).requests.first?.status == 200)
        #expect(try runner.run(scenario, seed: 2).requests.first?.status == 200)

        // When the cassette is re-recorded with another answer.
        try write(status: 503, body: #"{"down":true}"#, to: directory.file("api.har.gz"))

        // Then the same runner replays the new file.
        #expect(try runner.run(scenario, seed: 3).requests.first?.status == 503)

        // And a rewrite of the same size (another status of as many digits, the same body) is
        // noticed too: cassettes are renamed into place, so the file is a new one.
        try write(status: 504, body: #"{"down":true}"#, to: directory.file("api.har.gz"))
        #expect(try runner.run(scenario, seed: 4).requests.first?.status == 504)
    }
}
