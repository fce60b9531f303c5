import Foundation
import TapedeckHTTP
import Synchronization
import TapedeckScheduling

// Live exchanges: a request forwarded to the live network, kept (journalled) and answered.

extension CassetteRecorder {
    /// A deferred reply that forwards `request` live, lets `keep` see the result (it calls its
    /// second argument once it is done with it: journalled — with a failure to answer instead of
    /// the live answer, when it could not be kept), then answers. A request the client cancelled
    /// is not answered; it is kept as a cancellation when ``Options/keepsCancelled`` (or as the
    /// answer, when that came first).
    func live(
        _ request: RequestSnapshot, label: String,
        keep: @escaping @Sendable (LiveForwarder.Result, @escaping @Sendable (TransportFailure?) -> Void) -> Void
    ) -> Reply {
        let forwarder = liveForwarder()
        // The live request's whole allowance, plus a margin: the simulation never gives up first.
        let patience = options.live.resourceTimeout + .seconds(10)
        // Traces and timeout reports show the request with its secrets redacted.
        let shown = "\(label) \(request.method.rawValue) \(options.redactor.redact(request.url).absoluteString)"
        // The client of a live exchange may be told its head and body as they arrive (a proxy
        // streams them on); what is kept and delivered is still the whole exchange.
        return .deferred(DeferredReply(label: shown, patience: patience) { [self] progress, deliver in
            let cancelled = Mutex(false)
            state.withLock { $0.inFlight += 1 }
            let cancelTask = forwarder.forward(request, progress: progress) { [self] result in
                // Kept (journalled) before the simulation hears of it, counted done before that too.
                let wanted = !cancelled.withLock { $0 }
                let answer: @Sendable (TransportFailure?) -> Void = { [self] unkept in
                    state.withLock { $0.inFlight -= 1 }
                    if wanted { deliver(unkept.map { .failure($0) } ?? result.reply) }
                }
                if wanted {
                    keep(result, answer)
                } else if options.keepsCancelled {
                    keep(result.cancelledByClient, answer)
                } else {
                    answer(nil)
                }
            }
            return {
                cancelled.withLock { $0 = true }
                cancelTask()
            }
        })
    }

    func liveForwarder() -> any LiveTransport {
        forwarder.withLock { forwarder in
            if let forwarder { return forwarder }
            let made = options.transport ?? LiveForwarder(options: options.live)
            forwarder = made
            return made
        }
    }
}
