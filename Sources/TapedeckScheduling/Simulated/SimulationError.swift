/// Why a simulation run stopped short.
public enum SimulationError: Error, CustomStringConvertible, Sendable {
    /// Nothing can run and no timer is set, but registered work is still pending.
    case stalled(StallReport)
    /// An expected external callback did not arrive within the real-time bound.
    case externalWorkTimedOut(ExternalTimeoutReport)
    /// The run executed its maximum number of jobs (a loop that never ends?).
    case stepLimitExceeded(steps: Int, time: VirtualInstant)

    /// What stopped the run, and what to look at.
    public var description: String {
        switch self {
        case let .stalled(report):
            return report.description
        case let .externalWorkTimedOut(report):
            return report.description
        case let .stepLimitExceeded(steps, time):
            return "tapedeck: the simulation ran \(steps) jobs without becoming idle (t=\(time)); "
                + "look for work that reschedules itself forever, or raise maxSteps"
        }
    }
}

/// What was pending when a simulation stalled.
public struct StallReport: Sendable, CustomStringConvertible {
    /// One piece of pending work.
    public struct Item: Sendable, Hashable {
        /// What the work is.
        public let label: String
        /// When the work was registered.
        public let since: VirtualInstant
    }

    /// When the simulation stalled.
    public let time: VirtualInstant
    /// Unresolved pending work, in registration order.
    public let pending: [Item]
    /// The last steps of the trace (empty in `.hashOnly` mode).
    public let recentSteps: [TraceStep]

    /// The stall, each pending item, and the last steps of the trace.
    public var description: String {
        var lines = ["tapedeck: simulation stalled at t=\(time): nothing can run and no timer is set, "
            + "but \(pending.count) pending item(s) will never be resolved:"]
        lines += pending.map { "  - \($0.label) (pending since t=\($0.since))" }
        if !recentSteps.isEmpty {
            lines.append("last steps:")
            lines += recentSteps.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// Which expected external callbacks never came.
public struct ExternalTimeoutReport: Sendable, CustomStringConvertible {
    /// One expectation that did not arrive.
    public struct Item: Sendable, Hashable {
        /// The expectation's number.
        public let number: UInt64
        /// What was expected.
        public let label: String
    }

    /// When the wait began.
    public let time: VirtualInstant
    /// How long the scheduler waited, in real time.
    public let waited: Duration
    /// The expectations still outstanding.
    public let missing: [Item]

    /// Which callbacks never came, and how long the scheduler waited for them.
    public var description: String {
        let list = missing.map { "#\($0.number) \($0.label)" }.joined(separator: ", ")
        return "tapedeck: waited \(waited) of real time at t=\(time) for \(missing.count) expected external "
            + "callback(s) that never arrived: \(list). Each expectation must be met by arrive() or "
            + "withdrawn by cancel(); if the other side is merely slow, raise externalWaitLimit "
            + "(SimulatedScheduler(externalWaitLimit:), Tape(cassette:…, externalWaitLimit:))"
    }
}
