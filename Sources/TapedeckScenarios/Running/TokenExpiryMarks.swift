import Synchronization
import TapedeckScheduling

/// Writes each `tokenExpiry` fault into the trace at its instant, as a `net.fault` step of the
/// network's queue, so that two runs differing only in when the tokens expire differ in their
/// trace (and trace hash) as every other fault's do. The token server judges tokens by the
/// instant alone; the step is what makes the expiry visible.
///
/// An expiry must never keep the simulation going: one due after everything else has finished
/// is not reached, as the outcome says (a run that ends at 2 s does not wait for an expiry at
/// 1 h). So the step is put on the clock only while other work remains — timers or expected
/// callbacks — checked at every quiescent instant, and taken off again when nothing else does.
final class TokenExpiryMarks: @unchecked Sendable {
    // @unchecked Sendable: `scheduler` and `queue` are the simulation's own (used on its driving
    // thread only); the mutable state is behind a Mutex.

    private let scheduler: SimulatedScheduler
    private let queue: SimulatedQueue
    /// The expiries' instants and site names, in time order (file order at one instant).
    private let expiries: [(at: Duration, site: String)]

    private struct State {
        /// The next expiry not yet written.
        var next = 0
        /// Its job, while it waits on the clock (cancellable) or is ready (`committed`).
        var pending: ScheduledWork?
        var committed = false
        /// The sites written so far, with their instants.
        var written: [(site: String, at: Duration)] = []
    }

    private let state = Mutex(State())

    /// Marks for `sites`' token expiries on `network`'s queue; nil when there are none.
    init?(_ sites: [FaultSite], scheduler: SimulatedScheduler, queue: SimulatedQueue) {
        let expiries = sites.enumerated().compactMap { index, site -> (at: Duration, site: String, index: Int)? in
            if case let .tokenExpiry(at) = site.kind { return (at, site.name, index) }
            return nil
        }
        guard !expiries.isEmpty else { return nil }
        self.expiries = expiries.sorted { ($0.at, $0.index) < ($1.at, $1.index) }.map { ($0.at, $0.site) }
        self.scheduler = scheduler
        self.queue = queue
        // Weakly: the scheduler keeps its hooks, and these marks keep the scheduler.
        scheduler.addQuiescenceHook { [weak self] in self?.review() }
    }

    /// The expiries written into the trace (the run reached their instants), in time order.
    var written: [(site: String, at: Duration)] { state.withLock { $0.written } }

    /// At a quiescent instant: puts the next expiry on the clock when the run will go on anyway
    /// (or it is due now), takes it off when nothing else is left.
    private func review() {
        let (next, pending, committed) = state.withLock { ($0.next, $0.pending, $0.committed) }
        guard next < expiries.count, !committed else { return }
        let due = VirtualInstant.zero.advanced(by: expiries[next].at)
        let othersTimers = scheduler.scheduledTimerCount - (pending == nil ? 0 : 1)
        let goesOn = othersTimers > 0 || scheduler.outstandingExpectationCount > 0
        if let pending {
            if !goesOn {
                pending.cancel()
                state.withLock { $0.pending = nil }
            }
            return
        }
        let isDue = due <= scheduler.now
        guard isDue || goesOn else { return }
        let handle = queue.asyncAfter(deadline: due, named: "scenario.token-expiry") { [self] in write() }
        state.withLock { state in
            state.pending = isDue ? nil : handle
            state.committed = isDue
        }
    }

    /// The expiry's job: the trace step, and on to the next.
    private func write() {
        let expiry = state.withLock { state -> (at: Duration, site: String) in
            let expiry = expiries[state.next]
            state.written.append((expiry.site, expiry.at))
            state.next += 1
            state.pending = nil
            state.committed = false
            return expiry
        }
        scheduler.record("net.fault", "token server: tokenExpiry '\(expiry.site)': every token issued before now expires")
    }
}
