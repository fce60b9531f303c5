import Foundation
import Synchronization
package import TapedeckBridge
package import TapedeckClient
package import HTTPTypes
package import TapedeckHTTP
package import TapedeckNetwork
package import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The simulated servers the compatibility suites' user code talks to (api.example.com, auth.example.com),
/// and the default transport that makes its `Session()` and `AF` use them. Not user code: this is
/// the test's side.
package final class SimulatedBackend: Sendable {
    package let scheduler: SimulatedScheduler
    package let network: SimulatedNetwork
    package let harness: Harness
    package let transport: DefaultTransport
    private let seen = Box<[RequestSnapshot]>([])

    /// Frees the sessions and the simulation when the test lets go of it (see Harness.endSimulation()).
    deinit {
        harness.endSimulation()
    }

    package init(seed: UInt64 = 0) {
        let scheduler = SimulatedScheduler(seed: seed, violationPolicy: .record)
        let network = SimulatedNetwork(scheduler: scheduler)
        let harness = Harness(network: network)
        // Awaiting a DataTask runs the simulation on a thread of its own (as a Tape does), never
        // blocking one of Swift's cooperative threads for long.
        let driver = DispatchQueue(label: "compat.backend.driver")
        self.scheduler = scheduler
        self.network = network
        self.harness = harness
        transport = DefaultTransport(provider: harness, scheduler: scheduler, drive: {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                driver.async { continuation.resume(with: Result { _ = try scheduler.runUntilIdle() }) }
            }
        })
    }

    /// Runs `body` with this backend as TapedeckClient's default transport (what `Session()` and
    /// `AF` use).
    package func withTransport<T>(_ body: () throws -> T) rethrows -> T {
        try DefaultTransport.$current.withValue(transport) { try body() }
    }

    /// The async form of ``withTransport(_:)``.
    package func withTransport<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        try await DefaultTransport.$current.withValue(transport) { try await body() }
    }

    /// Runs the simulation until nothing is left to do; illegal lifecycle transitions fail the test.
    package func run() throws {
        try scheduler.runUntilIdle()
        let illegal = network.illegalTransitions + harness.illegalTransitions
        precondition(illegal.isEmpty, "illegal lifecycle transitions: \(illegal)")
    }

    /// Answers `host` `path` with `answer`, recording every request it sees.
    package func serve(_ method: HTTPRequest.Method? = nil, host: String = "api.example.com", path: String,
               _ answer: @escaping @Sendable (RequestSnapshot) -> ResponsePlan) {
        network.route(method, host: host, path: path) { [seen] request, _ in
            seen.mutate { $0.append(request) }
            return .response(answer(request))
        }
    }

    /// Every request the routes saw, in order.
    package var requests: [RequestSnapshot] { seen.value }

    /// The `Authorization` header of each request to `path`, in order ("-" when absent).
    package func authorizations(_ path: String) -> [String] {
        requests.filter { $0.path == path }.map { $0.headerFields[.authorization] ?? "-" }
    }

    /// How many requests `path` received.
    package func hits(_ path: String) -> Int {
        requests.count { $0.path == path }
    }
}

/// Thread-safe storage for what handlers capture.
package final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    package init(_ value: Value) {
        storage = Mutex(value)
    }

    package var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    package func mutate(_ body: (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }
}
