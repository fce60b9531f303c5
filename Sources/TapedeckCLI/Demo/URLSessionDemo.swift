import Foundation
import Synchronization
import TapedeckBridge
import TapedeckCassettes
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `tapedeck demo urlsession` workload: a URLSession client with retries, on a faulty network
/// answered by built-in stubs or by a cassette.
struct URLSessionDemo {
    let requests: Int
    /// Answers from this recording instead of the stubs (its GET URLs are what the client asks for).
    var cassette: Cassette?

    /// Runs the workload to the end and returns one line per request, in request order.
    func run(on scheduler: SimulatedScheduler) throws -> [String] {
        let network = SimulatedNetwork(scheduler: scheduler)
        let urls: [URL]
        if let cassette {
            Self.configureReplay(network, cassette: cassette)
            urls = Self.replayURLs(cassette)
        } else {
            urls = try Self.configureStubs(network).map { URL(string: "http://api.demo\($0)")! }
        }
        let harness = Harness(network: network)
        let root = scheduler.makeSimulatedQueue(label: "demo.client.rootQueue", target: nil)
        let client = DemoClient(root: root, scheduler: scheduler)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 2
        let session = harness.makeSession(configuration: configuration, delegate: client, delegateQueue: root)
        client.session = session
        for index in 0..<requests {
            let url = urls[index % urls.count]
            root.asyncAfter(delay: .milliseconds(10 * index), named: "demo.send") {
                client.send(index, url)
            }
        }
        try scheduler.runUntilIdle()
        return client.summary
    }

    /// The cassette answers with its recorded timings on the virtual clock; 503s (one answer in
    /// four) and dropped connections (one attempt in eight) are injected from the seed.
    private static func configureReplay(_ network: SimulatedNetwork, cassette: Cassette) {
        network.add(Route(.any, responder: CassettePlayer(cassette: cassette), options: RouteOptions(latency: .recorded(scale: 1))))
        network.faults = FaultRules([
            .init(.responseHead, .overrideStatus(503), probability: (1, 4)),
            .init(.beforeConnect, .fail(.networkConnectionLost), probability: (1, 8)),
        ])
    }

    /// What the client asks a cassette for: its distinct GET URLs in recording order, redirect
    /// targets excluded (the client reaches them by following). Empty: nothing to replay.
    static func replayURLs(_ cassette: Cassette) -> [URL] {
        let ordered = cassette.interactions.sorted { $0.index < $1.index }
        var redirectTargets = Set<String>()
        for interaction in ordered {
            guard let response = interaction.response, (300..<400).contains(response.status),
                  let location = response.headers.value(for: "Location"),
                  let target = URL(string: location, relativeTo: interaction.request.url) else { continue }
            redirectTargets.insert(target.absoluteURL.absoluteString)
        }
        var seen = Set<String>()
        return ordered.compactMap { interaction in
            let url = interaction.request.url
            guard interaction.request.method == "GET", !redirectTargets.contains(url.absoluteString),
                  seen.insert(url.absoluteString).inserted else { return nil }
            return url
        }
    }

    /// The built-in API: jittered JSON, a slow gzip report, a redirect, an endpoint that never answers.
    private static func configureStubs(_ network: SimulatedNetwork) throws -> [String] {
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
        return ["/items", "/report", "/old", "/slow"]
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
