import Foundation

/// A callback the simulation expects from another thread (for example URLSession's), registered
/// before the action that causes it.
///
/// The scheduler numbers expectations in the order they are registered. When it has nothing left
/// to run at the current instant, it waits (bounded, in real time) until every outstanding
/// expectation has arrived, then takes the arrivals in *number* order, never in arrival order, so
/// thread timing cannot change what the simulation does next.
///
/// ```swift
/// let ticket = scheduler.expectExternal("startLoading #3")
/// task.resume()                          // causes the callback on a URLSession thread, which calls:
/// ticket.arrive(on: networkQueue) { network.start(exchange: 3) }
/// ```
public final class ExternalExpectation: Sendable, CustomStringConvertible {
    /// The expectation's number: arrivals are taken in this order.
    public let number: UInt64
    /// What is expected (shown in traces and timeout reports).
    public let label: String
    let scheduler: SimulatedScheduler

    init(number: UInt64, label: String, scheduler: SimulatedScheduler) {
        self.number = number
        self.label = label
        self.scheduler = scheduler
    }

    /// Reports the callback (from any thread). `work`, if given, is enqueued on `queue` when the
    /// scheduler takes the arrival in, in expectation order.
    public func arrive(on queue: SimulatedQueue? = nil, named name: String = "", _ work: (@Sendable () -> Void)? = nil) {
        precondition(work == nil || queue != nil, "tapedeck: an arrival with work needs a queue to run it on")
        precondition(queue.map { $0.scheduler === scheduler } ?? true, "tapedeck: \(self) arrived on a queue of another scheduler")
        scheduler.arrive(self, arrival: Arrival(label: label, queue: queue, name: name, work: work))
    }

    /// Withdraws the expectation: the callback will not come after all.
    public func cancel() {
        scheduler.withdraw(self)
    }

    /// `#number label`.
    public var description: String { "#\(number) \(label)" }
}

struct Arrival {
    let label: String
    let queue: SimulatedQueue?
    let name: String
    let work: (@Sendable () -> Void)?
}

extension SimulatedScheduler {
    /// Registers a callback that another thread will deliver. Call it from simulated code (a job),
    /// strictly before the action that causes the callback, so the numbering is deterministic.
    /// `patience` raises the real-time bound above the scheduler's `externalWaitLimit` (a live
    /// network call while recording may take a while): while this expectation is outstanding,
    /// a wait for arrivals lasts up to the longest patience among those outstanding.
    public func expectExternal(_ label: String, patience: Duration? = nil) -> ExternalExpectation {
        condition.lock()
        let number = nextTicket
        nextTicket += 1
        outstanding[number] = label
        // Kept whatever its length: an expectation with a patience is live work (the wait limit
        // below takes the longest of them and the scheduler's own).
        if let patience { self.patience[number] = patience }
        if !isOwnerThread && ownerIsDriving {
            externalDiagnostics.append("expectation #\(number) \(label) was registered from another thread while the simulation ran: its number depends on thread timing")
        }
        condition.unlock()
        if isOwnerThread { record("expect", "#\(number) \(label)") }
        return ExternalExpectation(number: number, label: label, scheduler: self)
    }

    /// Sets what the scheduler asks, on its owner thread, while it waits with only live calls
    /// outstanding: a harness admits the requests its clients started on their own threads
    /// meanwhile (returning whether it admitted any), so that their live calls start too. Wake the
    /// wait with ``wakeExternalWait()`` when there may be something to admit.
    ///
    /// ```swift
    /// scheduler.whileAwaitingLiveCalls { harness.admitForeignRequests() }
    /// ```
    public func whileAwaitingLiveCalls(_ hook: (@Sendable () -> Bool)?) {
        condition.lock()
        liveWaitHook = hook
        condition.unlock()
    }

    /// Wakes a wait for external callbacks, so it looks again at what it may take in (a request
    /// a client started on its own thread). Any thread.
    public func wakeExternalWait() {
        condition.lock()
        wakeCount &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// With only live calls outstanding (and a ``whileAwaitingLiveCalls(_:)`` hook): the arrivals
    /// that may go in now, in expectation order — every one but a live call's answer that an
    /// earlier live call is still missing for (live answers go in in the order they were
    /// expected). The starts of requests admitted meanwhile, and the other callbacks, do not wait
    /// for later live calls. Call with `condition` held.
    func takenBeforeLiveCalls() -> [(key: UInt64, value: Arrival)] {
        guard let firstMissing = outstanding.keys.min() else { return arrivals.sorted { $0.key < $1.key } }
        return arrivals.filter { $0.key < firstMissing || !liveArrived.contains($0.key) }.sorted { $0.key < $1.key }
    }

    /// Number of expectations registered and not yet arrived or withdrawn.
    public var outstandingExpectationCount: Int {
        condition.lock(); defer { condition.unlock() }
        return outstanding.count
    }

    func arrive(_ expectation: ExternalExpectation, arrival: Arrival) {
        condition.lock()
        defer { condition.unlock() }
        let wasLive = patience.removeValue(forKey: expectation.number) != nil
        if ended.load(ordering: .relaxed) {
            // Nothing will take it in (see end()); keeping it would keep what its work holds.
            outstanding[expectation.number] = nil
            condition.broadcast()
            return
        }
        guard outstanding.removeValue(forKey: expectation.number) != nil else {
            let state = arrivals[expectation.number] == nil ? "withdrawn or unknown" : "already arrived"
            externalDiagnostics.append("arrival for \(expectation) ignored: \(state)")
            return
        }
        if wasLive { liveArrived.insert(expectation.number) }
        arrivals[expectation.number] = arrival
        condition.broadcast()
    }

    func withdraw(_ expectation: ExternalExpectation) {
        condition.lock()
        defer { condition.unlock() }
        patience[expectation.number] = nil
        if outstanding.removeValue(forKey: expectation.number) != nil {
            condition.broadcast()
        }
    }

    /// Called by the driver when nothing is ready at the current instant. Waits until no expected
    /// callback is missing, then enqueues arrivals in expectation order, then untracked submissions.
    /// With a ``whileAwaitingLiveCalls(_:)`` hook (a harness serving clients on their own
    /// threads), while only live calls are missing (a recording's network calls, expected with a
    /// patience), the requests the clients started meanwhile are admitted, and what has arrived
    /// goes in without waiting for the missing live calls — but live answers still go in in the
    /// order they were expected. So live calls overlap as the clients' requests do. (Virtual time
    /// still stands still until no live call is missing, so an answer due later on the virtual
    /// clock waits for them.) Without the hook, or with no live call missing, nothing changes.
    /// Returns false when there was nothing to take in.
    func integrateExternal() throws -> Bool {
        condition.lock()
        if outstanding.isEmpty && arrivals.isEmpty && inbox.isEmpty && ownershipRequests.isEmpty {
            condition.unlock()
            return false
        }
        // The one place the simulated path touches real time: a bounded wait that never decides order.
        let limit = patience.values.max().map { max($0, externalWaitLimit) } ?? externalWaitLimit
        let giveUp = Date(timeIntervalSinceNow: limit.timeInterval)
        while true {
            if serveOwnershipRequestsLocked() { continue }
            if outstanding.isEmpty { break }
            if let hook = liveWaitHook, outstanding.keys.allSatisfy({ patience[$0] != nil }) {
                // Only live calls are missing: let the harness admit requests its clients started
                // meanwhile. Their starts become expectations (numbered after the live calls) that
                // may go in ahead of them, so their own live calls overlap the missing ones.
                let wakes = wakeCount
                condition.unlock()
                let admitted = hook()
                condition.lock()
                // A wake, an ownership request or an arrival that came while the hook ran: look again.
                if admitted || wakeCount != wakes || !ownershipRequests.isEmpty { continue }
                if !takenBeforeLiveCalls().isEmpty { break }
            }
            if !condition.wait(until: giveUp) && !outstanding.isEmpty && ownershipRequests.isEmpty {
                let missing = outstanding.keys.sorted().map { ExternalTimeoutReport.Item(number: $0, label: outstanding[$0]!) }
                condition.unlock()
                throw SimulationError.externalWorkTimedOut(ExternalTimeoutReport(
                    time: VirtualInstant(nanoseconds: nowNanos), waited: limit, missing: missing))
            }
        }
        externalRounds += 1
        let arrived: [(key: UInt64, value: Arrival)]
        if outstanding.isEmpty {
            arrived = arrivals.sorted { $0.key < $1.key }
            arrivals.removeAll(keepingCapacity: true)
        } else {
            arrived = takenBeforeLiveCalls()
            for (number, _) in arrived { arrivals[number] = nil }
        }
        for (number, _) in arrived { liveArrived.remove(number) }
        // Untracked submissions go in only once nothing is missing, as before.
        let untracked = outstanding.isEmpty ? inbox : []
        if outstanding.isEmpty { inbox.removeAll(keepingCapacity: true) }
        condition.unlock()
        for (number, arrival) in arrived {
            record("arrive", "#\(number) \(arrival.label)")
            if let work = arrival.work, let queue = arrival.queue {
                enqueueOwned(queue, deadline: nil, name: arrival.name, handle: nil, work)
            }
        }
        for item in untracked {
            apply(item)
        }
        return true
    }
}
