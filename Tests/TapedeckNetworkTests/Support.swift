import Foundation
import Synchronization
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

/// A sink that records what the network delivers, with the virtual time of each event.
final class RecordingSink: ExchangeSink {
    struct Finish: Sendable {
        let failure: TransportFailure?
        let metrics: TransferMetrics
        let delivery: MetricsDelivery
        let time: VirtualInstant
    }

    private struct State {
        var events: [String] = []
        var bodies: [Int: Data] = [:]
        var finishes: [Int: Finish] = [:]
        var redirects: [String] = []
    }

    private let state = Mutex(State())
    let scheduler: SimulatedScheduler
    /// What to answer to redirects (default: follow the proposal).
    let redirectPolicy: @Sendable (RequestSnapshot) -> RedirectDecision
    /// After this many body bytes the client "cancels" (returns false).
    let refuseAfterBytes: Int?

    init(
        scheduler: SimulatedScheduler, refuseAfterBytes: Int? = nil,
        redirectPolicy: @escaping @Sendable (RequestSnapshot) -> RedirectDecision = { .follow($0) }
    ) {
        self.scheduler = scheduler
        self.refuseAfterBytes = refuseAfterBytes
        self.redirectPolicy = redirectPolicy
    }

    func exchange(_ id: Int, didReceive head: ResponseHead, url: URL) -> Bool {
        log("#\(id) head \(head.status) \(url.path)")
        return true
    }

    func exchange(_ id: Int, didReceive data: Data) -> Bool {
        let total = state.withLock { state -> Int in
            state.bodies[id, default: Data()].append(data)
            return state.bodies[id]!.count
        }
        log("#\(id) data \(data.count)")
        if let limit = refuseAfterBytes, total >= limit { return false }
        return true
    }

    func exchange(_ id: Int, didFinish end: ExchangeEnd) {
        state.withLock { $0.finishes[id] = Finish(failure: end.failure, metrics: end.metrics, delivery: end.delivery, time: scheduler.now) }
        log("#\(id) finish \(end.failure.map { "\($0.urlErrorCode.rawValue)" } ?? "ok")\(end.duplicatesCompletion ? " twice" : "")")
    }

    func exchange(
        _ id: Int, willRedirect head: ResponseHead, from url: URL, to proposed: RequestSnapshot,
        decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        log("#\(id) redirect \(head.status) \(url.path) → \(proposed.method.rawValue) \(proposed.url.path)")
        decide(redirectPolicy(proposed))
    }

    private func log(_ event: String) {
        let time = scheduler.now
        state.withLock { $0.events.append("\(time) \(event)") }
    }

    var events: [String] { state.withLock { $0.events } }
    func body(_ id: Int) -> Data { state.withLock { $0.bodies[id] ?? Data() } }
    func finish(_ id: Int) -> Finish? { state.withLock { $0.finishes[id] } }
}

/// A network on a fresh scheduler, with a helper to start exchanges from a job.
struct NetworkFixture {
    let scheduler: SimulatedScheduler
    let network: SimulatedNetwork
    let sink: RecordingSink

    init(seed: UInt64 = 0, refuseAfterBytes: Int? = nil, redirectPolicy: @escaping @Sendable (RequestSnapshot) -> RedirectDecision = { .follow($0) }) {
        scheduler = SimulatedScheduler(seed: seed)
        network = SimulatedNetwork(scheduler: scheduler)
        sink = RecordingSink(scheduler: scheduler, refuseAfterBytes: refuseAfterBytes, redirectPolicy: redirectPolicy)
    }

    func start(_ id: Int, _ method: String = "GET", _ url: String, body: Data? = nil, options: ExchangeOptions = ExchangeOptions()) {
        let request = RequestSnapshot(method: .init(method)!, url: URL(string: url)!, body: body)
        let network = network, sink = sink
        network.queue.async {
            network.start(id, request: request, options: options, sink: sink)
        }
    }
}

func seconds(_ value: Double) -> VirtualInstant {
    VirtualInstant.zero.advanced(by: .seconds(rounding: value))
}
