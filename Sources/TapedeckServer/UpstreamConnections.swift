import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TapedeckHTTP

/// The proxy's own HTTP/1.1 client for its upstream (`http`, or `https` over swift-nio-ssl): NIO
/// channels kept alive in a pool per event loop, each exchange run on the loop of the client
/// connection that asked, one exchange per upstream connection at a time (no pipelining).
///
/// Why not a general HTTP client (async-http-client carried this until the proxy measured it): a
/// proxied exchange needs one write, one read and a parse; a general client's per-request
/// machinery (its pool manager, request bag, task, URL parsing, a timer per read, a tracing span)
/// cost the proxy more CPU than everything else it does per exchange (docs/benchmarks.md). What
/// it has to get right:
/// - a pooled connection the upstream closed while idle is dropped; one that turns out closed when
///   an idempotent request goes out on it (nothing of an answer received) is replaced by a new
///   connection and the request sent again, once — as browsers and curl do;
/// - one timer per exchange: the read timeout (no byte from the upstream for that long, not
///   counting time the client takes to accept a piece) and, for an exchange that is not streamed,
///   the resource timeout;
/// - backpressure: the next read from the upstream waits until the client's connection has taken
///   the piece before it (``UpstreamExchange/received(body:taken:)``);
/// - an answer that ends before the request's body went out, or says `Connection: close`, or is
///   HTTP/1.0 without keep-alive, closes its connection instead of pooling it.
final class UpstreamConnections: Sendable {
    /// The upstream's host and port, and the `Host` field every request carries.
    let host: String
    let port: Int
    let hostField: String
    let readTimeout: Duration
    let resourceTimeout: Duration
    /// How large an answer's head may be: 256 KiB of fields, as Chromium takes (llhttp's default,
    /// 80 KiB, turned a legal answer curl and browsers read into a recorded 502).
    static let answerLimits: NIOHTTPDecoderLimitConfiguration = {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 256 * 1024
        limits.maxHeaderListSize = 256 * 1024
        return limits
    }()
    /// The TLS context of an `https` upstream (or why there is none); nil for `http`.
    private let tls: Result<NIOSSLContext, any Error>?
    private let pools = Mutex<[ObjectIdentifier: UpstreamPool]>([:])
    private let closed = Atomic<Bool>(false)
    /// The loop of callers that are on none (in-process use): always the same one, so their
    /// exchanges share its pool; picked on first use (the proxy's callers are all on its loops,
    /// and picking one starts NIO's shared threads).
    private let shared = Mutex<(any EventLoop)?>(nil)

    /// A pooled connection unused this long is closed (the upstream may never close it).
    let idleTimeout: Duration

    /// At most this many idle connections are kept per event loop; more are closed when done.
    static let maxIdle = 1_024

    init?(upstream: URL, readTimeout: Duration, resourceTimeout: Duration, idleTimeout: Duration,
          tls: Result<NIOSSLContext, any Error>?) {
        self.idleTimeout = idleTimeout
        let scheme = upstream.scheme?.lowercased()
        guard scheme == "http" || (scheme == "https" && tls != nil), let host = upstream.host(percentEncoded: false), !host.isEmpty else { return nil }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = upstream.port ?? (scheme == "https" ? 443 : 80)
        self.tls = tls
        let named = self.host.contains(":") ? "[\(self.host)]" : self.host
        self.hostField = upstream.port.map { "\(named):\($0)" } ?? named
        self.readTimeout = readTimeout
        self.resourceTimeout = resourceTimeout
    }

    /// Sends `request` on a connection of the calling event loop (one shared loop off the loops);
    /// `exchange` hears the answer. `streamed`: the client reads the answer as it comes, so only
    /// the read timeout bounds it. The returned action cancels the exchange.
    func forward(_ request: RequestSnapshot, exchange: UpstreamExchange, streamed: Bool) -> @Sendable () -> Void {
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? shared.withLock { picked in
            if let picked { return picked }
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            picked = loop
            return loop
        }
        let job = UpstreamJob(head: head(for: request), body: request.body, exchange: exchange,
                              deadline: streamed ? nil : .now() + .nanoseconds(resourceTimeout.wholeNanoseconds))
        if loop.inEventLoop {
            start(job, on: loop)
        } else {
            loop.execute { self.start(job, on: loop) }
        }
        return {
            loop.execute { job.cancel() }
        }
    }

    /// Closes every connection (an exchange under way fails as cancelled); later requests fail at once.
    func shutdown() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let all = pools.withLock { pools in
            defer { pools.removeAll() }
            return Array(pools.values)
        }
        var done: [EventLoopFuture<Void>] = []
        for pool in all {
            done.append(pool.loop.submit { pool.value.closeAll() })
        }
        if MultiThreadedEventLoopGroup.currentEventLoop == nil, let first = all.first {
            try? EventLoopFuture.andAllComplete(done, on: first.loop).wait()
        }
    }

    /// The request's head as it goes upstream: its target, `Host` naming the upstream, its fields
    /// in order and case, and the body's length.
    private func head(for request: RequestSnapshot) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 2)
        headers.add(name: "Host", value: hostField)
        for field in request.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        if let body = request.body {
            headers.add(name: "Content-Length", value: String(body.count))
        } else if ["POST", "PUT", "PATCH"].contains(request.method.rawValue) {
            headers.add(name: "Content-Length", value: "0")
        }
        var target = request.url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = request.url.query(percentEncoded: true) { target += "?" + query }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: target, headers: headers)
    }

    /// Runs `job` on a pooled connection of `loop`, or a new one.
    private func start(_ job: UpstreamJob, on loop: any EventLoop) {
        guard !job.isCancelled else { return }
        guard !closed.load(ordering: .acquiring), let pool = pool(for: loop) else {
            return job.exchange.fail(UpstreamFailure.cancelled)
        }
        if let handler = pool.value.takeIdle() {
            handler.run(job, reused: true)
        } else {
            connect(job, pool: pool)
        }
    }

    /// Opens a connection for `job` (used again for a job whose pooled connection was closed).
    func connect(_ job: UpstreamJob, pool: UpstreamPool) {
        let loop = pool.loop
        let handler = NIOLoopBound(UpstreamHandler(upstream: self, pool: pool), eventLoop: loop)
        let context: NIOSSLContext?
        switch tls {
        case nil: context = nil
        case let .success(made): context = made
        case let .failure(error):
            return job.exchange.fail(UpstreamFailure(code: .secureConnectionFailed, message: "TLS could not be set up: \(error)"))
        }
        // A name is sent as SNI and checked against the certificate; an address is checked alone.
        let serverName = IPAddressText.isAddress(host) ? nil : host
        ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(readTimeout.wholeNanoseconds))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    }
                    // The fields come from NIO's own request parser: already valid. An answer's
                    // head may be as large as a browser takes (Chromium: 256 KiB), not llhttp's 80.
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        enableOutboundHeaderValidation: false, decoderLimitConfiguration: Self.answerLimits)
                    try channel.pipeline.syncOperations.addHandler(handler.value)
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .success:
                    handler.value.run(job, reused: false)
                case let .failure(error):
                    // A connection under way when the client shut down was cancelled, not lost.
                    job.exchange.fail(self.isShutDown ? UpstreamFailure.cancelled : error)
                }
            }
    }

    /// The pool of `loop` (made on first use), nil once shut down.
    private func pool(for loop: any EventLoop) -> UpstreamPool? {
        let key = ObjectIdentifier(loop)
        return pools.withLock { pools in
            if let existing = pools[key] { return existing }
            guard !closed.load(ordering: .acquiring) else { return nil }
            let made = UpstreamPool(loop: loop, idleTimeout: idleTimeout)
            pools[key] = made
            return made
        }
    }

    /// Whether new exchanges are refused (the client was shut down).
    var isShutDown: Bool { closed.load(ordering: .acquiring) }
}

/// Whether a host is an IP address literal (which TLS may not send as a server name).
enum IPAddressText {
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

/// One request on its way: what to send, who hears the answer, and its state as seen from its
/// event loop.
final class UpstreamJob: @unchecked Sendable {
    // @unchecked Sendable: made on any thread, then touched only on the event loop it runs on
    // (``UpstreamConnections/forward(_:exchange:streamed:)`` hops there before anything else).
    let head: HTTPRequestHead
    let body: Data?
    let exchange: UpstreamExchange
    /// When a non-streamed exchange times out as a whole.
    let deadline: NIODeadline?
    /// Whether it may be sent again on a new connection after a pooled one turned out closed.
    var mayRetry: Bool
    /// The connection it runs on, while it does.
    var handler: UpstreamHandler?
    private(set) var isCancelled = false

    init(head: HTTPRequestHead, body: Data?, exchange: UpstreamExchange, deadline: NIODeadline?) {
        self.head = head
        self.body = body
        self.exchange = exchange
        self.deadline = deadline
        mayRetry = [.GET, .HEAD, .PUT, .DELETE, .OPTIONS, .TRACE].contains(head.method)
    }

    /// Stops it: the exchange fails as cancelled and its connection (if any) is closed.
    func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        if let handler {
            handler.abort(UpstreamFailure.cancelled)
        } else {
            exchange.fail(UpstreamFailure.cancelled)
        }
    }
}

/// The idle connections of one event loop, and every open one (to close them at shutdown).
final class UpstreamPool: Sendable {
    let loop: any EventLoop
    private let bound: NIOLoopBound<Connections>

    init(loop: any EventLoop, idleTimeout: Duration) {
        self.loop = loop
        let connections = Connections()
        bound = NIOLoopBound(connections, eventLoop: loop)
        // Idle connections an upstream never closes are closed here, a minute or so after use.
        // At least a millisecond apart: a zero timeout would make the sweep spin on the loop.
        let period = TimeAmount.nanoseconds(max(1_000_000, idleTimeout.wholeNanoseconds / 2))
        let sweeping = NIOLoopBound(connections, eventLoop: loop)
        connections.sweep = loop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
            sweeping.value.closeIdle(before: .now() - .nanoseconds(idleTimeout.wholeNanoseconds))
        }
    }

    /// The connections (on their loop only).
    var value: Connections { bound.value }

    /// The connections, touched on their loop only.
    final class Connections {
        /// Ready for an exchange, the most recently used last.
        private var idle: [UpstreamHandler] = []
        /// Every open connection, by identity.
        private var open: [ObjectIdentifier: UpstreamHandler] = [:]
        /// The repeated sweep of idle connections (cancelled by ``closeAll()``).
        var sweep: RepeatedTask?

        /// Closes the idle connections parked before `deadline`.
        func closeIdle(before deadline: NIODeadline) {
            for handler in idle where handler.idleSince < deadline { handler.closeIfIdle() }
        }

        func opened(_ handler: UpstreamHandler) { open[ObjectIdentifier(handler)] = handler }

        /// A connection done with its exchange: kept for the next one, or false when the pool is full.
        func park(_ handler: UpstreamHandler) -> Bool {
            guard idle.count < UpstreamConnections.maxIdle else { return false }
            idle.append(handler)
            return true
        }

        /// The most recently used idle connection that is still open.
        func takeIdle() -> UpstreamHandler? {
            while let handler = idle.popLast() {
                if handler.isOpen { return handler }
            }
            return nil
        }

        /// A connection that closed.
        func closed(_ handler: UpstreamHandler) {
            open[ObjectIdentifier(handler)] = nil
            if let index = idle.firstIndex(where: { $0 === handler }) { idle.remove(at: index) }
        }

        func closeAll() {
            sweep?.cancel()
            sweep = nil
            let all = Array(open.values)
            idle.removeAll()
            for handler in all { handler.abort(UpstreamFailure.cancelled) }
        }
    }
}
