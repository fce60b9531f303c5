// The Swift snippets of TapedeckBridge's documentation: its DocC article
// (TapedeckBridge.docc/TapedeckBridge.md) and the `///` examples of its public declarations.
// One function per snippet, as written plus the least scaffolding (`myDelegate`, `myClient`,
// `client` and `myQueue` are the reader's: see Scaffolding.swift); lines added for a test are
// marked `// (test)`.

import Foundation
import Testing
import TapedeckBridge
import TapedeckNetwork
import TapedeckScheduling
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Snippets

/// TapedeckBridge.docc/TapedeckBridge.md, "Overview".
private func bridgeArticle_overview(myDelegate: RecordingDelegate) throws -> (SimulatedScheduler, Harness) {
    let scheduler = SimulatedScheduler(seed: 7)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/hello", .text(200, "hi"))
    let harness = Harness(network: network)
    let root = scheduler.makeQueue(label: "app.rootQueue", target: nil)
    myDelegate.attach(to: scheduler)   // (test)
    let session = harness.makeSession(delegate: myDelegate, delegateQueue: root)
    session.dataTask(with: URL(string: "http://api.test/hello")!).resume()
    try scheduler.runUntilIdle()   // myDelegate's callbacks ran on root, in seed order
    return (scheduler, harness)
}

/// `Harness`.
private func harnessExample(myDelegate: RecordingDelegate) throws -> (SimulatedScheduler, Harness) {
    let scheduler = SimulatedScheduler(seed: 7)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/hello", .text(200, "hi"))
    let harness = Harness(network: network)
    let clientRoot = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
    myDelegate.attach(to: scheduler)   // (test)
    let session = harness.makeSession(delegate: myDelegate, delegateQueue: clientRoot)
    session.dataTask(with: URL(string: "http://api.test/hello")!).resume()
    try scheduler.runUntilIdle()     // myDelegate's callbacks ran on clientRoot
    return (scheduler, harness)
}

/// `Harness.endSimulation()`.
private func endSimulation(scheduler: SimulatedScheduler, harness: Harness) throws {
    try scheduler.runUntilIdle()
    harness.endSimulation()
}

/// `Harness.configuration(base:)`.
private func configuration(harness: Harness, myDelegate: RecordingDelegate, myQueue: OperationQueue, myClient: BlockingClient) throws {
    let session = URLSession(configuration: harness.configuration(), delegate: myDelegate, delegateQueue: myQueue)
    try harness.serve {
        try myClient.fetchEverything(with: session)   // callbacks run on myQueue
    }
}

/// `Harness.startServing(pacing:)`.
private func startServing(harness: Harness, client: BlockingClient) throws {
    harness.startServing()
    client.start()                      // on its own queues
    try harness.waitUntilIdle()         // every request it started was answered
    try harness.stopServing()
}

/// `Harness.serve(pacing:timeout:_:)`.
private func serve(harness: Harness, myClient: BlockingClient) throws -> Int {
    let user = try harness.serve { try myClient.loadUser() }   // blocks on the client's own queue
    return user
}

/// `Harness.serving(pacing:timeout:_:)`.
private func serving(harness: Harness, session: URLSession, url: URL) async throws -> Data {
    let data = try await harness.serving { try await session.data(from: url).0 }
    return data
}

/// `ReproducibilityReport`.
private func reproducibilityReport(tape: Tape) -> ReproducibilityReport {
    let report = tape.determinism
    if !report.isReproducible { print(report) }   // "may vary between runs with the same seed: …"
    return report
}

/// `Pacing`.
private func pacing(harness: Harness, client: BlockingClient) throws {
    try harness.serve(pacing: .wallClock(scale: 0.1)) { try client.run() }   // 10× faster than recorded
}

// MARK: - Tests

@Suite("TapedeckBridge's DocC and /// snippets compile and do what they say")
struct TapedeckBridgeSnippetTests {
    @Test("The article's and Harness's examples: callbacks run as jobs of the root queue given")
    func sessions() throws {
        for run in [bridgeArticle_overview, harnessExample] {
            // When the example runs with a delegate that notes its callbacks in the trace
            let myDelegate = RecordingDelegate()
            let (scheduler, harness) = try run(myDelegate)
            // Then both callbacks ran as jobs of app.rootQueue, with the stubbed body; endSimulation's example ends it
            let calls = scheduler.trace.filter { $0.event == "delegate" }
            #expect(calls.map(\.payload) == ["didReceive 200", "didCompleteWithError nil"])
            #expect(calls.allSatisfy { $0.queue == "app.rootQueue" })
            #expect(String(decoding: myDelegate.body, as: UTF8.self) == "hi")
            try endSimulation(scheduler: scheduler, harness: harness)
        }
    }

    @Test("A client on its own threads: configuration + serve, startServing, serve, serving and wall-clock pacing all get the answers")
    func ownThreads() async throws {
        // Given a harness with a stub 20 ms away, and clients with URLSessions of their own
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(.get, host: "api.test", path: "/hello", options: RouteOptions(latency: .fixed(.milliseconds(20))), .text(200, "hi"))
        let harness = Harness(network: network)
        let url = URL(string: "http://api.test/hello")!
        let myQueue = OperationQueue()
        myQueue.name = "my.delegateQueue"
        myQueue.maxConcurrentOperationCount = 1

        // When configuration(base:)'s example serves a client that blocks for two requests,
        // Then it gets both, its handlers on its own queue
        let everything = BlockingClient(session: URLSession(configuration: .ephemeral), url: url)
        try configuration(harness: harness, myDelegate: RecordingDelegate(), myQueue: myQueue, myClient: everything)
        #expect(everything.statuses == [200, 200])
        #expect(everything.queues == ["my.delegateQueue", "my.delegateQueue"])

        // When startServing's example serves a client that starts and returns, Then its request is answered
        let started = BlockingClient(session: URLSession(configuration: harness.configuration()), url: url)
        try startServing(harness: harness, client: started)
        try started.waitForAnswer()
        #expect(started.statuses == [200])

        // When serve's and serving's examples run, Then they return what the client got, one request at a time (reproducible)
        let blocking = BlockingClient(session: URLSession(configuration: harness.configuration()), url: url)
        #expect(try serve(harness: harness, myClient: blocking) == 200)

        let data = try await serving(harness: harness, session: URLSession(configuration: harness.configuration()), url: url)
        #expect(data == Data("hi".utf8))
        #expect(harness.determinism.isReproducible, "\(harness.determinism)")

        // When Pacing's example serves on the wall clock, Then the answer comes, and the report says why a rerun may differ
        let paced = BlockingClient(session: URLSession(configuration: harness.configuration()), url: url)
        try pacing(harness: harness, client: paced)
        #expect(paced.statuses == [200])
        #expect(harness.determinism.reasons.contains("virtual time followed the wall clock (pacing .wallClock)"))
        harness.endSimulation()
    }

    @Test("ReproducibilityReport: one request at a time through a tape is reproducible")
    func report() async throws {
        // When a client's own session asks a tape for one answer, Then ReproducibilityReport's example finds it reproducible
        let tape = try Tape(cassette: snippetCassettes.appendingPathComponent("profile.har.gz"), mode: .replayOnly)
        let session = URLSession(configuration: tape.configuration())
        _ = try await tape.serving { try await session.data(from: URL(string: "https://api.example/me")!) }
        #expect(reproducibilityReport(tape: tape).isReproducible)
        try tape.finish()
    }
}
