#if canImport(FoundationNetworking)
public import FoundationNetworking
#else
public import Foundation
#endif

/// Adopted by a URLSession delegate that wants the metrics a simulated transport synthesises
/// (corelibs never calls `urlSession(_:task:didFinishCollecting:)`, and `URLSessionTaskMetrics`
/// cannot be built with data). The call arrives on the delegate's queue, before or after
/// `didCompleteWithError` as the simulation decides — exactly the race a Darwin client must handle.
public protocol TransferMetricsDelegate: AnyObject {
    /// The metrics of `task`, synthesised by the transport, on the delegate's queue.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCollect metrics: TransferMetrics)
}

/// What a transport promises its client.
public struct TransportProfile: Hashable, Sendable, CustomStringConvertible {
    /// Whether every task's metrics are delivered (through ``TransferMetricsDelegate``).
    public var deliversMetrics: Bool

    /// A profile that does or does not promise metrics.
    public init(deliversMetrics: Bool) {
        self.deliversMetrics = deliversMetrics
    }

    /// The simulated bridge: metrics for every task, Darwin-like.
    public static let simulated = TransportProfile(deliversMetrics: true)
    /// Live URLSession on swift-corelibs-foundation: no metrics, ever.
    public static let corelibsURLSession = TransportProfile(deliversMetrics: false)

    /// `delivers metrics` or `no metrics`.
    public var description: String {
        deliversMetrics ? "delivers metrics" : "no metrics"
    }
}
