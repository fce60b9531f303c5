import Foundation
import Synchronization
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `tapedeck demo urlsession` workload: a URLSession client with retries, on a faulty network.
struct URLSessionDemo {
    let requests: Int

    /// Runs the workload to the end and returns one line per request, in request order.
    func run(on scheduler: SimulatedScheduler) throws -> [String] {
        let network = SimulatedNetwork(scheduler: scheduler)
        let jitter = RouteOptions(latency: .jittered(base: .milliseconds(40), jitter: .milliseconds(80)))
        network.stub(.get, host: "api.demo", path: "/items", options: jitter, .json(200, #"{"items":[1,2,3]}"#))
        let packed = try Zlib.compress(Data(String(repeating: #"{"report":"quarterly"}"#, count: 50).utf8))
        network.stub(.get, host: "api.demo", path: "/report", options: RouteOptions(latency: .fixed(.milliseconds(120)), bandwidth: 2_000),
                     ResponsePlan(status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: packed))
        network.stub(.get, host: "api.demo", path: "/old", options: jitter, ResponsePlan(status: 301, headers: [("Location", "/items")]))
        network.route(.get, host: "api.demo", path: "/slow") { _, _ in .stall }
        network.faults = FaultRules([
            .init(.responseHead, .overrideStatus(503), matching: RouteMatcher(path: "/items"), probability: (1, 3)),
            .init(.beforeConnect, .fail(.networkConnectionLost), probability: (1, 8)),
        ])
        let harness = Harness(network: network)
        let root = scheduler.makeSimulatedQueue(label: "demo.client.rootQueue", target: nil)
        let client = DemoClient(root: root, scheduler: scheduler)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 2
        let session = harness.makeSession(configuration: configuration, delegate: client, delegateQueue: root)
        client.session = session
        let paths = ["/items", "/report", "/old", "/slow"]
        for index in 0..<requests {
            let path = paths[index % paths.count]
            root.asyncAfter(delay: .milliseconds(10 * index), named: "demo.send") {
                client.send(index, URL(string: "http://api.demo\(path)")!)
            }
        }
        try scheduler.runUntilIdle()
        return client.summary
    }
}

/// A URLSession delegate that retries 503s and dropped connections with exponential backoff.
final class DemoClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: every callback and every `send` runs on `root`, one job at a time;
    // `session` is set once before the first request.
    let root: SimulatedQueue
    let scheduler: SimulatedScheduler
    var session: URLSession?
    private struct Attempt {
        let index: Int
        let url: URL
        let attempt: Int
        var status: Int?
        var bytes = 0
    }
    private var attempts: [Int: Attempt] = [:]
    private var results: [Int: String] = [:]

    init(root: SimulatedQueue, scheduler: SimulatedScheduler) {
        self.root = root
        self.scheduler = scheduler
    }

    func send(_ index: Int, _ url: URL, attempt: Int = 0) {
        root.preconditionCurrent()
        guard let task = session?.dataTask(with: url) else { return }
        attempts[task.taskIdentifier] = Attempt(index: index, url: url, attempt: attempt)
        scheduler.record("demo.send", "#\(index) \(url.path) attempt \(attempt)")
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        attempts[dataTask.taskIdentifier]?.status = (response as? HTTPURLResponse)?.statusCode
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        attempts[dataTask.taskIdentifier]?.bytes += data.count
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        root.preconditionCurrent()
        guard let attempt = attempts.removeValue(forKey: task.taskIdentifier) else { return }
        let code = (error as? URLError)?.code
        let retryable = attempt.status == 503 || code == .networkConnectionLost
        let outcome = code.map { "URLError \($0.rawValue)" } ?? "\(attempt.status ?? 0), \(attempt.bytes) bytes"
        if retryable && attempt.attempt < 3 {
            let delay = Duration.milliseconds(500 << attempt.attempt)
            scheduler.record("demo.retry", "#\(attempt.index) after \(delay)")
            root.asyncAfter(delay: delay, named: "demo.retry") { [self] in
                send(attempt.index, attempt.url, attempt: attempt.attempt + 1)
            }
            return
        }
        results[attempt.index] = "t=\(scheduler.now)  #\(attempt.index) GET \(attempt.url.path): \(outcome) after \(attempt.attempt) retr\(attempt.attempt == 1 ? "y" : "ies")"
    }

    var summary: [String] {
        results.keys.sorted().map { results[$0]! }
    }
}
