public import TapedeckHTTP

/// Whatever carries a recorder's live requests to the real network and reports each exchange.
///
/// In-process recording uses a ``LiveForwarder`` (an inner URLSession, so a test records what its
/// own URLSession would see); `tapedeck record` plugs in a pooled socket client that keeps
/// compressed bodies as they travelled. Either way the recorder's modes, matching, redaction and
/// journal are the same.
///
/// ```swift
/// var options = CassetteRecorder.Options(mode: .once)
/// options.transport = LiveForwarder(options: options.live)   // the default when nil
/// let recorder = try CassetteRecorder(cassette: url, options: options)
/// ```
public protocol LiveTransport: Sendable {
    /// Sends `request` and calls `completion` exactly once with the exchange (a response, or a
    /// transport failure with its `URLError` code). The returned action cancels it; a cancelled
    /// exchange still completes (with a `cancelled` failure) unless it had already finished.
    @discardableResult
    func forward(_ request: RequestSnapshot, completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void

    /// ``forward(_:completion:)`` that also reports the response's head and body pieces to
    /// `progress` as they arrive, before `completion` (which still carries the whole exchange). By
    /// default nothing is reported early.
    @discardableResult
    func forward(_ request: RequestSnapshot, progress: @escaping DeferredReply.Progress,
                 completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void
}

extension LiveTransport {
    /// Reports nothing early: the transport answers only once the exchange is over.
    @discardableResult
    public func forward(_ request: RequestSnapshot, progress: @escaping DeferredReply.Progress,
                        completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
        forward(request, completion: completion)
    }
}

extension LiveForwarder: LiveTransport {}
