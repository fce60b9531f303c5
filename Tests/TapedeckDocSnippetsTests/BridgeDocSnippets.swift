// The Swift snippets of docs/bridge.md. One function per snippet, as written plus the least
// scaffolding (`myDelegate`, `myClient` and `myQueue` are the reader's: see Scaffolding.swift);
// lines added for a test are marked `// (test)`.

import Foundation
import Testing
import TapedeckBridge
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Snippets

/// docs/bridge.md, the page's first example.
private func bridge_intro(myDelegate: RecordingDelegate) throws -> (SimulatedScheduler, Harness) {
    let scheduler = SimulatedScheduler(seed: 42)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/items",
                 options: RouteOptions(latency: .jittered(base: .milliseconds(80), jitter: .milliseconds(40))),
                 .json(200, #"{"items":[]}"#))
    network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), probability: (1, 4))])

    let harness = Harness(network: network)
    let root = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
    myDelegate.attach(to: scheduler)   // (test)
    let session = harness.makeSession(delegate: myDelegate, delegateQueue: root)
    root.async { session.dataTask(with: URL(string: "http://api.test/items")!).resume() }
    try scheduler.runUntilIdle()       // myDelegate's callbacks ran on `root`, in seed order
    return (scheduler, harness)
}

/// docs/bridge.md, "Clients with their own URLSession".
private func bridge_clientsWithTheirOwnURLSession(
    harness: Harness, myDelegate: RecordingDelegate, myQueue: OperationQueue, myClient: BlockingClient
) throws -> Int {
    let session = URLSession(configuration: harness.configuration(), delegate: myDelegate, delegateQueue: myQueue)
    let result = try harness.serve { try myClient.load(using: session) }     // blocks on the client's own threads
    // or: try await tape.serving { try await session.request(url).serializingData().value }  (Alamofire)
    return result
}

// MARK: - Tests

@Suite("docs/bridge.md: the snippets compile and do what the page says")
struct BridgeDocSnippetTests {
    @Test("The first example: the delegate's callbacks run as jobs of `root`, and a rerun with the seed takes the same steps")
    func intro() throws {
        // When the example runs with a delegate that notes its callbacks in the trace
        let myDelegate = RecordingDelegate()
        let (scheduler, harness) = try bridge_intro(myDelegate: myDelegate)
        // Then the response and the completion were delivered as jobs of app.rootQueue
        let calls = scheduler.trace.filter { $0.event == "delegate" }
        #expect(calls.count == 2, "\(calls)")
        #expect(calls.allSatisfy { $0.queue == "app.rootQueue" })
        #expect(myDelegate.statuses.count == 1)
        harness.endSimulation()

        // And a rerun from the seed takes the same steps
        let again = RecordingDelegate()
        let (rerun, rerunHarness) = try bridge_intro(myDelegate: again)
        #expect(rerun.traceHash == scheduler.traceHash)
        rerunHarness.endSimulation()
    }

    @Test("Clients with their own URLSession: serve answers a client blocking on its own threads, callbacks on its queue")
    func ownURLSession() throws {
        // Given a harness, and a client with its own delegate queue that blocks until it has an answer
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(.get, host: "api.test", path: "/items", .json(200, #"{"items":[]}"#))
        let harness = Harness(network: network)
        let myQueue = OperationQueue()
        myQueue.name = "my.delegateQueue"
        myQueue.maxConcurrentOperationCount = 1
        let myDelegate = RecordingDelegate()
        let myClient = BlockingClient(session: URLSession(configuration: .ephemeral), url: URL(string: "http://api.test/items")!)

        // When the example serves it
        let status = try bridge_clientsWithTheirOwnURLSession(harness: harness, myDelegate: myDelegate, myQueue: myQueue, myClient: myClient)

        // Then it got the answer, its handler ran on its own queue, and one request at a time is reproducible
        #expect(status == 200)
        #expect(myClient.queues == ["my.delegateQueue"])
        #expect(harness.determinism.isReproducible, "\(harness.determinism)")
        harness.endSimulation()
    }
}
