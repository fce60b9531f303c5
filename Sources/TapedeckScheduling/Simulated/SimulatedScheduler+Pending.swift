/// Work that must eventually be resolved (a response someone awaits, a continuation someone will
/// resume). If a simulation runs dry while it is unresolved, that is a stall, reported by name.
public final class PendingWork: Sendable, CustomStringConvertible {
    let id: UInt64
    /// What the work is (shown in stall reports).
    public let label: String
    let scheduler: SimulatedScheduler

    init(id: UInt64, label: String, scheduler: SimulatedScheduler) {
        self.id = id
        self.label = label
        self.scheduler = scheduler
    }

    /// Marks the work done (idempotent, any thread).
    public func resolve() {
        scheduler.condition.lock()
        scheduler.pending.removeValue(forKey: id)
        scheduler.condition.unlock()
    }

    /// The label.
    public var description: String { label }
}

struct PendingRecord {
    let label: String
    let since: VirtualInstant
}

extension SimulatedScheduler {
    /// Registers work that must be resolved before the simulation can be called idle.
    public func beginPending(_ label: String) -> PendingWork {
        condition.lock()
        defer { condition.unlock() }
        let id = nextPendingID
        nextPendingID += 1
        pending[id] = PendingRecord(label: label, since: now)
        return PendingWork(id: id, label: label, scheduler: self)
    }

    /// Labels of unresolved pending work, in registration order.
    public var pendingLabels: [String] {
        condition.lock()
        defer { condition.unlock() }
        return pending.keys.sorted().map { pending[$0]!.label }
    }

    /// Suspends the calling task until `body`'s continuation is resumed, counting it as pending
    /// meanwhile: if nothing will ever resume it, ``runUntilIdle(maxSteps:)`` reports a stall naming `label`.
    public func withPendingContinuation<T: Sendable>(
        _ label: String, _ body: (PendingContinuation<T>) -> Void
    ) async -> T {
        let work = beginPending(label)
        return await withCheckedContinuation { continuation in
            body(PendingContinuation(continuation: continuation, work: work))
        }
    }

    func stallReport() -> StallReport? {
        condition.lock()
        let items = pending.keys.sorted().map { StallReport.Item(label: pending[$0]!.label, since: pending[$0]!.since) }
        condition.unlock()
        guard !items.isEmpty else { return nil }
        return StallReport(time: VirtualInstant(nanoseconds: nowNanos), pending: items, recentSteps: recorder.lastSteps(8))
    }
}

/// A continuation whose resumption also resolves its ``PendingWork`` (at the moment of resuming,
/// not later when the awaiting task happens to run again).
public struct PendingContinuation<T: Sendable>: Sendable {
    let continuation: CheckedContinuation<T, Never>
    let work: PendingWork

    /// Resolves the pending work, then resumes the awaiting task with `value`.
    public func resume(returning value: T) {
        work.resolve()
        continuation.resume(returning: value)
    }
}
