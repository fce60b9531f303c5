// The Swift snippets of README.md's five-minute tour ("Virtual time and queues" to "A Moya-shaped
// provider on the client"), in the order the page shows them, with the tour's import lines and no
// others, so that the imports it shows are the ones it needs. Each function is one snippet, as
// written, with the least scaffolding it needs: the variables an earlier snippet defined come in as
// parameters, the names the page leaves to the reader (`myDelegate`, `Items`, `GitHub`) are in
// Scaffolding.swift, and lines added for a test are marked `// (test)`. ReadmeSnippetTests.swift
// runs them and asserts what the page says.

import Foundation
import Logging            // swift-log, for the monitor's Logger
import TapedeckBridge
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

// MARK: - Snippets

/// README.md, "A five-minute tour" › "Virtual time and queues".
func readme_virtualTimeAndQueues() throws -> (scheduler: SimulatedScheduler, report: DeterminismReport) {
    // One thread, virtual time, every choice from the seed.
    let scheduler = SimulatedScheduler(seed: 42)

    // A Session-shaped queue tree: requestQueue and serializationQueue target rootQueue.
    let root = scheduler.makeQueue(label: "org.example.session.rootQueue", target: nil)
    let request = scheduler.makeQueue(label: "org.example.session.requestQueue", target: root)

    request.async {
        request.preconditionCurrent()      // GCD semantics: on requestQueue…
        root.preconditionCurrent()         // …is also on rootQueue
        scheduler.record("didCreateURLRequest", "GET /items")
        root.asyncAfter(delay: .seconds(60)) {   // a minute of backoff
            scheduler.record("retry")
        }
    }

    try scheduler.runUntilIdle()           // returns at once; the clock reads 60s
    print(scheduler.now, scheduler.traceHash)
    for step in scheduler.trace { print(step) }

    // Same seed ⇒ same trace, in any process, on any machine. Check it:
    let report = DeterminismCheck.run(seed: 42) { scheduler in /* build and run */ }
    return (scheduler, report)
}

/// README.md › "A real URLSession on a simulated network".
func readme_urlSessionOnSimulatedNetwork(scheduler: SimulatedScheduler, myDelegate: RecordingDelegate) throws -> Harness {
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/items",
                 options: RouteOptions(latency: .jittered(base: .milliseconds(80), jitter: .milliseconds(40))),
                 .json(200, #"{"items":[]}"#))
    network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), probability: (1, 4))])

    let harness = Harness(network: network)
    let clientRoot = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
    let session = harness.makeSession(delegate: myDelegate, delegateQueue: clientRoot)
    clientRoot.async { session.dataTask(with: URL(string: "http://api.test/items")!).resume() }
    try scheduler.runUntilIdle()           // myDelegate ran on clientRoot, in seed order
    return harness
}

/// README.md › "An Alamofire-shaped client on it".
func readme_alamofireShapedClient(
    scheduler: SimulatedScheduler, harness: Harness, results: Box<[(Result<Items, AFError>, onRootQueue: Bool)]>
) throws -> Session {
    let api = Session(provider: harness, scheduler: scheduler,
                      interceptor: RetryPolicy(), eventMonitors: [LoggingEventMonitor(logger: Logger(label: "api"))])
    api.request("http://api.test/items").validate().responseDecodable(of: Items.self) { response in
        print(response.result)             // on api.rootQueue; retries waited on virtual time
        results.withLock { $0.append((response.result, api.rootQueue.isCurrent)) }   // (test)
    }
    try scheduler.runUntilIdle()
    return api
}

/// README.md › "A Moya-shaped provider on the client".
func readme_moyaShapedProvider(scheduler: SimulatedScheduler, api: Session, answers: Box<[(status: Int?, at: VirtualInstant)]>) throws {
    let provider = MoyaProvider<GitHub>(session: api, stubClosure: MoyaProvider.delayedStub(5),
                                          plugins: [AccessTokenPlugin(token: "t0")], trackInflights: true)
    provider.request(.zen) { result in print(result.map(\.statusCode)) }   // exactly 5 s of virtual time later
    provider.request(.zen) { result in answers.withLock { $0.append((try? result.get().statusCode, scheduler.now)) } }   // (test: joins the first)
    try scheduler.runUntilIdle()
}
