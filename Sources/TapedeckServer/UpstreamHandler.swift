import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// One connection to the upstream (``UpstreamConnections``): sends a job's request, feeds
/// the answer to its ``UpstreamExchange``, and goes back to its pool when the answer is complete
/// and the connection may carry another.
///
/// Its states: idle in the pool (no job), running a job (request going out, answer coming in),
/// closed. A job ends exactly once: complete (`.end`), failed (an error, the connection closed,
/// a timeout) or cancelled — each path clears ``job`` before it reports.
final class UpstreamHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let upstream: UpstreamConnections
    private let pool: UpstreamPool
    private var context: ChannelHandlerContext?
    private var job: UpstreamJob?
    /// Whether the job runs on a connection an earlier exchange used (a closed one may be retried).
    private var reused = false
    /// Whether any of the answer has arrived.
    private var answered = false
    /// Whether the whole request has been written.
    private var requestSent = false
    /// Whether the answer lets the connection carry another exchange.
    private var keepAlive = true
    /// When the upstream last sent something (or the client took a piece).
    private var lastActivity = NIODeadline.now()
    private var timer: Scheduled<Void>?
    /// The body piece the client has not taken yet (its number), and whether a read waits for it.
    private var awaitedPiece: Int?
    private var pieceCount = 0
    private var readPending = false
    /// When the connection went back to the pool (the pool's sweep closes one idle too long).
    private(set) var idleSince = NIODeadline.now()

    init(upstream: UpstreamConnections, pool: UpstreamPool) {
        self.upstream = upstream
        self.pool = pool
    }

    /// Whether the connection is still open.
    var isOpen: Bool { context?.channel.isActive ?? false }

    /// Closes the connection if it is idle (the pool's sweep).
    func closeIfIdle() {
        if job == nil { context?.close(promise: nil) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        pool.value.opened(self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pool.value.closed(self)
        self.context = nil
    }

    // MARK: running a job

    /// Sends `job`'s request on this connection.
    func run(_ job: UpstreamJob, reused: Bool) {
        answered = false
        guard let context, context.channel.isActive else {
            // Closed between connecting and now: a new connection, or the failure.
            return lost(job, UpstreamFailure.lost, reused: reused)
        }
        guard !job.isCancelled else { return done(reusable: true) }
        self.job = job
        job.handler = self
        self.reused = reused
        requestSent = false
        keepAlive = true
        awaitedPiece = nil
        lastActivity = .now()
        armTimer()
        context.write(wrapOutboundOut(.head(job.head)), promise: nil)
        send(job, from: 0, context: context)
    }

    /// The body from `offset` on, in 64 KiB slices, each written when the one before is (a large
    /// upload is held once, by the request), then the end.
    private func send(_ job: UpstreamJob, from offset: Int, context: ChannelHandlerContext) {
        let slice = 65_536
        if let body = job.body, offset < body.count {
            let start = body.startIndex + offset
            let piece = context.channel.allocator.buffer(bytes: body[start..<min(start + slice, body.endIndex)])
            if offset + slice < body.count {
                let written = context.eventLoop.makePromise(of: Void.self)
                let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
                written.futureResult.whenSuccess {
                    let handler = bound.value
                    guard handler.job === job, let context = handler.context else { return }
                    handler.send(job, from: offset + slice, context: context)
                }
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(piece))), promise: written)
                return
            }
            context.write(wrapOutboundOut(.body(.byteBuffer(piece))), promise: nil)
        }
        let sent = context.eventLoop.makePromise(of: Void.self)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        sent.futureResult.whenSuccess {
            if bound.value.job === job { bound.value.requestSent = true }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: sent)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let job else {
            // Bytes on an idle connection belong to no request: it cannot be trusted with one.
            context.close(promise: nil)
            return
        }
        lastActivity = .now()
        answered = true
        switch unwrapInboundIn(data) {
        case let .head(head):
            // After a 101 the connection speaks another protocol (NIO's parser stops): never pooled.
            keepAlive = head.isKeepAlive && head.status != .switchingProtocols
            job.exchange.received(head: Int(head.status.code), reason: head.status.reasonPhrase, headers: head.headers)
        case let .body(buffer):
            guard job.exchange.progress != nil else {
                return job.exchange.received(body: buffer, taken: {})
            }
            pieceCount += 1
            let number = pieceCount
            awaitedPiece = number
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            job.exchange.received(body: buffer, taken: {
                if loop.inEventLoop {
                    bound.value.taken(number)
                } else {
                    loop.execute { bound.value.taken(number) }
                }
            })
        case .end:
            let reusable = keepAlive && requestSent
            done(reusable: reusable)
            job.exchange.finished()
        }
    }

    /// The client took body piece `number`: reading from the upstream goes on.
    private func taken(_ number: Int) {
        guard awaitedPiece == number else { return }
        awaitedPiece = nil
        lastActivity = .now()
        if readPending, let context {
            readPending = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if awaitedPiece != nil {
            readPending = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS peer that closes without close_notify (common, and how a body that runs to the
        // end of the connection ends): the close decides, as for plain TCP.
        if let tls = error as? NIOSSLError, case .uncleanShutdown = tls { return }
        if let job { lost(job, error, reused: reused) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pool.value.closed(self)
        if let job { lost(job, UpstreamFailure.lost, reused: reused) }
        timer?.cancel()
        context.fireChannelInactive()
    }

    /// Ends the job with `failure` and closes the connection (a cancel, shutdown, or timeout).
    func abort(_ failure: any Error) {
        if let job {
            finishJob()
            job.exchange.fail(failure)
        }
        context?.close(promise: nil)
    }

    /// The connection failed under `job`: a request that went out on a reused connection and got
    /// nothing back is sent once more on a new one (the upstream had closed it while idle);
    /// anything else is the job's failure.
    private func lost(_ job: UpstreamJob, _ error: any Error, reused: Bool) {
        if self.job === job { finishJob() }
        if reused, !answered, job.mayRetry, !job.isCancelled, !upstream.isShutDown {
            job.mayRetry = false
            upstream.connect(job, pool: pool)
        } else {
            job.exchange.fail(error)
        }
    }

    /// The job is over: back to the pool when the connection can carry another, else closed.
    private func done(reusable: Bool) {
        finishJob()
        guard let context else { return }
        if reusable, context.channel.isActive, !upstream.isShutDown, pool.value.park(self) {
            if readPending {
                readPending = false
                context.read()
            }
            idleSince = .now()
        } else {
            context.close(promise: nil)
        }
    }

    private func finishJob() {
        job?.handler = nil
        job = nil
        timer?.cancel()
        timer = nil
        awaitedPiece = nil
    }

    // MARK: the timer

    /// One timer per exchange, due at the read timeout after the last activity or at the job's
    /// deadline, whichever is first; it re-arms itself while the exchange makes progress.
    private func armTimer() {
        timer?.cancel()
        guard let context, let job else { return }
        var due = lastActivity + .nanoseconds(upstream.readTimeout.wholeNanoseconds)
        if let deadline = job.deadline, deadline < due { due = deadline }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: due) { bound.value.timerFired(for: job) }
    }

    private func timerFired(for job: UpstreamJob) {
        guard self.job === job else { return }
        let now = NIODeadline.now()
        if let deadline = job.deadline, now >= deadline {
            return abort(UpstreamFailure.deadline)
        }
        if awaitedPiece != nil {
            // The client has not taken the last piece: its pause, not the upstream's.
            lastActivity = now
        } else if now >= lastActivity + .nanoseconds(upstream.readTimeout.wholeNanoseconds) {
            return abort(UpstreamFailure.timedOut)
        }
        armTimer()
    }
}
