/// A serial queue of a ``Scheduler``: FIFO, one work item at a time, optionally targeting another.
public protocol SchedulerQueue: AnyObject, Sendable {
    /// The queue's label (as given to `makeQueue`; traces and violations name queues by it).
    var label: String { get }
    /// The queue this one drains through, if any.
    var target: (any SchedulerQueue)? { get }

    /// The current time of the scheduler this queue belongs to.
    var now: VirtualInstant { get }

    /// Submits work to run asynchronously. `name` appears in simulated traces.
    func async(named name: String, _ work: __owned @escaping @Sendable () -> Void)

    /// Submits work to run no earlier than `deadline`. The returned handle can cancel it.
    @discardableResult
    func asyncAfter(deadline: VirtualInstant, named name: String, _ work: __owned @escaping @Sendable () -> Void) -> ScheduledWork

    /// Runs `work` on this queue and waits for it, with GCD's semantics: it runs after the work
    /// already submitted ahead of it, and calling it from this queue's own hierarchy is a deadlock,
    /// reported as a ``QueueViolation``.
    func sync<T>(file: StaticString, line: UInt, _ work: () throws -> T) rethrows -> T

    /// True when the calling code runs on this queue, on a queue targeting it, or inside a `sync`
    /// onto one of those (GCD's `dispatchPrecondition(condition: .onQueue(_:))` semantics).
    var isCurrent: Bool { get }

    /// Reports a ``QueueViolation`` (trapping or recording, as the scheduler is configured) unless
    /// ``isCurrent`` is `expected`.
    func precondition(isCurrent expected: Bool, file: StaticString, line: UInt)
}

extension SchedulerQueue {
    /// Submits unnamed work to run asynchronously.
    public func async(_ work: __owned @escaping @Sendable () -> Void) {
        async(named: "", work)
    }

    /// Submits unnamed work to run no earlier than `deadline`.
    @discardableResult
    public func asyncAfter(deadline: VirtualInstant, _ work: __owned @escaping @Sendable () -> Void) -> ScheduledWork {
        asyncAfter(deadline: deadline, named: "", work)
    }

    /// Submits work to run once `delay` has passed on this queue's scheduler.
    @discardableResult
    public func asyncAfter(delay: Duration, named name: String = "", _ work: __owned @escaping @Sendable () -> Void) -> ScheduledWork {
        asyncAfter(deadline: now.advanced(by: delay), named: name, work)
    }

    /// Runs `work` on this queue and waits for it (see ``sync(file:line:_:)``), recording the caller's
    /// place for violation reports.
    public func sync<T>(_ work: () throws -> T, file: StaticString = #fileID, line: UInt = #line) rethrows -> T {
        try sync(file: file, line: line, work)
    }

    /// Traps or records unless the caller runs on this queue (see ``isCurrent``).
    public func preconditionCurrent(file: StaticString = #fileID, line: UInt = #line) {
        precondition(isCurrent: true, file: file, line: line)
    }

    /// Traps or records if the caller runs on this queue (see ``isCurrent``).
    public func preconditionNotCurrent(file: StaticString = #fileID, line: UInt = #line) {
        precondition(isCurrent: false, file: file, line: line)
    }

    /// The chain of labels from this queue up to its root, e.g. `["requestQueue", "rootQueue"]`.
    public var targetChain: [String] {
        var labels: [String] = []
        var queue: (any SchedulerQueue)? = self
        while let current = queue {
            labels.append(current.label)
            queue = current.target
        }
        return labels
    }
}
