public import TapedeckHTTP
public import TapedeckScheduling

/// What happened to one exchange, kept by the network for tests and reports.
public struct ExchangeRecord: Sendable, CustomStringConvertible {
    /// How the exchange ended.
    public enum Outcome: Hashable, Sendable {
        /// A response was delivered with this status.
        case response(Int)
        /// The exchange failed before (or while) delivering a response.
        case failure(TransportFailure)
        /// The client cancelled (or suspended) the task before the exchange ended.
        case cancelled
    }

    /// The exchange's number on its network.
    public let id: Int
    /// The first request of the exchange.
    public let request: RequestSnapshot
    /// How it ended.
    public let outcome: Outcome
    /// Its metrics, as synthesised (delivered or not).
    public let metrics: TransferMetrics
    /// How the metrics were (or, for a cancelled exchange, were to be) delivered.
    public let metricsDelivery: MetricsDelivery?
    /// The request's tag (see ``ExchangeOptions/tag``), if it had one.
    public let tag: String?
    /// Which attempt of its request the exchange was (see ``FaultContext/attempt``).
    public let attempt: Int
    /// The faults that fired on it, in order.
    public let faults: [FiredFault]

    /// A record; the network makes these.
    public init(id: Int, request: RequestSnapshot, outcome: Outcome, metrics: TransferMetrics, metricsDelivery: MetricsDelivery?,
                tag: String? = nil, attempt: Int = 1, faults: [FiredFault] = []) {
        self.id = id
        self.request = request
        self.outcome = outcome
        self.metrics = metrics
        self.metricsDelivery = metricsDelivery
        self.tag = tag
        self.attempt = attempt
        self.faults = faults
    }

    /// The number, the request, the outcome and the delivery of the metrics.
    public var description: String {
        let result: String
        switch outcome {
        case let .response(status): result = "\(status)"
        case let .failure(failure): result = failure.description
        case .cancelled: result = "cancelled"
        }
        return "#\(id) \(request) → \(result) (\(metrics.taskDuration))"
    }
}

/// A fault that fired on an exchange: where, what, and when.
public struct FiredFault: Hashable, Sendable, CustomStringConvertible {
    /// The point it fired at.
    public let point: FaultPoint
    /// What it did.
    public let action: FaultAction
    /// When (virtual time).
    public let time: VirtualInstant

    /// A fired fault.
    public init(point: FaultPoint, action: FaultAction, time: VirtualInstant) {
        self.point = point
        self.action = action
        self.time = time
    }

    /// `responseHead: status 503 @ 1.2s`.
    public var description: String { "\(point): \(action) @ \(time)" }
}
