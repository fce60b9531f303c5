/// A serial queue of a ``SimulatedScheduler``.
///
/// Work submitted to any queue of a target tree waits in its root's single FIFO, in enqueue order,
/// so a root runs one item at a time and every queue of the tree stays FIFO (one valid GCD
/// schedule; see docs/scheduling.md). Create queues with ``SimulatedScheduler/makeQueue(label:target:)``.
public final class SimulatedQueue: SchedulerQueue, @unchecked Sendable {
    // @unchecked Sendable: the mutable root state (`ready`, `readyIndex`) is touched only by the
    // scheduler's owner thread (see SimulatedScheduler's ownership rules); the rest is immutable.

    /// The label given at creation.
    public let label: String
    /// A queue keeps its scheduler alive (except the scheduler's own clock queue, which it owns).
    private let owningScheduler: SimulatedScheduler?
    /// The same scheduler, without reference counting (valid while the queue lives).
    unowned(unsafe) let schedulerRef: SimulatedScheduler
    /// The scheduler this queue belongs to.
    public var scheduler: SimulatedScheduler { schedulerRef }
    let parent: SimulatedQueue?
    let labelDigest: UInt64
    /// Creation order within the scheduler (deterministic; used for stable reports).
    let id: Int

    // Owner-confined and never accessed across a job's execution, so no overlapping access can
    // happen; the dynamic exclusivity checks would cost more than the rest of a step.

    /// Root-only: jobs whose deadline has come, in (deadline, sequence) order.
    @exclusivity(unchecked) var ready = JobFIFO()
    /// Root-only: position in the scheduler's ready-root list, or -1.
    @exclusivity(unchecked) var readyIndex = -1
    /// This label's index in the trace's string table, once it has one.
    @exclusivity(unchecked) var traceSlot = StringTable.unassigned
    /// Jobs of this queue not yet run or dropped. While it is above zero the scheduler holds the
    /// queue alive (jobs refer to it without reference counting).
    @exclusivity(unchecked) var pendingJobs = 0
    /// The top of the target chain (itself for a root); set once at creation.
    unowned(unsafe) var root: SimulatedQueue! = nil

    init(label: String, parent: SimulatedQueue?, scheduler: SimulatedScheduler, id: Int, ownedByScheduler: Bool = false) {
        self.label = label
        self.parent = parent
        self.owningScheduler = ownedByScheduler ? nil : scheduler
        self.schedulerRef = scheduler
        self.labelDigest = StableHash.fnv1a(label)
        self.id = id
        self.root = parent?.root ?? self
    }

    /// The queue this one drains through (nil for a root).
    public var target: (any SchedulerQueue)? { parent }

    /// The simulated scheduler's virtual time.
    public var now: VirtualInstant { schedulerRef.now }

    /// Enqueues `work` behind everything already submitted to this queue's root, at the current
    /// instant; `name` labels the job in the trace.
    public func async(named name: String, _ work: __owned @escaping @Sendable () -> Void) {
        schedulerRef.submit(to: self, deadline: nil, name: name, handle: nil, work)
    }

    /// Enqueues `work` for `deadline` on the virtual clock; cancelling the handle before then drops it
    /// without a trace step.
    @discardableResult
    public func asyncAfter(
        deadline: VirtualInstant, named name: String, _ work: __owned @escaping @Sendable () -> Void
    ) -> ScheduledWork {
        let handle = ScheduledWork()
        schedulerRef.submit(to: self, deadline: deadline.nanoseconds, name: name, handle: handle, work)
        return handle
    }

    /// Runs `work` at once on the calling thread as a job of this queue (after the work ahead of it,
    /// as GCD would), or reports a deadlock when the caller already holds this queue's root.
    public func sync<T>(file: StaticString, line: UInt, _ work: () throws -> T) rethrows -> T {
        try schedulerRef.runSync(on: self, file: file, line: line, work)
    }

    /// True inside a job of this queue, of a queue targeting it, or inside a `sync` onto one.
    public var isCurrent: Bool {
        schedulerRef.isCurrent(self)
    }

    /// Reports a violation when ``isCurrent`` is not `expected`.
    public func precondition(isCurrent expected: Bool, file: StaticString, line: UInt) {
        schedulerRef.check(self, isCurrent: expected, file: file, line: line)
    }
}

extension SimulatedQueue: CustomStringConvertible {
    /// `SimulatedQueue(label → target → … → root)`.
    public var description: String { "SimulatedQueue(\(targetChain.joined(separator: " → ")))" }
}
