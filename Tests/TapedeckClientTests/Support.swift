import Foundation
import Testing
import Synchronization
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records event names (with details) in the order a monitor on the rootQueue sees them.
final class EventLog: Sendable {
    private let events = Mutex<[ClientEvent]>([])

    func monitor(queue: (any SchedulerQueue)? = nil) -> ClosureEventMonitor {
        // Weak: the events hold requests, which hold this monitor; a strong capture would keep every
        // simulation of the suite alive (with its URLSession and sockets).
        ClosureEventMonitor(queue: queue) { [weak self] event in self?.events.withLock { $0.append(event) } }
    }

    var names: [String] { events.withLock { $0.map(\.name) } }
    var all: [ClientEvent] { events.withLock { $0 } }

    func names(without prefixes: [String]) -> [String] {
        names.filter { name in !prefixes.contains { name.hasPrefix($0) } }
    }

    func details(of name: String) -> [String] {
        events.withLock { $0.filter { $0.name == name }.map(\.detail) }
    }

    func count(_ name: String) -> Int {
        names.count { $0 == name }
    }
}

/// A simulated world for the pipeline: scheduler, network, harness, and a Session on them.
final class ClientFixture: @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    let scheduler: SimulatedScheduler
    let network: SimulatedNetwork
    let harness: Harness
    let session: Session
    let events = EventLog()

    /// Frees the sessions and the simulation when the test lets go of it (see Harness.endSimulation()).
    deinit {
        harness.endSimulation()
    }

    init(
        seed: UInt64 = 0, startRequestsImmediately: Bool = true, requestSetup: Session.RequestSetup = .lazy,
        rootQueue: (any SchedulerQueue)? = nil, interceptor: (any RequestInterceptor)? = nil,
        redirectHandler: (any RedirectHandler)? = nil, monitors: Bool = true, metricsGracePeriod: Duration = .seconds(1),
        scheduler: SimulatedScheduler? = nil
    ) {
        let scheduler = scheduler ?? SimulatedScheduler(seed: seed, violationPolicy: .record)
        self.scheduler = scheduler
        network = SimulatedNetwork(scheduler: scheduler)
        harness = Harness(network: network)
        session = Session(
            provider: harness, scheduler: scheduler, rootQueue: rootQueue,
            startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup,
            interceptor: interceptor, redirectHandler: redirectHandler,
            eventMonitors: monitors ? [events.monitor()] : [], metricsGracePeriod: metricsGracePeriod)
    }

    /// A Firewalk-like API on `api.test`: `/get` (JSON echo), `/status/N` (empty body), `/xml`,
    /// `/ip` (JSON), `/delay/MS`, `/bytes/N`, `/redirect/N`, `/basic-auth` (401 unless Authorization).
    func serveTestAPI() {
        network.route(host: "api.test", path: "/get") { request, _ in
            .response(.json(200, #"{"url":"\#(request.url.absoluteString)","method":"\#(request.method.rawValue)"}"#))
        }
        network.route(host: "api.test", path: "/status/*") { request, _ in
            .response(ResponsePlan(status: Int(request.url.lastPathComponent) ?? 500))
        }
        network.stub(host: "api.test", path: "/xml", ResponsePlan(status: 200, headers: [("Content-Type", "application/xml")], body: Data("<x/>".utf8)))
        network.stub(host: "api.test", path: "/ip", .json(200, #"{"origin":"127.0.0.1"}"#))
        network.route(host: "api.test", path: "/delay/*") { request, _ in
            _ = request
            return .response(.json(200, #"{"delayed":true}"#))
        }
        network.route(host: "api.test", path: "/basic-auth") { request, _ in
            request.headerFields[.authorization] == nil
                ? .response(ResponsePlan(status: 401))
                : .response(.json(200, #"{"authenticated":true}"#))
        }
    }

    /// Runs the simulation until idle; an illegal lifecycle transition in the network or the
    /// bridge is a failure of whichever test ran it.
    func run() throws {
        try scheduler.runUntilIdle()
        let illegal = network.illegalTransitions + harness.illegalTransitions
        #expect(illegal.isEmpty, "illegal lifecycle transitions: \(illegal)")
    }
}

/// Thread-safe storage for values tests capture in handlers.
final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func mutate(_ body: (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }
}

struct TestError: Error, Equatable {
    let id: Int
}

func seconds(_ value: Double) -> VirtualInstant {
    VirtualInstant.zero.advanced(by: .seconds(rounding: value))
}

/// A retrier (and pass-through adapter) that counts its calls and answers with `decide`.
final class CountingInterceptor: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: counters are Boxes; `decide`/`adaptWith` are immutable closures.
    let retries = Box<[String]>([])
    let adaptations = Box(0)
    let decide: @Sendable (Int, any Error) -> RetryResult
    let adaptWith: (@Sendable (Int, URLRequest) throws -> URLRequest)?

    init(decide: @escaping @Sendable (Int, any Error) -> RetryResult = { _, _ in .doNotRetry },
         adapt: (@Sendable (Int, URLRequest) throws -> URLRequest)? = nil) {
        self.decide = decide
        self.adaptWith = adapt
    }

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var call = 0
        adaptations.mutate { $0 += 1; call = $0 }
        guard let adaptWith else { return completion(.success(urlRequest)) }
        completion(Result { try adaptWith(call, urlRequest) })
    }

    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        var call = 0
        retries.mutate { $0.append(ClosureEventMonitorDescribe.describe(error)); call = $0.count }
        completion(decide(call, error))
    }
}

enum ClosureEventMonitorDescribe {
    static func describe(_ error: any Error) -> String {
        guard let clientError = error as? ClientError else { return "\(type(of: error))" }
        switch clientError {
        case let .responseValidationFailed(.unacceptableStatusCode(code)): return "unacceptableStatusCode(\(code))"
        case .responseSerializationFailed(.inputDataNilOrZeroLength): return "inputDataNilOrZeroLength"
        case .responseSerializationFailed(.decodingFailed): return "decodingFailed"
        case let .sessionTaskFailed(error as URLError): return "sessionTaskFailed(\(error.code.rawValue))"
        case .requestAdaptationFailed: return "requestAdaptationFailed"
        default: return "\(clientError)"
        }
    }
}

extension ClientFixture {
    /// A route answering the `n`-th request (from 1) with `answer(n)`.
    func sequence(path: String, _ answer: @escaping @Sendable (Int) -> ResponsePlan) {
        let counter = Box(0)
        network.route(host: "api.test", path: path) { _, _ in
            var n = 0
            counter.mutate { $0 += 1; n = $0 }
            return .response(answer(n))
        }
    }
}
