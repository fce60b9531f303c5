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

    @Test("runs of one runner share the cassette's preparation but not what was played: each run starts at the first answer")
    func playsStartAfreshEachRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = URL(string: "http://api.test/next")!
        try CassetteFile.write(Cassette(interactions: (0..<2).map { index in
            Interaction(index: index, request: RecordedRequest(method: "GET", url: url),
                        outcome: .response(RecordedResponse(status: 200 + index, body: Data("{}".utf8))))
        }), to: directory.file("api.har.gz"))
        try Data("""
            name: fresh
            traffic:
              cassette: api.har.gz
            script:
              - request: GET http://api.test/next
                name: next
            """.utf8).write(to: directory.file("fresh.yaml"))
        let scenario = try Scenario.load(directory.file("fresh.yaml"))
        let runner = ScenarioRunner()
        for seed in 1...3 {
            #expect(try runner.run(scenario, seed: UInt64(seed)).requests.first?.status == 200, "run \(seed) gets the first recorded answer")
        }
    }

    @Test("a cookie one run was given is not sent by the next run of the same runner: each run has its own cookie storage")
    func cookiesStayInTheirRun() throws {
        // Given a cassette whose /me was recorded without a cookie, matched on the Cookie field,
        // and a scenario that asks for /me, then logs in (which sets a cookie).
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let json = [HeaderField("Content-Type", "application/json")]
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/me")!),
                        outcome: .response(RecordedResponse(status: 200, headers: json, body: Data("{}".utf8)))),
            Interaction(index: 1, request: RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!),
                        outcome: .response(RecordedResponse(status: 200, headers: json + [HeaderField("Set-Cookie", "session=abc; Path=/")],
                                                            body: Data("{}".utf8)))),
        ]), to: directory.file("api.har.gz"))
        try Data("""
            name: cookies
            traffic:
              cassette:
                file: api.har.gz
                match:
                  headers: Cookie
            script:
              - request: GET http://api.test/me
                name: me
              - request: POST http://api.test/login
                name: login
                at: 100ms
            expect:
              requests:
                me:
                  status: 200
                login:
                  status: 200
            """.utf8).write(to: directory.file("cookies.yaml"))
        let scenario = try Scenario.load(directory.file("cookies.yaml"))
        let runner = ScenarioRunner()

        // When the same runner runs it twice (as explore, the scenario trait and
        // check-determinism do), then both runs pass: the second run's /me carries no cookie
        // from the first run's login (it did when every run shared one storage: a miss).
        for seed: UInt64 in [1, 1, 2] {
            let outcome = try runner.run(scenario, seed: seed)
            #expect(outcome.passed, "seed \(seed): \(outcome.failures)")
            #expect(outcome.requests.first?.status == 200)
        }
    }

    @Test("a request the cassette does not have gives the same trace hash wherever the files are, and for .har and .har.gz alike")
    func missHashIsPlaceFree() throws {
        func hash(in directory: TemporaryDirectory, cassette name: String) throws -> (String, String?) {
            try write(status: 200, body: "{}", to: directory.file(name))
            try Data("""
                name: miss
                traffic:
                  cassette: \(name)
                script:
                  - request: GET http://api.test/elsewhere
                    name: miss
                """.utf8).write(to: directory.file("miss.yaml"))
            let outcome = try ScenarioRunner().run(Scenario.load(directory.file("miss.yaml")), seed: 3)
            return (outcome.traceHash, outcome.requests.first?.errorDetail)
        }
        let one = try TemporaryDirectory(), two = try TemporaryDirectory()
        defer { one.cleanUp(); two.cleanUp() }
        let (first, detail) = try hash(in: one, cassette: "api.har.gz")
        // The miss still says which cassette it looked in (the outcome, not the hashed trace)
        #expect(detail?.contains(one.file("api.har.gz").path) == true, "\(String(describing: detail))")
        #expect(try hash(in: two, cassette: "api.har.gz").0 == first, "another directory")
        #expect(try hash(in: two, cassette: "api.har").0 == first, "the cassette as plain HAR")
    }
}
