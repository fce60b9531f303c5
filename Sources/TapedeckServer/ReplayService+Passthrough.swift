import Foundation
import TapedeckCassettes
import TapedeckHTTP

// A miss passed through to the `--on-miss passthrough=URL` upstream, streamed as `record` streams.

extension ReplayService {
    /// Forwards a request the cassette has no answer for to the passthrough upstream and passes
    /// its answer on as it arrives: the head and each body piece at once (an event stream's
    /// events as they come, a large body at the client's pace), the end when the upstream's
    /// answer is complete; one that breaks off after its head resets the client's connection.
    /// A client that goes away stops the upstream exchange. An upstream that fails before its
    /// head is answered `502`; without a stream (a service driven directly) the whole answer
    /// goes at once.
    func passThrough(_ outgoing: RequestSnapshot, stream: AnswerStream?, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        guard let forwarder else { return answer(.text(502, "tapedeck: no passthrough upstream\n")) }
        guard let stream else {
            forwarder.forward(outgoing) { live in answer(Self.liveAnswer(live)) }
            return
        }
        let relay = AnswerRelay(stream) { head, reason in
            var first = ServerAnswer(status: head.status, headers: head.headerFields.map { HeaderField($0.name.rawName, $0.value) })
            first.reasonPhrase = reason
            return first
        }
        let cancel = forwarder.forward(outgoing, progress: relay.progress, completion: { live in
            let whole: Bool
            if case let .response(response) = live.outcome { whole = response.interruption == nil } else { whole = false }
            if !relay.end(completed: whole) { answer(Self.liveAnswer(live)) }
        })
        stream.whenClientGone { cancel() }
    }
}
