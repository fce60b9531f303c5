import Foundation
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The bridge's record of one task's protocol instance. Mutable fields are guarded by the
/// harness's lock (URLSession threads and the simulator both reach them).
final class ExchangeLink: @unchecked Sendable {
    // @unchecked Sendable: see above; `number` and `session` are immutable.

    enum Phase: Equatable {
        /// Created (inside resume or cancel); startLoading not yet taken in.
        case created
        /// The network runs exchange `networkID` for it.
        case running(networkID: Int)
        /// The client can no longer take callbacks (cancelled or suspended); a stop is expected.
        case halted(networkID: Int?)
        /// Stopped after a suspension; a resume starts it again.
        case suspended
        /// Finished, failed or cancelled: nothing more will happen.
        case done
    }

    enum ArrivalKind: Hashable {
        case start
        case stop
    }

    let number: Int
    unowned let session: SessionLink

    var urlProtocol: BridgeProtocol?
    weak var task: URLSessionTask?
    var phase: Phase = .created
    /// Whether a cancel was noticed (its stop and completion are expected).
    var cancelNoticed = false
    /// True when the client takes the body in one piece (completion-handler tasks: corelibs keeps
    /// only the last chunk a custom protocol delivers to them).
    var bodyInOnePiece = false
    var buffered = Data()
    /// The request body, read from `httpBody` or `httpBodyStream` when loading started.
    var body: Data?
    /// Metrics of a cancelled exchange still to be delivered after its cancellation callback.
    var metricsAfterCancellation: TransferMetrics?
    var expectations: [ArrivalKind: ExternalExpectation] = [:]
    var parked: [ArrivalKind: @Sendable () -> Void] = [:]

    init(number: Int, session: SessionLink, urlProtocol: BridgeProtocol) {
        self.number = number
        self.session = session
        self.urlProtocol = urlProtocol
    }
}
