import Foundation
import Synchronization
import TapedeckBridge
import TapedeckHTTP
import TapedeckLoopback
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET requests through URLSession three ways — the lockstep bridge on the simulated network, a
/// trivial URLProtocol that answers at once, and a real HTTP server on loopback — sequentially and
/// with 8 and 64 in flight, in one run.
func runBridgeBenchmark() throws {
    if let rounds = ProcessInfo.processInfo.environment["TAPEDECK_BENCH_STRESS"].flatMap(Int.init) {
        // Stress mode (diagnostics): only the bridge side, many rounds.
        for round in 0..<rounds {
            for concurrency in [1, 8, 64] { try runThroughBridge(requests: 2_000, concurrency: concurrency, body: "{}") }
            if round % 10 == 0 { print("stress round \(round) ok") }
        }
        return
    }
    let requests = 4_000
    let server = try LoopbackServer.startBlocking()
    defer { server.stop() }
    let body = #"{"method":"GET","path":"/get","query":""}"#

    for concurrency in [1, 8, 64] {
        let bridge = medianSeconds(repetitions: 3) { try! runThroughBridge(requests: requests, concurrency: concurrency, body: body) }
        let trivial = medianSeconds(repetitions: 3) { runThroughURLSession(requests: requests, concurrency: concurrency, session: trivialSession(body: body), url: URL(string: "http://trivial.test/get")!) }
        let loopback = medianSeconds(repetitions: 3) { runThroughURLSession(requests: requests, concurrency: concurrency, session: loopbackSession(), url: server.url("/get")) }
        report("bridge", [
            "concurrency": String(concurrency),
            "requests": String(requests),
            "bridge_rps": rate(requests, bridge),
            "trivial_rps": rate(requests, trivial),
            "loopback_rps": rate(requests, loopback),
            "ratio": fixed(loopback / bridge),
            "cost_vs_trivial": fixed(bridge / trivial),
            "goal": concurrency == 1 ? "3" : "2",
        ])
    }
}

/// A closed loop: `concurrency` tasks in flight, each completion starts the next, until `requests`.
final class ClosedLoop: @unchecked Sendable {
    // @unchecked Sendable: counters are in a Mutex; `start` is called from one serial context at a time.
    private let counts = Mutex((started: 0, finished: 0))
    let requests: Int
    let done = DispatchSemaphore(value: 0)
    let issue: @Sendable (@escaping @Sendable () -> Void) -> Void

    init(requests: Int, issue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.requests = requests
        self.issue = issue
    }

    func startNext() {
        let proceed = counts.withLock { counts -> Bool in
            guard counts.started < requests else { return false }
            counts.started += 1
            return true
        }
        guard proceed else { return }
        issue { [self] in
            let finished = counts.withLock { counts -> Int in
                counts.finished += 1
                return counts.finished
            }
            if finished == requests { done.signal() } else { startNext() }
        }
    }
}

func runThroughBridge(requests: Int, concurrency: Int, body: String) throws {
    let scheduler = SimulatedScheduler(seed: 1, traceMode: .hashOnly)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/get", .json(200, body))
    let harness = Harness(network: network)
    let root = scheduler.makeSimulatedQueue(label: "bench.rootQueue", target: nil)
    let session = harness.makeSession(delegate: nil, delegateQueue: root)
    let url = URL(string: "http://api.test/get")!
    let loop = ClosedLoop(requests: requests) { finished in
        session.dataTask(with: url) { _, _, error in
            precondition(error == nil, "bridge request failed: \(String(describing: error))")
            finished()
        }.resume()
    }
    root.async { for _ in 0..<concurrency { loop.startNext() } }
    try scheduler.runUntilIdle()
    precondition(loop.done.wait(timeout: .now()) == .success, "not every bridge request finished")
    session.invalidateAndCancel()
}

private func runThroughURLSession(requests: Int, concurrency: Int, session: URLSession, url: URL) {
    let loop = ClosedLoop(requests: requests) { finished in
        session.dataTask(with: url) { _, _, error in
            precondition(error == nil, "request failed: \(String(describing: error))")
            finished()
        }.resume()
    }
    for _ in 0..<concurrency { loop.startNext() }
    loop.done.wait()
    session.invalidateAndCancel()
}

/// Wall seconds per request of `requests` sequential requests through a URLSession whose protocol
/// answers at once: what any exchange through a real corelibs URLSession costs at least (the
/// scenario benchmark's floor).
func trivialURLSessionSecondsPerRequest(requests: Int = 2_000) -> Double {
    medianSeconds(repetitions: 3) {
        runThroughURLSession(requests: requests, concurrency: 1, session: trivialSession(body: "{}"), url: URL(string: "http://trivial.test/get")!)
    } / Double(requests)
}

private func loopbackSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.httpMaximumConnectionsPerHost = 64
    return URLSession(configuration: configuration)
}

private func trivialSession(body: String) -> URLSession {
    TrivialProtocol.body = Data(body.utf8)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.protocolClasses = [TrivialProtocol.self]
    return URLSession(configuration: configuration)
}

/// Answers every request at once from startLoading: the cheapest a URLProtocol can be.
private final class TrivialProtocol: URLProtocol {
    nonisolated(unsafe) static var body = Data()   // set once before any session uses it

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "application/json"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Self.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
