import Foundation
import Synchronization
import TapedeckClient
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches the script's requests (as a per-request event monitor) and keeps what the outcome
/// needs: when each was sent and finished, its attempts, cancels, anomalies, and every call of its
/// completion handler.
final class RunRecorder: EventMonitor {
    struct Entry: Sendable {
        let name: String
        let start: VirtualInstant
        var request: Request?
        var handlerCalls = 0
        var end: VirtualInstant?
        var status: Int?
        var error: ClientError?
        var body: Data?
        /// A stream request's pieces, counted as its handler got them.
        var pieces = 0
        var attempts = 1
        var cancelledAt: VirtualInstant?
        /// Sent through the scenario's provider: its attempts are its tagged exchanges.
        var viaProvider = false
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var byID: [UUID: Int] = [:]
        var anomalies: [(request: String, anomaly: String)] = []
        var backoffs: [String: [Int64]] = [:]
        var notRetried: [String: String] = [:]
    }

    private let state = Mutex(State())
    private let scheduler: SimulatedScheduler

    init(scheduler: SimulatedScheduler) {
        self.scheduler = scheduler
    }

    /// Nil: events run on the session's rootQueue, in the order they happen.
    var queue: (any SchedulerQueue)? { nil }

    /// Registers a request about to be sent; returns its index.
    func sent(_ name: String, request: Request) -> Int {
        let now = scheduler.now
        return state.withLock { state in
            state.entries.append(Entry(name: name, start: now, request: request))
            state.byID[request.id] = state.entries.count - 1
            return state.entries.count - 1
        }
    }

    /// Registers a request about to be sent through the scenario's provider; returns its index.
    func sentThroughProvider(_ name: String) -> Int {
        let now = scheduler.now
        return state.withLock { state in
            state.entries.append(Entry(name: name, start: now, viaProvider: true))
            return state.entries.count - 1
        }
    }

    /// The completion handler ran with `response`.
    func completed(_ index: Int, _ response: DataResponse<Data?, ClientError>, attempts: Int) {
        completed(index, status: response.response?.statusCode, error: response.error, body: response.data ?? nil, attempts: attempts)
    }

    /// The completion handler ran with this status, error and body.
    func completed(_ index: Int, status: Int?, error: ClientError?, body: Data?, attempts: Int) {
        let now = scheduler.now
        state.withLock { state in
            state.entries[index].handlerCalls += 1
            guard state.entries[index].handlerCalls == 1 else { return }
            state.entries[index].end = now
            state.entries[index].status = status
            state.entries[index].error = error
            state.entries[index].body = body
            state.entries[index].attempts = attempts
            state.entries[index].request = nil   // release it: the session may go away now
        }
    }

    /// A stream request's handler got a piece of `count` bytes.
    func receivedPiece(_ index: Int, _ piece: Data) {
        state.withLock { state in
            state.entries[index].pieces += 1
            if state.entries[index].body == nil { state.entries[index].body = piece } else { state.entries[index].body!.append(piece) }
        }
    }

    /// A stream request completed: its body is the pieces its handler got.
    func completedStream(_ index: Int, _ completion: DataStreamRequest.Completion, attempts: Int) {
        let body = state.withLock { $0.entries[index].body }
        completed(index, status: completion.response?.statusCode, error: completion.error, body: body, attempts: attempts)
    }

    /// A provider request's caller was cancelled through its token.
    func cancelled(_ index: Int) {
        let now = scheduler.now
        state.withLock { state in
            state.entries[index].cancelledAt = state.entries[index].cancelledAt ?? now
        }
    }

    /// The client of the request named `name` put its next attempt off by a delay (a backoff
    /// begins now: what `during: backoff` cancels).
    func backedOff(_ name: String) {
        let now = scheduler.now.nanoseconds
        state.withLock { $0.backoffs[name, default: []].append(now) }
    }

    /// The client's retry policy gave the request named `name` up for a reason its error will not
    /// say (`why`, in a sentence).
    func notRetried(_ name: String, why: String) {
        state.withLock { $0.notRetried[name] = why }
    }

    /// Why requests were not retried, by name (see ``notRetried(_:why:)``).
    var notRetried: [String: String] { state.withLock { $0.notRetried } }

    /// When each request's backoffs began (virtual nanoseconds), by request name.
    var backoffs: [String: [Int64]] { state.withLock { $0.backoffs } }

    var entries: [Entry] { state.withLock { $0.entries } }
    var anomalies: [(request: String, anomaly: String)] { state.withLock { $0.anomalies } }

    func requestDidCancel(_ request: Request) {
        let now = scheduler.now
        state.withLock { state in
            guard let index = state.byID[request.id] else { return }
            state.entries[index].cancelledAt = state.entries[index].cancelledAt ?? now
        }
    }

    func request(_ request: Request, didObserve anomaly: TaskLedgerAnomaly, for task: URLSessionTask) {
        state.withLock { state in
            let name = state.byID[request.id].map { state.entries[$0].name } ?? "?"
            state.anomalies.append((name, anomaly.rawValue))
        }
    }
}
