import DequeModule
import Foundation
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The bridge's record of one task's protocol instance.
///
/// Thread rules: `expectations`, `parked` and `cancellationCallback` are shared with URLSession's
/// threads and guarded by the harness's lock; every other field is touched only on the simulator's
/// thread (in jobs, or in the quiescence hook).
final class ExchangeLink: @unchecked Sendable {
    // @unchecked Sendable: see the thread rules above; `number` and `session` are immutable.

    enum ArrivalKind: Hashable {
        case start
        case stop
    }

    let number: Int
    /// Strong: a protocol instance may outlive its harness (its URLSession lives on).
    let session: SessionLink

    /// The deliveries to the task's protocol client under way, which its protocol's stopLoading
    /// waits for (any thread).
    let deliveries = DeliveryGate()

    // Simulator thread only.
    var urlProtocol: BridgeProtocol?
    weak var task: URLSessionTask?
    /// Where the task stands (see ``TaskLifecycle``); changed only through `Harness.handle(_:for:)`.
    var lifecycle = TaskLifecycle()
    /// True when the client takes the body in one piece (completion-handler tasks: corelibs keeps
    /// only the last chunk a custom protocol delivers to them).
    var bodyInOnePiece = false
    var buffered = Data()
    /// The request body, read from `httpBody` or `httpBodyStream` when loading first started.
    var body: Data?
    /// Whether the client was told its body was sent (`didSendBodyData`), once per task.
    var uploadReported = false
    /// Metrics of a cancelled exchange and how to deliver them around its cancellation callback.
    var cancelMetrics: AbandonedExchange?
    var cancelMetricsBeforeDelivered = false
    var cancelMetricsAfterDelivered = false
    /// The client's own URLSession and delegate, for a task of a session built from a handed-out
    /// configuration (set when loading starts).
    var foreign: ForeignTask?
    /// The client's answer to a redirect question, awaited from its own thread.
    var redirectExpectation: ExternalExpectation?

    // Guarded by the harness's lock.
    /// Whether the request body was read (at the first startLoading).
    var bodyRead = false
    /// Whether startLoading (or, for a task cancelled first, stopLoading) ever came.
    var startArrived = false
    var expectations: [ArrivalKind: Deque<ExternalExpectation>] = [:]
    var parked: [ArrivalKind: Deque<@Sendable () -> Void>] = [:]
    /// The network exchanges registered for this link in the harness's `byNetworkID` (so that
    /// finishing it removes its own keys, not every link's entry scanned).
    var registeredNetworkIDs: [Int] = []
    /// The block corelibs enqueued right after stopping this protocol (the cancellation callback).
    var cancellationCallback: (@Sendable () -> Void)?
    /// A foreign task's completion was handed to URLSession (its client may already start the next
    /// request: this one no longer counts as in flight).
    var completionHanded = false
    /// Created after the harness was closed: `startLoading` fails it at once.
    var rejected = false
    /// A foreign task stopped (cancelled) before the simulation took its request in.
    var stoppedBeforeAdmission = false

    /// Immutable after init: what the request is, for messages (`GET http://…`).
    let summary: String

    init(number: Int, session: SessionLink, urlProtocol: BridgeProtocol) {
        self.number = number
        self.session = session
        self.urlProtocol = urlProtocol
        self.summary = "\(urlProtocol.request.httpMethod ?? "GET") \(urlProtocol.request.url?.absoluteString ?? "?")"
    }

    /// The network exchange this link runs (or ran until halted).
    var networkID: Int? { lifecycle.networkID }
}

/// Keeps corelibs from letting go of a task while the bridge calls its protocol client. corelibs
/// calls a protocol's `stopLoading` (on the session's queue) before it removes a cancelled task
/// from its registry; the bridge looks at the task's state before each delivery, but a client's
/// own thread may cancel between that look and the delivery. `stopLoading` waits here until the
/// deliveries under way are done, so none reads a registry the task has left; a delivery that
/// starts later sees the cancel in its look.
final class DeliveryGate: @unchecked Sendable {
    // @unchecked Sendable: `inFlight` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var inFlight = 0

    /// A delivery begins (before the look at the task).
    func enter() {
        condition.lock()
        inFlight += 1
        condition.unlock()
    }

    /// A delivery is done.
    func leave() {
        condition.lock()
        inFlight -= 1
        if inFlight == 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Waits until no delivery is under way (the protocol's `stopLoading`).
    func waitForDeliveries() {
        condition.lock()
        while inFlight > 0 { condition.wait() }
        condition.unlock()
    }
}
