import Foundation
import NIOCore
import NIOHTTP1

/// How a streamed answer (``AnswerStream``: `tapedeck record` passing an upstream's answer on)
/// reaches the socket: the head at once (unless the answer is already complete: then with its
/// end), and the producer paced by the client's reading. The
/// client must not have the answer whole before it is journalled, so only what would complete it
/// waits for the stream's end: of a body of known length, the piece that brings its last byte; of
/// a chunked body — every stream of events is one — nothing but the last chunk, which ends it.
/// Every other piece goes out as it arrives (an event is never held until the next one comes).
extension ConnectionHandler {
    /// One event of a streamed answer (see ``AnswerStream``), on the connection's loop.
    func stream(_ event: AnswerStream.Event, _ context: ChannelHandlerContext, isHead: Bool) {
        switch (event, state) {
        case let (.head(streamed), .answering(keepAlive)):
            // An interim status cannot end the exchange (see write).
            let answer = streamed.status < 200 ? ServerAnswer.text(502, "") : streamed
            let knownLength = Self.isBodyless(answer.status) || isHead
                || answer.headers.contains { $0.name.equalsIgnoringASCIICase("Content-Length") }
            // An HTTP/1.0 client cannot read chunks: a body of unknown length ends with the connection.
            let untilClose = !chunkedAllowed && !knownLength
            let close = answer.close || !keepAlive || closeAfterAnswer || untilClose
            var head = Self.streamedHead(answer, close: close, isHead: isHead, http10: !chunkedAllowed)
            if untilClose { head.version = .http1_0 }   // NIO then frames the body by the connection's end
            if !close, let hint = keepAliveHint { head.headers.add(name: "Keep-Alive", value: hint) }
            let length = Self.isBodyless(answer.status) ? 0 : head.headers.first(name: "Content-Length").flatMap { Int($0) }
            state = .streaming(close: close, held: nil, remaining: length)
            // Written now, flushed once the events already queued have run: an answer that is
            // complete by then (its whole body held, or none to come) keeps its head until the
            // end, so the client gets it in one piece — and never a complete answer before the
            // journal has it (a `Content-Length: 0` head is a whole answer).
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.execute {
                let (handler, context) = bound.value
                if case let .streaming(_, held, remaining) = handler.state, isHead || remaining == 0 || held != nil { return }
                context.flush()
            }
        case let (.body(piece, taken), .streaming(close, held, remaining)):
            if isHead || piece.isEmpty { taken?(); return }
            var out = piece
            if let remaining {
                if let held, !held.isEmpty {
                    // More than the announced length (the upstream's error ends the exchange):
                    // what was held goes, this piece waits in its place.
                    out = held
                    state = .streaming(close: close, held: piece, remaining: 0)
                } else if piece.count < remaining {
                    state = .streaming(close: close, held: nil, remaining: remaining - piece.count)
                } else {
                    state = .streaming(close: close, held: piece, remaining: 0)
                    taken?()   // the last piece, held in memory until the end: taken
                    return
                }
            }
            // The piece goes out; the producer's next one waits until that write is done, so it
            // is paced by the client's reading.
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: out)))), promise: written)
            releaseTaken()
            pendingTaken = taken
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in bound.value.releaseTaken() }
        case let (.end, .streaming(close, held, _)):
            answerEnded()
            if let held, !held.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: held)))), promise: nil)
            }
            finish(context, close: close || closeAfterAnswer)
        case (.end, _), (.abort, _):
            // Ended before its head (nothing was written), broken off after it, or the connection
            // went away meanwhile (then it was counted done already): nothing more can be said.
            answerEnded()
            if case .closed = state { return }
            state = .closed
            abort(context.channel)
        case let (.body(_, taken), _):
            taken?()   // the connection closed under the stream (or a misuse): nothing to write
        case (.head, _):
            return
        }
    }

    /// The head of a streamed answer: the fields as given, hop-by-hop ones dropped; a
    /// `Content-Length` is kept (none: the body goes chunked), and none at all for bodyless statuses.
    private static func streamedHead(_ answer: ServerAnswer, close: Bool, isHead: Bool, http10: Bool) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        let hopByHop = Self.hopByHopNames(in: answer.headers)
        for field in answer.headers where !hopByHop.contains(field.name.lowercased()) {
            if isBodyless(answer.status), field.name.equalsIgnoringASCIICase("Content-Length") { continue }
            headers.add(name: field.name, value: field.value)
        }
        addConnection(&headers, close: close, http10: http10)
        return HTTPResponseHead(version: .http1_1, status: status(answer), headers: headers)
    }
}
