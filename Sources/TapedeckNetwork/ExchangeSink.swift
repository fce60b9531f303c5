public import Foundation
public import TapedeckHTTP

/// Where an exchange's events go: the URLProtocol bridge implements it. Every call is made on the
/// network's queue, in simulation order.
public protocol ExchangeSink: AnyObject, Sendable {
    /// The response head arrived. Return false when the client can no longer take callbacks (it
    /// cancelled or suspended the task); the network then abandons the exchange quietly.
    func exchange(_ id: Int, didReceive head: ResponseHead, url: URL) -> Bool
    /// Body bytes arrived (already decoded when the exchange decodes content codings).
    func exchange(_ id: Int, didReceive data: Data) -> Bool
    /// The exchange ended: with a response (`failure` nil) or a transport failure. `delivery` says
    /// how its metrics reach the client relative to the completion.
    func exchange(_ id: Int, didFinishWith failure: TransportFailure?, metrics: TransferMetrics, delivery: MetricsDelivery)
    /// The response is a redirect: ask the client. `decide` may be called at any time; the exchange
    /// waits for it.
    func exchange(
        _ id: Int, willRedirect head: ResponseHead, from url: URL, to proposed: RequestSnapshot,
        decide: @escaping @Sendable (RedirectDecision) -> Void)
}

/// What is left of an exchange the client gave up on.
public struct AbandonedExchange: Hashable, Sendable {
    /// Timings of the exchange up to the moment it was abandoned.
    public let metrics: TransferMetrics
    /// How the metrics reach the client relative to its cancellation callback.
    public let delivery: MetricsDelivery

    /// What is left of an abandoned exchange: its metrics and their delivery.
    public init(metrics: TransferMetrics, delivery: MetricsDelivery) {
        self.metrics = metrics
        self.delivery = delivery
    }
}

/// The client's answer to a redirect.
public enum RedirectDecision: Hashable, Sendable {
    /// Follow, with this request (the proposed one, or a modified one).
    case follow(RequestSnapshot)
    /// Do not follow: the redirect response is the final response.
    case stop
}

/// Per-exchange options the bridge derives from the URLRequest and the session configuration.
public struct ExchangeOptions: Hashable, Sendable {
    /// No bytes for this long ends the exchange with `timedOut` (`URLRequest.timeoutInterval`).
    public var idleTimeout: Duration?
    /// The whole exchange may take at most this long (`timeoutIntervalForResource`).
    public var resourceTimeout: Duration?
    /// Deliver `gzip`/`deflate` bodies decoded, headers untouched, as libcurl does on Linux.
    public var decodesContentEncoding: Bool

    /// Options with the defaults of a URLRequest: a 60 s idle timeout, no resource timeout, decoded bodies.
    public init(idleTimeout: Duration? = .seconds(60), resourceTimeout: Duration? = nil, decodesContentEncoding: Bool = true) {
        self.idleTimeout = idleTimeout
        self.resourceTimeout = resourceTimeout
        self.decodesContentEncoding = decodesContentEncoding
    }
}
