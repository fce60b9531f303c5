public import Foundation
import NIOSSL
public import TapedeckCassettes
public import TapedeckHTTP

/// The recording proxy's way to its one upstream: pooled keep-alive HTTP/1.1 connections (TLS for
/// an `https` upstream), each opened on the event loop of the client connection that needs it, so
/// a proxied exchange never changes thread.
///
/// What it records, and why it is not the in-process `LiveForwarder` (an inner URLSession):
/// - Bodies exactly as they travelled: a gzip/deflate/br answer stays compressed (`_bodyForm: wire`)
///   and reaches the proxy's client byte for byte; URLSession would have decoded it.
/// - Header fields in the order and case the upstream sent them.
/// - Speed: corelibs URLSession funnels every task through one queue (a few hundred exchanges a
///   second here); this client keeps up with the upstream (docs/benchmarks.md).
/// - Redirects are not followed (each hop is its own interaction); failures become failure
///   entries with the `URLError` code URLSession would report (refused −1004, unknown host −1003,
///   timed out −1001, connection lost −1005, cancelled −999, an untrusted certificate −1202, any
///   other TLS failure −1200).
///
/// ```swift
/// let client = UpstreamClient(upstream: URL(string: "http://127.0.0.1:8080")!)
/// var options = CassetteRecorder.Options(mode: .once)
/// options.transport = client
/// // … when done:
/// client.shutdown()
/// ```
public final class UpstreamClient: LiveTransport {
    /// Where every request goes (its scheme, host and port replace the request's).
    public let upstream: URL
    /// Timeouts: `timeout` between reads (and to connect), `resourceTimeout` for the whole exchange.
    public let options: LiveForwarder.Options
    private let connections: UpstreamConnections?

    /// A client for `upstream` with `options`' timeouts (`options.upstream` is ignored).
    /// `trusting` holds PEM certificates of authorities an `https` upstream's certificate may
    /// chain to besides the system's (a staging server's own CA; check them first with
    /// ``certificates(inPEM:)``). A kept-alive connection unused for `idleTimeout` is closed.
    public init(upstream: URL, options: LiveForwarder.Options = LiveForwarder.Options(), trusting: [Data] = [],
                idleTimeout: Duration = .seconds(60)) {
        self.upstream = upstream
        self.options = options
        connections = UpstreamConnections(upstream: upstream, readTimeout: options.timeout, resourceTimeout: options.resourceTimeout,
                                          idleTimeout: idleTimeout, tls: Self.tls(for: upstream, trusting: trusting))
    }

    deinit {
        shutdown()
    }

    /// How many certificates a PEM file holds, or an error saying why it holds none usable.
    ///
    /// ```swift
    /// let count = try UpstreamClient.certificates(inPEM: Data(contentsOf: caFile))
    /// ```
    public static func certificates(inPEM pem: Data) throws -> Int {
        let certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem))
        guard !certificates.isEmpty else {
            throw UpstreamTrustError(message: "no certificate in it (a PEM file holds lines like -----BEGIN CERTIFICATE-----)")
        }
        return certificates.count
    }

    /// The TLS context of an `https` upstream (nil for `http`), or why it could not be made.
    private static func tls(for upstream: URL, trusting: [Data]) -> Result<NIOSSLContext, any Error>? {
        guard upstream.scheme?.lowercased() == "https" else { return nil }
        return Result {
            var configuration = TLSConfiguration.makeClientConfiguration()
            // The proxy speaks HTTP/1.1 to its upstream, and says so.
            configuration.applicationProtocols = ["http/1.1"]
            let extra = try trusting.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0)) }
            if !extra.isEmpty { configuration.additionalTrustRoots = [.certificates(extra)] }
            return try NIOSSLContext(configuration: configuration)
        }
    }

    /// Closes every pooled connection; later requests fail as cancelled. Call it before the event
    /// loops stop; off the loops it waits until the connections are closed, on one it does not.
    public func shutdown() {
        connections?.shutdown()
    }

    /// Sends `request` to the upstream; `completion` runs once, on an event loop thread.
    @discardableResult
    public func forward(_ request: RequestSnapshot, completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        forward(request, reporting: nil, completion: completion)
    }

    /// Sends `request` to the upstream, telling `progress` the response's head and each body piece
    /// as they arrive (on the event loop of the connection that asked, before `completion`).
    @discardableResult
    public func forward(_ request: RequestSnapshot, progress: @escaping DeferredReply.Progress,
                        completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        forward(request, reporting: progress, completion: completion)
    }

    private func forward(_ request: RequestSnapshot, reporting progress: DeferredReply.Progress?,
                         completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        let exchange = UpstreamExchange(request: request, progress: progress, completion: completion)
        guard let connections else {
            exchange.fail(UpstreamFailure(code: .unsupportedURL, message: "the upstream \(upstream) is not an http or https origin"))
            return {}
        }
        // A streamed exchange goes at the client's pace (backpressure): a slow reader of a large
        // body must not make a healthy upstream look timed out, so only the read timeout bounds it.
        return connections.forward(request, exchange: exchange, streamed: progress != nil)
    }
}

/// A PEM file of trusted certificates that holds none (``UpstreamClient/certificates(inPEM:)``).
public struct UpstreamTrustError: Error, CustomStringConvertible {
    /// What is wrong with it.
    public let message: String
    /// The message.
    public var description: String { message }
}
