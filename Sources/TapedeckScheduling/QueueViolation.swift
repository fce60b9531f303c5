/// A broken queue rule: code ran where it must not, or a `sync` would deadlock.
public struct QueueViolation: Hashable, Sendable, CustomStringConvertible, Error {
    /// What kind of rule was broken.
    public enum Kind: String, Hashable, Sendable {
        /// A check required the caller to be on a queue it was not on.
        case notOnQueue
        /// A check required the caller not to be on a queue it was on.
        case unexpectedlyOnQueue
        /// A `sync` onto a queue whose hierarchy the caller already holds: GCD would deadlock.
        case syncDeadlock
    }

    /// What kind of rule was broken.
    public let kind: Kind
    /// The queue named by the check (or the target of the `sync`).
    public let queue: String
    /// The queues the caller was running on, innermost first, with their targets (empty: none).
    public let runningOn: [String]
    /// The scheduler's time when it happened.
    public let time: VirtualInstant
    /// The file of the check (`#fileID`).
    public let file: String
    /// The line of the check.
    public let line: UInt

    /// A violation as a scheduler reports it.
    public init(kind: Kind, queue: String, runningOn: [String], time: VirtualInstant, file: String, line: UInt) {
        self.kind = kind
        self.queue = queue
        self.runningOn = runningOn
        self.time = time
        self.file = file
        self.line = line
    }

    /// Where, when and which queues were involved, in one line.
    public var description: String {
        let actual = runningOn.isEmpty ? "no queue" : runningOn.map { "'\($0)'" }.joined(separator: " → ")
        switch kind {
        case .notOnQueue:
            return "queue violation at \(file):\(line) (t=\(time)): expected to run on '\(queue)', but running on \(actual)"
        case .unexpectedlyOnQueue:
            return "queue violation at \(file):\(line) (t=\(time)): must not run on '\(queue)', but running on \(actual)"
        case .syncDeadlock:
            return "deadlock at \(file):\(line) (t=\(time)): sync onto '\(queue)' while holding \(actual); GCD would never return"
        }
    }
}

/// What a scheduler does when a queue rule is broken.
public enum ViolationPolicy: Sendable, Hashable {
    /// Stop the process with the violation's description (like `dispatchPrecondition`).
    case trap
    /// Keep it in ``Scheduler/violations`` (and the trace) and go on, so a test can assert on it.
    /// A deadlocking `sync` then runs its block inline.
    case record
}
