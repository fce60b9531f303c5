public import Dispatch
import Synchronization

/// The real thing: `DispatchQueue`s created with `label:target:`, deadlines on `DispatchTime`.
///
/// Its ``now`` is monotonic time since the scheduler was created. Queue checks follow GCD:
/// code running on a queue that targets another is on both, and so is code inside a `sync`.
///
/// ```swift
/// let scheduler = LiveScheduler()
/// let root = scheduler.makeQueue(wrapping: DispatchQueue(label: "app.network", attributes: .concurrent))
/// let request = scheduler.makeQueue(label: "\(root.label).requestQueue", target: root)
/// ```
public final class LiveScheduler: Scheduler {
    /// `DispatchTime` uptime at creation; `now` counts from here.
    let origin: UInt64
    /// Whether a broken queue rule traps or is recorded in ``violations``.
    public let violationPolicy: ViolationPolicy
    private let recordedViolations = Mutex<[QueueViolation]>([])

    /// A live scheduler; with `.record`, queue-rule violations are kept instead of trapping.
    public init(violationPolicy: ViolationPolicy = .trap) {
        // Live path: reading the real clock is this scheduler's job.
        self.origin = DispatchTime.now().uptimeNanoseconds
        self.violationPolicy = violationPolicy
    }

    /// Real monotonic time since this scheduler was created.
    public var now: VirtualInstant {
        // Live path: real monotonic time.
        VirtualInstant(nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds &- origin))
    }

    /// A new `LiveQueue` (see ``makeLiveQueue(label:target:)``).
    public func makeQueue(label: String, target: (any SchedulerQueue)?) -> LiveQueue {
        makeLiveQueue(label: label, target: target)
    }

    /// A new serial queue: `DispatchQueue(label:target:)`, targeting `target`'s dispatch queue.
    public func makeLiveQueue(label: String, target: (any SchedulerQueue)?) -> LiveQueue {
        guard let target else {
            return LiveQueue(dispatchQueue: DispatchQueue(label: label), parent: nil, scheduler: self)
        }
        guard let parent = target as? LiveQueue, parent.scheduler === self else {
            fatalError("tapedeck: queue '\(label)' cannot target '\(target.label)': it belongs to another scheduler")
        }
        return LiveQueue(
            dispatchQueue: DispatchQueue(label: label, target: parent.dispatchQueue), parent: parent,
            scheduler: self)
    }

    /// A serial root queue wrapping a caller-supplied `DispatchQueue` (which may be concurrent):
    /// same label, targeting it, exactly as Alamofire's Session treats a supplied root queue.
    public func makeQueue(wrapping supplied: DispatchQueue) -> LiveQueue {
        LiveQueue(
            dispatchQueue: DispatchQueue(label: supplied.label, target: supplied), parent: nil,
            scheduler: self)
    }

    /// Live traces are not kept; events are dropped.
    public func record(_ event: String, _ payload: String) {}

    /// Violations recorded so far (with ``ViolationPolicy/record``).
    public var violations: [QueueViolation] {
        recordedViolations.withLock { $0 }
    }

    func report(_ kind: QueueViolation.Kind, queue: LiveQueue, file: StaticString, line: UInt) {
        let violation = QueueViolation(
            kind: kind, queue: queue.label, runningOn: LiveQueue.runningOnLabels(), time: now,
            file: file.description, line: line)
        switch violationPolicy {
        case .trap:
            fatalError("tapedeck: \(violation)")
        case .record:
            recordedViolations.withLock { $0.append(violation) }
        }
    }
}
