public import Dispatch

/// A serial queue of a ``LiveScheduler``, backed by a real `DispatchQueue`.
public final class LiveQueue: SchedulerQueue {
    /// The real queue, created with `DispatchQueue(label:target:)`.
    public let dispatchQueue: DispatchQueue
    let parent: LiveQueue?
    let scheduler: LiveScheduler
    /// Identities from this queue up its chain, plus the supplied queue a wrapper targets.
    let chain: QueueChain

    init(dispatchQueue: DispatchQueue, parent: LiveQueue?, scheduler: LiveScheduler) {
        self.dispatchQueue = dispatchQueue
        self.parent = parent
        self.scheduler = scheduler
        let parentChain = parent?.chain
        let me = ObjectIdentifier(dispatchQueue)
        self.chain = QueueChain(
            ids: [me] + (parentChain?.ids ?? []),
            labels: [dispatchQueue.label] + (parentChain?.labels ?? []),
            // A wrapper of a caller-supplied queue is its own root: the supplied queue may be
            // concurrent, and two wrappers of a concurrent queue do not exclude each other.
            rootKey: parentChain?.rootKey ?? me)
        // GCD looks a specific up through the target hierarchy, which gives "on requestQueue is
        // on rootQueue" for free, also for work URLSession submits straight to the dispatch queue.
        dispatchQueue.setSpecific(key: QueueChain.key, value: chain)
    }

    /// The dispatch queue's label.
    public var label: String { dispatchQueue.label }

    /// The queue this one targets (nil for a root).
    public var target: (any SchedulerQueue)? { parent }

    /// The live scheduler's monotonic time.
    public var now: VirtualInstant { scheduler.now }

    /// `DispatchQueue.async`; `name` is ignored (live work is not traced).
    public func async(named name: String, _ work: __owned @escaping @Sendable () -> Void) {
        dispatchQueue.async(execute: work)
    }

    /// `DispatchQueue.asyncAfter` at the uptime `deadline` stands for; cancelling the handle before
    /// then skips the work.
    @discardableResult
    public func asyncAfter(
        deadline: VirtualInstant, named name: String, _ work: __owned @escaping @Sendable () -> Void
    ) -> ScheduledWork {
        let handle = ScheduledWork()
        let uptime = scheduler.origin &+ UInt64(max(0, deadline.nanoseconds))
        dispatchQueue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: uptime)) {
            if !handle.isCancelled { work() }
        }
        return handle
    }

    /// `DispatchQueue.sync`, except that a sync from the queue's own hierarchy is reported as a
    /// deadlock (``QueueViolation/Kind/syncDeadlock``) instead of hanging.
    public func sync<T>(file: StaticString, line: UInt, _ work: () throws -> T) rethrows -> T {
        // The caller's own queue is visible through GCD only until we enter the sync; keep it.
        let outer = DispatchQueue.getSpecific(key: QueueChain.key)
        if Self.heldChains().contains(where: { $0.rootKey == chain.rootKey }) {
            scheduler.report(.syncDeadlock, queue: self, file: file, line: line)
            return try Self.withSyncFrames(outer, chain, work)   // recording policy: run inline, as if reentrant
        }
        return try dispatchQueue.sync {
            try Self.withSyncFrames(outer, chain, work)
        }
    }

    /// True on this queue, on a queue targeting it, or inside a `sync` onto one of those.
    public var isCurrent: Bool {
        let me = chain.ids[0]
        return Self.heldChains().contains { $0.ids.contains(me) }
    }

    /// Reports a violation to the scheduler when ``isCurrent`` is not `expected`.
    public func precondition(isCurrent expected: Bool, file: StaticString, line: UInt) {
        if isCurrent == expected { return }
        scheduler.report(expected ? .notOnQueue : .unexpectedlyOnQueue, queue: self, file: file, line: line)
    }

    // MARK: what the calling thread holds

    /// The chain GCD reports for the current queue, then those of enclosing `sync` calls.
    static func heldChains() -> [QueueChain] {
        var chains = SyncFrames.current.chains
        if let current = DispatchQueue.getSpecific(key: QueueChain.key) {
            chains.append(current)
        }
        return chains
    }

    static func runningOnLabels() -> [String] {
        var labels: [String] = []
        for chain in heldChains().reversed() {
            for label in chain.labels where !labels.contains(label) {
                labels.append(label)
            }
        }
        return labels
    }

    private static func withSyncFrames<T>(_ outer: QueueChain?, _ chain: QueueChain, _ work: () throws -> T) rethrows -> T {
        let frames = SyncFrames.current
        frames.chains.append(contentsOf: [outer, chain].compactMap { $0 })
        defer { frames.chains.removeLast(outer == nil ? 1 : 2) }
        return try work()
    }
}

/// Identities of a live queue's target chain, attached to its dispatch queue as a specific.
final class QueueChain: Sendable {
    static let key = DispatchSpecificKey<QueueChain>()

    let ids: [ObjectIdentifier]
    let labels: [String]
    /// Identity of the queue at the top (for a wrapper: the supplied queue); equal keys share a lock.
    let rootKey: ObjectIdentifier

    init(ids: [ObjectIdentifier], labels: [String], rootKey: ObjectIdentifier) {
        self.ids = ids
        self.labels = labels
        self.rootKey = rootKey
    }
}
