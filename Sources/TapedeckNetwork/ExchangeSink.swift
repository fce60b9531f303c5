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
    /// The exchange ended: with a response or a transport failure; `end` also says how its
    /// metrics reach the client relative to the completion.
    func exchange(_ id: Int, didFinish end: ExchangeEnd)
    /// The response is a redirect: ask the client. `decide` may be called at any time; the exchange
    /// waits for it.
    func exchange(
        _ id: Int, willRedirect head: ResponseHead, from url: URL, to proposed: RequestSnapshot,
        decide: @escaping @Sendable (RedirectDecision) -> Void)
    /// Whether exchange `id`'s client is asked about a `401`'s Basic challenge (false by default).
    func answersChallenges(_ id: Int) -> Bool
    /// A `401` offers Basic authentication and the client answers challenges: ask it (by default
    /// the 401 is the answer). See the default implementation.
    func exchange(
        _ id: Int, challenged head: ResponseHead, url: URL, resend: RequestSnapshot, previousFailures: Int,
        decide: @escaping @Sendable (RedirectDecision) -> Void)
}

extension ExchangeSink {
    /// Whether the client of exchange `id` is asked for a credential when a `401` offers HTTP
    /// Basic authentication (``exchange(_:challenged:url:resend:previousFailures:decide:)``).
    /// By default none is: the 401 is the answer.
    public func answersChallenges(_ id: Int) -> Bool { false }

    /// The response is a `401` whose `WWW-Authenticate` offers `Basic`, and the client answers
    /// challenges: ask it, as URLSession asks its task delegate. `resend` is the request to send
    /// again; `decide(.follow(request))` sends that request (with its `Authorization`) as the
    /// exchange's next transaction, `.stop` makes the 401 the answer. `previousFailures` counts the
    /// credentials this exchange already sent. By default: `.stop`.
    public func exchange(
        _ id: Int, challenged head: ResponseHead, url: URL, resend: RequestSnapshot, previousFailures: Int,
        decide: @escaping @Sendable (RedirectDecision) -> Void
    ) {
        decide(.stop)
    }
}

/// How an exchange ended, for its sink.
public struct ExchangeEnd: Hashable, Sendable {
    /// nil: with the response; else this transport failure.
    public var failure: TransportFailure?
    /// The exchange's metrics.
    public var metrics: TransferMetrics
    /// How the metrics reach the client relative to the completion callback.
    public var delivery: MetricsDelivery
    /// Deliver the completion callback twice (a fault).
    public var duplicatesCompletion: Bool

    /// An ending: with `failure` (nil: the response), `metrics` delivered per `delivery`.
    public init(failure: TransportFailure?, metrics: TransferMetrics, delivery: MetricsDelivery, duplicatesCompletion: Bool = false) {
        self.failure = failure
        self.metrics = metrics
        self.delivery = delivery
        self.duplicatesCompletion = duplicatesCompletion
    }
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
    /// A name the client gave the request (the bridge takes it from the `X-Tapedeck-Tag` header,
    /// which it removes): fault hooks and records see it, and count attempts by it.
    public var tag: String?

    /// Options with the defaults of a URLRequest: a 60 s idle timeout, no resource timeout, decoded
    /// bodies, no tag.
    public init(idleTimeout: Duration? = .seconds(60), resourceTimeout: Duration? = nil, decodesContentEncoding: Bool = true,
                tag: String? = nil) {
        self.idleTimeout = idleTimeout
        self.resourceTimeout = resourceTimeout
        self.decodesContentEncoding = decodesContentEncoding
        self.tag = tag
    }
}
