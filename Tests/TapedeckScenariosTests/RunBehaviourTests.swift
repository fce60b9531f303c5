import Foundation
import Testing
@testable import TapedeckClient
import TapedeckScenarios

/// What a run counts and delivers: redirect hops as exchanges, throttled bodies in slices, a token
/// expiry at time zero, and a cost per request that does not grow with the number of requests.
@Suite("Scenario runs: exchanges, throttled bodies, token expiry, scale")
struct RunBehaviourTests {
    private let checks = filesDirectory.appendingPathComponent("checks")

    @Test("expect.exchanges counts every request the network served, a followed redirect's hops included")
    func redirectHops() throws {
        // Given a 301 → 307 → 200 chain and one exchange expected on each hop's route (and 3 in all)
        let scenario = try Scenario.load(checks.appendingPathComponent("redirect-hops.yaml"))
        // When it runs
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        // Then every count holds
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.request("docs").status == 200)
    }

    @Test("a throttled body (stub bandwidth and the bandwidth fault) arrives in tenth-of-a-second slices: a cancel keeps what came, an idle timeout does not fire")
    func bandwidthSlices() throws {
        // Given 4,096 bytes at 100 B/s, two transfers cancelled at 20.05 s and one left to finish under a 5 s idle timeout
        let scenario = try Scenario.load(checks.appendingPathComponent("bandwidth-slices.yaml"))
        // When it runs
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        // Then the cancelled ones got 2,000 bytes (10 every 0.1 s) and the whole one all 4,096 at 40.96 s
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.request("stub-cancelled").bodyBytes == 2_000)
        #expect(outcome.request("fault-cancelled").bodyBytes == 2_000)
        #expect(outcome.request("stub-whole").end == .milliseconds(40_960))
    }

    @Test("a tokenExpiry at 0s revokes the initial token: the first request gets 401 and the client refreshes once")
    func tokenExpiryAtZero() throws {
        let scenario = try Scenario.load(checks.appendingPathComponent("token-expiry-at-zero.yaml"))
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.request("profile").faults.contains { $0.hasPrefix("token rejected (401) at ") && $0.hasSuffix("s") && !$0.contains("@") })
    }

    @Test("the client's housekeeping stays linear in the number of requests while the script holds every one of them")
    func linearPruning() throws {
        // Given 3,000 requests, all of which the scenario's script keeps (to cancel or attribute them by name)
        let count = 3_000
        let scenario = try parse("""
            traffic:
              stubs: [{match: GET http://api.test/x, json: {}}]
            script: [{request: GET http://api.test/x, repeat: \(count), every: 1ms}]
            expect:
              requests:
                x: {status: 200}
            """)
        let box = SessionBox()
        // When they run through a session the test can look into
        let outcome = try ScenarioRunner().run(scenario, seed: 1) { world in
            let session = Session(provider: world.harness, scheduler: world.scheduler)
            box.session = session
            return session
        }
        #expect(outcome.passed)
        // Then pruning its retired tasks looked at each about twice, not at all of them per request (n²/2 = 4,500,000)
        let visited = try #require(box.session).state.read { $0.retiredTasksVisited }
        #expect(visited <= 4 * count, "visited \(visited) retired tasks for \(count) requests")
    }
}

/// A retrier that answers from a queue of its own, as token refreshers often do — waiting until
/// that queue has answered, so the answer surely lands while the simulation runs.
private struct OwnQueueRetrier: RequestInterceptor {
    let queue = DispatchQueue(label: "app.retrier")

    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        let answered = DispatchSemaphore(value: 0)
        queue.async {
            completion(request.retryCount < 1 ? .retry : .doNotRetry)
            answered.signal()
        }
        answered.wait()
    }
}

extension RunBehaviourTests {
    @Test("a client whose code answers from its own queue gets an outcome that says the seed may not reproduce it; one that answers in place does not")
    func ownQueueIsNoted() throws {
        let scenario = try parse("""
            traffic: {stubs: [{match: GET http://api.test/x, responses: [{status: 503}, {status: 200}]}]}
            script: [{request: GET http://api.test/x, name: x, validate: true}]
            """)
        let foreign = try ScenarioRunner().run(scenario, seed: 1) { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: OwnQueueRetrier())
        }
        #expect(foreign.request("x").status == 200 && foreign.request("x").attempts == 2)
        #expect(foreign.determinismNote.hasPrefix("this run may not reproduce from its seed: 'retryResult' on "), "\(foreign.determinismNote)")
        #expect(OutcomeText(foreign).render().contains("note: this run may not reproduce from its seed"))
        let inPlace = try ScenarioRunner().run(scenario, seed: 1) { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: RetryPolicy(retryLimit: 1, retryableHTTPStatusCodes: [503]))
        }
        #expect(inPlace.request("x").attempts == 2 && inPlace.determinismNote.isEmpty, "\(inPlace.determinismNote)")
    }
}

/// The session a run's `makeSession` built, for looking at afterwards.
private final class SessionBox: @unchecked Sendable {
    // @unchecked Sendable: written once inside the run's makeSession, read after the run returned.
    var session: Session?
}

extension RunBehaviourTests {
    @Test("a cancel 'during the first backoff' lands in the wait of a client the user built (its own retrier), as for the file's")
    func cancelDuringOwnClientsBackoff() throws {
        let scenario = try parse("""
            traffic: {stubs: [{match: GET http://api.test/x, responses: [{status: 503}, {status: 200}]}]}
            script:
              - {request: GET http://api.test/x, name: x, validate: true}
              - {cancel: x, during: backoff}
            """)
        // A retrier of the user's own, waiting 2 s before its one retry
        let outcome = try ScenarioRunner().run(scenario, seed: 1) { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 2,
                                                                                                   retryableHTTPStatusCodes: [503]))
        }
        let x = outcome.request("x")
        #expect(x.error == .cancelled && x.attempts == 1, "\(x)")
        // In the middle of the wait: the 503 came at once, the cancel 1 s into the 2 s backoff
        #expect(x.end == .seconds(1), "\(x)")
    }
}

extension RunBehaviourTests {
    @Test("a makeSession that returns a Session off the world (the live transport) is a clear error before anything is sent")
    func sessionOffTheWorld() throws {
        let scenario = try parse("""
            traffic: {stubs: [{match: GET http://api.test/x, json: {}}]}
            script: [{request: GET http://api.test/x, name: x}]
            """)
        #expect {
            _ = try ScenarioRunner().run(scenario, seed: 1) { _ in Session(interceptor: RetryPolicy()) }
        } throws: { error in
            "\(error)".contains("does not run on the world the runner handed it") && "\(error)".contains("world.harness")
        }
    }
}
