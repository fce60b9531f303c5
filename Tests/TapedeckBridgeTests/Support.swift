import Foundation
import Synchronization
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plain URLSessionDataDelegate client: it logs every callback with the virtual time, checks it
/// runs on its simulated root queue, and records each event in the simulation's trace.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, TransferMetricsDelegate, @unchecked Sendable {
    // @unchecked Sendable: mutable state is in Mutexes; callbacks arrive on one serial queue.
    let root: SimulatedQueue
    let scheduler: SimulatedScheduler
    private let events = Mutex<[String]>([])
    private let bodies = Mutex<[Int: Data]>([:])
    private let metricsByTask = Mutex<[Int: TransferMetrics]>([:])
    let redirectPolicy: @Sendable (HTTPURLResponse, URLRequest) -> URLRequest?

    init(root: SimulatedQueue, redirectPolicy: @escaping @Sendable (HTTPURLResponse, URLRequest) -> URLRequest? = { $1 }) {
        self.root = root
        self.scheduler = root.scheduler
        self.redirectPolicy = redirectPolicy
    }

    private func log(_ task: URLSessionTask, _ event: String) {
        root.preconditionCurrent()
        let line = "\(scheduler.now) \(task.taskDescription ?? "?") \(event)"
        scheduler.record("client", line)
        events.withLock { $0.append(line) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        log(dataTask, "response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        log(task, "sent \(bytesSent) \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bodies.withLock { $0[dataTask.taskIdentifier, default: Data()].append(data) }
        log(dataTask, "data \(data.count)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log(task, "complete \(error.map { "\(($0 as? URLError)?.code.rawValue ?? 0)" } ?? "ok")")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let decision = redirectPolicy(response, request)
        log(task, "redirect \(response.statusCode) → \(decision?.url?.path ?? "stop")")
        completionHandler(decision)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCollect metrics: TransferMetrics) {
        metricsByTask.withLock { $0[task.taskIdentifier] = metrics }
        log(task, "metrics")
    }

    var lines: [String] { events.withLock { $0 } }
    func body(_ task: URLSessionTask) -> Data { bodies.withLock { $0[task.taskIdentifier] ?? Data() } }
    func metrics(_ task: URLSessionTask) -> TransferMetrics? { metricsByTask.withLock { $0[task.taskIdentifier] } }
}

/// A scheduler, a network, a harness and a delegate-based session whose callbacks run on `root`.
final class BridgeFixture: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; tasks are appended from jobs (one thread at a time).
    let scheduler: SimulatedScheduler
    let network: SimulatedNetwork
    let harness: Harness
    let root: SimulatedQueue
    let delegate: RecordingDelegate
    let session: URLSession
    private let tasks = Mutex<[String: URLSessionTask]>([:])

    /// Frees the sessions and the simulation when the test lets go of it (see Harness.endSimulation()).
    deinit {
        harness.endSimulation()
    }

    init(seed: UInt64 = 0, mode: Harness.Mode = .lockstep, decodes: Bool = true,
         configuration: URLSessionConfiguration = .ephemeral, externalWaitLimit: Duration = .seconds(10),
         redirectPolicy: @escaping @Sendable (HTTPURLResponse, URLRequest) -> URLRequest? = { $1 }) {
        scheduler = SimulatedScheduler(seed: seed, violationPolicy: .record, externalWaitLimit: externalWaitLimit)
        network = SimulatedNetwork(scheduler: scheduler)
        harness = Harness(network: network, mode: mode, decodesContentEncoding: decodes)
        root = scheduler.makeSimulatedQueue(label: "client.rootQueue", target: nil)
        delegate = RecordingDelegate(root: root, redirectPolicy: redirectPolicy)
        session = harness.makeSession(configuration: configuration, delegate: delegate, delegateQueue: root)
    }

    /// Creates and resumes a task from a job on the client's root queue, at `delay`.
    func start(_ name: String, _ request: URLRequest, after delay: Duration = .zero, resume: Bool = true) {
        root.asyncAfter(delay: delay) { [self] in
            let task = session.dataTask(with: request)
            task.taskDescription = name
            tasks.withLock { $0[name] = task }
            if resume { task.resume() }
        }
    }

    func get(_ name: String, _ url: String, after delay: Duration = .zero) {
        start(name, URLRequest(url: URL(string: url)!), after: delay)
    }

    func task(_ name: String) -> URLSessionTask? {
        tasks.withLock { $0[name] }
    }

    /// Runs `work` on the client's root queue at `delay` with the named task.
    func at(_ delay: Duration, _ name: String, _ work: @escaping @Sendable (URLSessionTask) -> Void) {
        root.asyncAfter(delay: delay) { [self] in
            if let task = task(name) { work(task) }
        }
    }
}

func seconds(_ value: Double) -> VirtualInstant {
    VirtualInstant.zero.advanced(by: .seconds(rounding: value))
}
