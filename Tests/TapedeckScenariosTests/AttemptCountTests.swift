import Foundation
import Testing
import TapedeckScenarios

/// `attempts` counts the tasks the client created: a request cancelled before it had one made none.
@Suite("Attempts are the tasks the client created")
struct AttemptCountTests {
    /// A request sent at 1 s and a `cancelAll` at 1 s: with lazy setup, the seed decides whether
    /// `cancelAllRequests` finds it before its task exists.
    private let race = """
        traffic: {stubs: [{match: GET http://api.test/*, latency: 10ms, json: {}}]}
        script:
          - {request: GET http://api.test/a, at: 1s}
          - cancelAll: 1s
        """

    @Test("a request cancelAll cancelled before lazy setup created its task made 0 attempts; one that got a task made 1")
    func cancelledBeforeItsTask() throws {
        var seen: Set<Int> = []
        for seed: UInt64 in 1...10 {
            // When the seed lets cancelAll or the request's setup go first
            let outcome = try run(race, seed: seed)
            let a = outcome.request("a")
            // Then a request that never reached the network made no attempt, and one that did made one
            let reached = outcome.lane("a")?.spans.contains { $0.kind == .attempt } == true
            #expect(a.attempts == (reached ? 1 : 0), "seed \(seed): \(a.result), \(a.attempts) attempts")
            seen.insert(a.attempts)
        }
        #expect(seen == [0, 1], "both sides of the race are among the seeds")
    }

    @Test("expect attempts: 0 is read, and holds for a request cancelled before its task")
    func expectZeroAttempts() throws {
        // Given the race with expectations for the seed where cancelAll wins (6)
        let scenario = try parse(race + """

            expect:
              requests:
                a: {error: cancelled, attempts: 0}
              exchanges:
                GET http://api.test/a: 0
            """)
        // Then the file loads, and that seed passes
        let outcome = try ScenarioRunner().run(scenario, seed: 6)
        #expect(outcome.passed, "\(outcome.failures)")
    }
}
