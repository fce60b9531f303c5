import Foundation
import NIOCore
import NIOHTTP1

/// How a streamed answer (``AnswerStream``: `tapedeck record` passing an upstream's answer on)
/// reaches the socket: the head at once, and the producer paced by the client's reading. The
/// client must not have the answer whole before it is journalled: a body of known length goes
/// out each piece as the next arrives (the last held back until the stream ends); a chunked body
/// — every stream of events is one — goes out each piece as it arrives, since its end is the last
/// chunk, written only when the stream ends. An event is not held back until the next one.
extension ConnectionHandler {
    /// One event of a streamed answer (see ``AnswerStream``), on the connection's loop.
    func stream(_ event: AnswerStream.Event, _ context: ChannelHandlerContext, isHead: Bool) {
        switch (event, state) {
        case let (.head(streamed), .answering(keepAlive)):
            // An interim status cannot end the exchange (see write).
            let answer = streamed.status < 200 ? ServerAnswer.text(502, "") : streamed
            let close = answer.close || !keepAlive || closeAfterAnswer
            let head = Self.streamedHead(answer, close: close, isHead: isHead)
            let chunked = !head.headers.contains(name: "Content-Length") && !Self.isBodyless(answer.status)
            state = .streaming(close: close, held: nil, chunked: chunked)
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        case let (.body(piece, taken), .streaming(close, held, chunked)):
            if isHead { taken?(); return }
            let out: Data
            if chunked {
                out = piece
            } else {
                state = .streaming(close: close, held: piece, chunked: false)
                guard let held, !held.isEmpty else {
                    taken?()   // held back in memory, one piece: taken
                    return
                }
                out = held
            }
            guard !out.isEmpty else {
                taken?()
                return
            }
            // The piece goes out (of a known length: the one before); the new one counts as taken
            // once that write is done, so the producer waits while the client is slow to read.
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
    private static func streamedHead(_ answer: ServerAnswer, close: Bool, isHead: Bool) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        for field in answer.headers where !hopByHop.contains(field.name.lowercased()) {
            if isBodyless(answer.status), field.name.equalsIgnoringASCIICase("Content-Length") { continue }
            headers.add(name: field.name, value: field.value)
        }
        if close { headers.add(name: "Connection", value: "close") }
        return HTTPResponseHead(version: .http1_1, status: status(answer), headers: headers)
    }
}
