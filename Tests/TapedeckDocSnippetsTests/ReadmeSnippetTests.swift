// Runs README.md's snippets (ReadmeSnippets.swift, ReadmeCassetteSnippet.swift) and asserts what
// the page says. The "Your own client" snippets import Alamofire and Moya, which are not
// dependencies of this package: their nearest form that compiles here is the same code with the
// client's own URLSession in Alamofire's place (what `Alamofire.Session` builds from the
// configuration), run against Cassettes/profile.har.gz.

import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckNetwork
import TapedeckScheduling
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// README.md › "Your own client", first snippet (Alamofire → the client's own URLSession).
private func readme_ownClientAlamofire(tape: Tape) async throws -> User {
    let session = URLSession(configuration: tape.configuration())   // its own delegate and queues
    let user = try await tape.serving {
        try JSONDecoder().decode(User.self, from: try await session.data(from: URL(string: "https://api.example/me")!).0)
    }
    return user
}

/// README.md › "Your own client", second snippet (Moya's completion handler → URLSession's).
private func readme_ownClientMoya(tape: Tape) async throws -> Int? {
    let session = URLSession(configuration: tape.configuration())
    let response = try await tape.serving {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int?, any Error>) in
            session.dataTask(with: URL(string: "https://api.example/me")!) { _, response, error in   // on the session's queue
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode) }
            }.resume()
        }
    }
    return response
}

// MARK: - Tests

@Suite("README.md: the five-minute tour's snippets compile and do what the page says")
struct ReadmeSnippetTests {
    @Test("Virtual time and queues: runUntilIdle returns with the clock at 60 s, both steps traced, the check deterministic")
    func virtualTimeAndQueues() throws {
        // When the snippet runs
        let (scheduler, report) = try readme_virtualTimeAndQueues()

        // Then a minute of virtual time passed, and the trace holds both events in order
        #expect(scheduler.now == VirtualInstant.zero.advanced(by: .seconds(60)))
        let events = scheduler.trace.filter { ["didCreateURLRequest", "retry"].contains($0.event) }
        #expect(events.map(\.event) == ["didCreateURLRequest", "retry"])
        #expect(events.map(\.time) == [.zero, VirtualInstant.zero.advanced(by: .seconds(60))])
        #expect(events.first?.payload == "GET /items")
        #expect(report.isDeterministic)
        // And the check, given the tour's own workload, finds it deterministic too
        let tour = try DeterminismCheck.run(seed: 42) { scheduler in
            let root = scheduler.makeQueue(label: "org.example.session.rootQueue", target: nil)
            let request = scheduler.makeQueue(label: "org.example.session.requestQueue", target: root)
            request.async { root.asyncAfter(delay: .seconds(60)) { scheduler.record("retry") } }
            try scheduler.runUntilIdle()
        }
        #expect(tour.isDeterministic, "\(tour)")
        #expect(scheduler.violations.isEmpty)
    }

    @Test("The tour end to end: the delegate hears the request on clientRoot, the Session's handler runs on its rootQueue, the stub answers 5 s later")
    func tourEndToEnd() throws {
        // Given the first snippet's scheduler and a delegate that notes where its callbacks run
        let (scheduler, _) = try readme_virtualTimeAndQueues()
        let myDelegate = RecordingDelegate(scheduler: scheduler)

        // When the URLSession snippet runs
        let harness = try readme_urlSessionOnSimulatedNetwork(scheduler: scheduler, myDelegate: myDelegate)

        // Then the request completed, and every callback ran as a job of app.rootQueue
        let calls = scheduler.trace.filter { $0.event == "delegate" }
        #expect(calls.last?.payload == "didCompleteWithError nil")
        #expect(!calls.isEmpty && calls.allSatisfy { $0.queue == "app.rootQueue" }, "\(calls)")
        #expect(myDelegate.statuses.count == 1)

        // When the Alamofire-shaped snippet runs on the same harness
        let results = Box<[(Result<Items, AFError>, onRootQueue: Bool)]>([])
        let api = try readme_alamofireShapedClient(scheduler: scheduler, harness: harness, results: results)

        // Then its handler ran once, on api.rootQueue, with the decoded items
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(delivered.first?.onRootQueue == true)
        #expect((try? delivered.first?.0.get())?.items == [])

        // When the provider snippet runs on that Session
        let start = scheduler.now
        let answers = Box<[(status: Int?, at: VirtualInstant)]>([])
        try readme_moyaShapedProvider(scheduler: scheduler, api: api, answers: answers)

        // Then the delayed stub answered 200, exactly 5 s of virtual time after the request
        let answered = answers.withLock { $0 }
        #expect(answered.map(\.status) == [200])
        #expect(answered.map { start.duration(to: $0.at) } == [.seconds(5)])
    }

    @Test("The Alamofire-shaped client: a 503 is retried after RetryPolicy's 0.5 s of virtual time, and the handler gets the items")
    func alamofireShapedClientRetries() throws {
        // Given the tour's stub whose first answer is a 503 (the tour's own seed draws none for this request)
        let scheduler = SimulatedScheduler(seed: 42)
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(.get, host: "api.test", path: "/items", .json(200, #"{"items":[]}"#))
        network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), limit: 1)])

        // When the snippet runs
        let results = Box<[(Result<Items, AFError>, onRootQueue: Bool)]>([])
        _ = try readme_alamofireShapedClient(scheduler: scheduler, harness: Harness(network: network), results: results)

        // Then the retry came half a second of virtual time later, and the handler saw only its answer
        #expect(network.records.map(\.outcome) == [.response(503), .response(200)])
        #expect(scheduler.now == VirtualInstant.zero.advanced(by: .milliseconds(500)))
        #expect(results.withLock { $0.map(\.onRootQueue) } == [true])
        #expect((try? results.withLock { $0.first?.0 }?.get())?.items == [])
    }

    @Test("Your own client: the tape serves a client's own URLSession while the test awaits it", .cassette("profile"))
    func ownClient() async throws {
        let tape = try #require(Tape.current)
        let user = try await readme_ownClientAlamofire(tape: tape)
        #expect(user.name == "Ada")
        #expect(tape.determinism.isReproducible)   // one request at a time: reproducible from the seed

        let status = try await readme_ownClientMoya(tape: tape)
        #expect(status == 200)
    }
}
