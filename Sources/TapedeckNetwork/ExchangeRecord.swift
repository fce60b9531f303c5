public import TapedeckHTTP

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
