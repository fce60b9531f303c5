import Synchronization

/// A handle on work submitted with a deadline; cancelling it before it runs means it never runs.
///
/// A cancelled timer is dropped without a trace step and without moving virtual time, so a
/// timeout that was cancelled does not drag a simulation's clock to its far-away deadline.
public final class ScheduledWork: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// A handle for work that has not been cancelled.
    public init() {}

    /// Makes sure the work never runs (no effect once it has started).
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool {
        cancelled.load(ordering: .acquiring)
    }
}
