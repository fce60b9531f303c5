/// What a run of the simulation did.
public struct RunSummary: Hashable, Sendable, CustomStringConvertible {
    /// Jobs executed during this run.
    public let jobs: Int
    /// Virtual time when the run started.
    public let start: VirtualInstant
    /// Virtual time when it stopped.
    public let end: VirtualInstant

    /// A summary of `jobs` jobs run from `start` to `end` (for drivers that combine several runs).
    public init(jobs: Int, start: VirtualInstant, end: VirtualInstant) {
        self.jobs = jobs
        self.start = start
        self.end = end
    }

    /// `N jobs from t=… to t=…`.
    public var description: String { "\(jobs) jobs from t=\(start) to t=\(end)" }
}

extension SimulatedScheduler {
    /// Runs until nothing is left: ready jobs, expected external callbacks, timers (moving virtual
    /// time from deadline to deadline). Throws ``SimulationError/stalled(_:)`` when it ends while
    /// work registered with ``beginPending(_:)`` is still unresolved.
    @discardableResult
    public func runUntilIdle(maxSteps: Int = 50_000_000) throws -> RunSummary {
        try drive(limit: .max, maxSteps: maxSteps, reportsStall: true)
    }

    /// Runs everything due within `duration` of now, in order, then sets the clock to now + duration.
    @discardableResult
    public func advance(by duration: Duration, maxSteps: Int = 50_000_000) throws -> RunSummary {
        try run(until: now.advanced(by: duration), maxSteps: maxSteps)
    }

    /// Runs everything due at or before `instant`, in order, then sets the clock to `instant`
    /// (if it is later than now).
    @discardableResult
    public func run(until instant: VirtualInstant, maxSteps: Int = 50_000_000) throws -> RunSummary {
        try drive(limit: instant.nanoseconds, maxSteps: maxSteps, reportsStall: false)
    }

    /// Runs what can run without moving the clock.
    @discardableResult
    public func runReady(maxSteps: Int = 50_000_000) throws -> RunSummary {
        try drive(limit: nil, maxSteps: maxSteps, reportsStall: false)
    }

    /// The scheduling loop. `limit` nil means "do not move time".
    private func drive(limit: Int64?, maxSteps: Int, reportsStall: Bool) throws -> RunSummary {
        beginDriving()
        defer { endDriving() }
        let startJobs = executedSteps
        let start = nowNanos
        let timeLimit = limit ?? nowNanos
        var budget = maxSteps
        while true {
            if let root = chooseRoot() {
                guard budget > 0 else {
                    throw SimulationError.stepLimitExceeded(steps: maxSteps, time: VirtualInstant(nanoseconds: nowNanos))
                }
                budget -= 1
                runNext(from: root)
                continue
            }
            // Quiescent at this instant: let observers look (they may expect or submit work), then
            // take in what other threads delivered, in ledger order.
            if !quiescenceHooks.isEmpty {
                for hook in quiescenceHooks { hook() }
                if !readyRoots.isEmpty { continue }
            }
            if try integrateExternal() { continue }
            if advanceToNextTimer(limit: timeLimit) { continue }
            break
        }
        if timeLimit != .max && timeLimit > nowNanos { setNow(timeLimit) }
        if reportsStall, let report = stallReport() {
            throw SimulationError.stalled(report)
        }
        return RunSummary(
            jobs: executedSteps - startJobs, start: VirtualInstant(nanoseconds: start),
            end: VirtualInstant(nanoseconds: nowNanos))
    }

    /// Registers `hook` to run on the driving thread whenever nothing is ready at the current
    /// instant, before expected external callbacks are taken in and before time moves. The point is
    /// deterministic, so a hook may register expectations (``expectExternal(_:patience:)``) or submit work;
    /// the URLProtocol bridge uses one to notice tasks its client cancelled or suspended.
    public func addQuiescenceHook(_ hook: @escaping () -> Void) {
        asOwner { quiescenceHooks.append(hook) }
    }

    /// Runs `body` as the owner of the simulation: directly on the driving thread, otherwise once
    /// the simulation is free (or, while another thread drives, at its next quiescent point). Code
    /// that configures simulated components from a test's own thread uses this.
    public func withExclusiveAccess<R>(_ body: () throws -> R) rethrows -> R {
        try asOwner(body)
    }

    /// Moves the clock to the earliest live timer within `limit` and makes every timer due at
    /// that instant ready, in (deadline, sequence) order. Cancelled timers are dropped on the way.
    private func advanceToNextTimer(limit: Int64) -> Bool {
        while let first = timers.min, first.job.isCancelled {
            jobDone(timers.removeMin().job.queue)
        }
        guard let first = timers.min, first.deadline <= limit else { return false }
        setNow(first.deadline)
        while let next = timers.min, next.deadline == first.deadline {
            let entry = timers.removeMin()
            if entry.job.isCancelled { jobDone(entry.job.queue) } else { makeReady(entry.job) }
        }
        return true
    }

    func setNow(_ nanos: Int64) {
        precondition(nanos >= nowNanos, "tapedeck: virtual time cannot go backwards")
        nowNanos = nanos
        publishedNow.store(nanos, ordering: .relaxed)
    }
}
