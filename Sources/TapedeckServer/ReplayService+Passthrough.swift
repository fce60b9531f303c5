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
    /// goes at once, as it came. Streamed, a `Location` naming the passthrough upstream (or a
    /// recorded origin) points back here, as `record` points its upstream's (`served`: the host
    /// the client used), so a redirect chain partly in the cassette keeps coming here and its
    /// recorded hops replay.
    func passThrough(_ outgoing: RequestSnapshot, stream: AnswerStream?, served: String?, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        guard let forwarder, case let .passthrough(upstream) = options.onMiss else { return answer(.text(502, "tapedeck: no passthrough upstream\n")) }
        let origin = Self.origin(of: upstream) ?? upstream.absoluteString
        let aliases = Self.loopbackAliases(of: origin) + origins.filter { $0 != origin }
        guard let stream else {
            forwarder.forward(outgoing) { live in answer(Self.liveAnswer(live)) }
            return
        }
        let relay = AnswerRelay(stream) { head, reason in
            var plan = ResponsePlan(head: head)
            plan.reasonPhrase = reason
            return Self.answer(plan, timing: .instant, origin: origin, aliases: aliases, served: served)
        }
        let cancel = forwarder.forward(outgoing, progress: relay.progress, completion: { live in
            let whole: Bool
            if case let .response(response) = live.outcome { whole = response.interruption == nil } else { whole = false }
            if !relay.end(completed: whole) { answer(Self.liveAnswer(live)) }
        })
        stream.whenClientGone { cancel() }
    }
}
