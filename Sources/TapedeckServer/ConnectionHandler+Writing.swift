import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCassettes

// Writing an answer: the head after its delay, the body at once, in recorded pieces or at a
// bandwidth, then the cut a fault asks for (reset, truncation) or the end of the exchange.
extension ConnectionHandler {
    func write(_ context: ChannelHandlerContext, _ answer: ServerAnswer, isHead: Bool, whenDone: @escaping (ConnectionHandler) -> Void) {
        guard case let .answering(keepAlive) = state else {
            whenDone(self)
            return
        }
        let delivery = answer.delivery
        if answer.status < 200 {
            // An interim status cannot end an exchange (NIO refuses to end one): say so instead.
            return write(context, .text(502, "tapedeck: the answer's status \(answer.status) is an interim one (1xx), which no request ends with\n"),
                         isHead: isHead, whenDone: whenDone)
        }
        if delivery.stall {
            stalled = true
            whenDone(self)
            counters.written(currentRequest)   // nothing will be written
            if inputHasEnded {
                // The client already closed its side: nobody is waiting for the stall to end.
                state = .closed
                context.close(promise: nil)
            }
            return   // the connection stays open, unanswered, until the client gives up
        }
        if delivery.cut == .beforeResponse {
            state = .closed
            whenDone(self)
            abort(context.channel)
            return
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        after(delivery.headDelay, context) {
            let (handler, context) = bound.value
            guard case .answering = handler.state else { return whenDone(handler) }
            // (An answer that breaks off ends its connection: no keep-alive is promised for it.)
            var brokenOff = false
            if case .brokenOff = delivery.cut { brokenOff = true }
            let close = answer.close || !keepAlive || handler.closeAfterAnswer || brokenOff
            var head = Self.head(answer, close: close, isHead: isHead, chunked: handler.chunkedAllowed)
            if !close, let hint = handler.keepAliveHint { head.headers.add(name: "Keep-Alive", value: hint) }
            context.writeAndFlush(handler.wrapOutboundOut(.head(head)), promise: nil)
            // No body, nothing to pace: a HEAD answered from a streamed GET does not hold its
            // connection for the GET's recorded receive time.
            let bodyless = isHead || Self.isBodyless(answer.status)
            handler.after(bodyless ? .zero : delivery.bodyDelay, context) {
                let (handler, context) = bound.value
                var body = bodyless ? Data() : answer.body
                var cut = delivery.cut
                if case let .truncate(bytes) = cut, bytes >= body.count { cut = nil }
                if case let .reset(bytes) = cut { body = body.prefix(bytes) }
                if case let .brokenOff(bytes) = cut { body = body.prefix(bytes) }
                if case let .truncate(bytes) = cut { body = body.prefix(bytes) }
                let pieces = delivery.bytesPerSecond == nil && !bodyless ? delivery.pieces : nil
                handler.sendBody(context, body[...], rate: delivery.bytesPerSecond, pieces: pieces.map { $0[...] }, sentAt: .zero) {
                    let (handler, context) = bound.value
                    whenDone(handler)
                    switch cut {
                    case .reset:
                        handler.state = .closed
                        abort(context.channel)
                    case .brokenOff:
                        handler.state = .closed
                        handler.after(delivery.cutDelay, context) {
                            let (handler, context) = bound.value
                            handler.breakOff(context)
                        }
                    case .truncate:
                        handler.state = .closed
                        context.close(promise: nil)
                    case .beforeResponse, nil:
                        handler.finish(context, close: close || handler.closeAfterAnswer)
                    }
                }
            }
        }
    }

    /// Ends an answer that broke off when recorded: once every byte written has been handed to
    /// the kernel (NIO's output close waits for them), the output closes and the kernel sends FIN
    /// after what it still holds, however slowly the client reads; the client meets the end
    /// short of the length its head announced (or of the chunks' end) and closes. One that never
    /// closes is reset after ``brokenOffGrace``.
    func breakOff(_ context: ChannelHandlerContext) {
        let channel = context.channel
        context.flush()
        let closed = context.eventLoop.makePromise(of: Void.self)
        channel.close(mode: .output, promise: closed)
        let (counters, number) = (counters, currentRequest)
        closed.futureResult.whenComplete { _ in
            counters.written(number)
            channel.eventLoop.scheduleTask(in: Self.brokenOffGrace) { if channel.isActive { abort(channel) } }
        }
    }

    /// How long a client may take to read what an answer that broke off sent, and close: a reset
    /// earlier would throw away what the kernel still holds for a slow reader (2 MB at 100 KB/s
    /// take 20 s).
    static let brokenOffGrace = TimeAmount.minutes(5)

    /// Ends the answer (closing the connection after it when `close`); once its last bytes are
    /// with the kernel it leaves the server's list of answers not yet written (a stop waits for
    /// them). (The number is taken first: the end's write may hand the next pipelined request on.)
    func finish(_ context: ChannelHandlerContext, close: Bool) {
        let channel = context.channel
        let (counters, number) = (counters, currentRequest)
        if close {
            state = .closed
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                counters.written(number)
                channel.close(promise: nil)
            }
        } else {
            state = .waitingForHead
            if number != nil {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in counters.written(number) }
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)   // no list kept: nothing to hear
            }
            startHeaderTimer(context)
        }
    }

    /// Writes `body` at `rate` bytes a second (in slices every 50 ms), or in `pieces`, each when its
    /// time from the head comes (`sentAt`: the time of the piece before), or at once; then `done`.
    private func sendBody(_ context: ChannelHandlerContext, _ body: Data.SubSequence, rate: Int?, pieces: ArraySlice<BodyChunk>? = nil,
                          sentAt: Duration = .zero, done: @escaping () -> Void) {
        guard !body.isEmpty else {
            // Pieces left with no bytes (a gzip trailer, decoded to nothing) still end the stream
            // when they were due, not when the last text went. (Pieces left with bytes are of a
            // body a fault cut short: the cut comes now.)
            if rate == nil, let pieces, pieces.allSatisfy({ $0.bytes == 0 }), let last = pieces.last, last.at > sentAt {
                return after(last.at - sentAt, context) { done() }
            }
            return done()
        }
        if var pieces, rate == nil, !pieces.isEmpty {
            // The pieces due now go at once (a loop: a stream replayed instantly may have thousands).
            var body = body
            while let piece = pieces.first, piece.at <= sentAt, !body.isEmpty {
                let slice = pieces.count == 1 ? body : body.prefix(piece.bytes)   // the last takes what is left
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: slice)))), promise: nil)
                body = body.dropFirst(slice.count)
                pieces = pieces.dropFirst()
            }
            context.flush()
            guard let next = pieces.first, !body.isEmpty || pieces.allSatisfy({ $0.bytes == 0 }) else { return done() }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let rest = body, later = pieces
            return after(next.at - sentAt, context) {
                let (handler, context) = bound.value
                guard case .answering = handler.state else { return done() }
                handler.sendBody(context, rest, rate: nil, pieces: later, sentAt: next.at, done: done)
            }
        }
        guard let rate, rate > 0 else {
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            return done()
        }
        let slice = max(1, rate / 20)
        let piece = body.prefix(slice)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: piece)))), promise: nil)
        let rest = body.dropFirst(slice)
        guard !rest.isEmpty else { return done() }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let pause = Duration.nanoseconds(Int64(piece.count) * 1_000_000_000 / Int64(rate))
        after(pause, context) {
            let (handler, context) = bound.value
            guard case .answering = handler.state else { return done() }
            handler.sendBody(context, rest, rate: rate, done: done)
        }
    }

    func after(_ delay: Duration, _ context: ChannelHandlerContext, _ work: @escaping () -> Void) {
        guard delay > .zero else { return work() }
        let bound = NIOLoopBound(work, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(delay.wholeNanoseconds)) { bound.value() }
    }
}
