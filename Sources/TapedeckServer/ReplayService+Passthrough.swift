import Foundation
import Synchronization
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
        let headSent = Atomic<Bool>(false)
        let cancel = forwarder.forward(outgoing, progress: { progress in
            switch progress {
            case let .head(head, _) where head.status < 200:
                break   // an interim head (`100 Continue` came late, `103`) is not the answer
            case let .head(head, reason):
                headSent.store(true, ordering: .releasing)
                var first = ServerAnswer(status: head.status, headers: head.headerFields.map { HeaderField($0.name.rawName, $0.value) })
                first.reasonPhrase = reason
                stream.head(first)
            case let .body(piece, taken):
                stream.body(piece, taken: taken)
            }
        }, completion: { live in
            guard headSent.load(ordering: .acquiring) else { return answer(Self.liveAnswer(live)) }
            if case let .response(response) = live.outcome, response.interruption == nil { stream.end() } else { stream.abort() }
        })
        stream.whenClientGone { cancel() }
    }
}
