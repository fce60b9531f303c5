/// Runs work on serial queues with GCD's semantics, either for real or in a simulation.
///
/// Client code is written against this protocol and ``SchedulerQueue``; it cannot tell which
/// implementation it runs on except by how time passes:
/// - ``LiveScheduler``: real `DispatchQueue`s created with `label:target:`, deadlines on `DispatchTime`.
/// - ``SimulatedScheduler``: one thread, virtual time, every decision reproducible from a seed.
///
/// ```swift
/// func makeSessionQueues(on scheduler: any Scheduler) -> (root: any SchedulerQueue, request: any SchedulerQueue) {
///     let root = scheduler.makeQueue(label: "org.example.session.rootQueue", target: nil)
///     let request = scheduler.makeQueue(label: "org.example.session.requestQueue", target: root)
///     return (root, request)
/// }
/// ```
public protocol Scheduler<Queue>: AnyObject, Sendable {
    /// The kind of queue this scheduler makes (``LiveQueue`` or ``SimulatedQueue``). A transport
    /// that needs a particular kind names it in its type (see `URLSessionProvider` in TapedeckHTTP),
    /// so a mismatch is a compile error rather than a runtime check.
    associatedtype Queue: SchedulerQueue

    /// The scheduler's current time (virtual for a simulation, monotonic for the live scheduler).
    var now: VirtualInstant { get }

    /// A new serial queue. With a target, its work drains through the target (and the target's
    /// target, up to a root), so code running on it is also "on" every queue of that chain.
    func makeQueue(label: String, target: (any SchedulerQueue)?) -> Queue

    /// Adds a client event to the trace of the job running now (the live scheduler ignores it).
    func record(_ event: String, _ payload: String)

    /// Queue-rule violations seen so far (on-queue checks that failed, `sync` calls that deadlock),
    /// when the scheduler records them instead of trapping.
    var violations: [QueueViolation] { get }
}

extension Scheduler {
    /// A serial queue wrapping a caller-supplied root queue, as Alamofire's Session does: same label,
    /// targeting the supplied queue, so it is serial even when the supplied queue's users are not.
    public func makeQueue(wrapping supplied: any SchedulerQueue) -> Queue {
        makeQueue(label: supplied.label, target: supplied)
    }

    /// Adds a client event without a payload to the trace of the job running now.
    public func record(_ event: String) {
        record(event, "")
    }
}
