public import TapedeckHTTP

/// What happened to one exchange, kept by the network for tests and reports.
public struct ExchangeRecord: Sendable, CustomStringConvertible {
    public enum Outcome: Hashable, Sendable {
        /// A response was delivered with this status.
        case response(Int)
        case failure(TransportFailure)
        /// The client cancelled (or suspended) the task before the exchange ended.
        case cancelled
    }

    public let id: Int
    /// The first request of the exchange.
    public let request: RequestSnapshot
    public let outcome: Outcome
    public let metrics: TransferMetrics
    /// How the metrics were (or, for a cancelled exchange, were to be) delivered.
    public let metricsDelivery: MetricsDelivery?

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
