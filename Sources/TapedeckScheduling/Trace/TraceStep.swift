/// One step of a simulation: a job that ran, or an event recorded while one ran.
///
/// Steps carry only deterministic values: the virtual time, the queue's label, the job's number
/// (its enqueue sequence, which the scheduler hands out in a deterministic order) and the event.
public struct TraceStep: Hashable, Sendable, CustomStringConvertible {
    /// Position in the trace, from 0.
    public let index: Int
    /// Virtual time of the step.
    public let time: VirtualInstant
    /// Label of the queue the job was submitted to (empty for steps outside any job).
    public let queue: String
    /// The job's sequence number; 0 for steps recorded outside any job.
    public let job: UInt64
    /// `run` for a job, `sync` for a synchronous block, or a name recorded by client code.
    public let event: String
    /// The event's detail (empty for plain jobs).
    public let payload: String

    /// A step as the trace recorder makes it.
    public init(index: Int, time: VirtualInstant, queue: String, job: UInt64, event: String, payload: String) {
        self.index = index
        self.time = time
        self.queue = queue
        self.job = job
        self.event = event
        self.payload = payload
    }

    /// `index t=time queue job event payload`, one line.
    public var description: String {
        let tail = payload.isEmpty ? "" : " \(payload)"
        return "#\(index) t=\(time) [\(queue)] job \(job) \(event)\(tail)"
    }

    /// Same step, ignoring its index (used to compare traces that are offset from each other).
    func sameContent(as other: TraceStep) -> Bool {
        time == other.time && queue == other.queue && job == other.job && event == other.event && payload == other.payload
    }
}

/// The running hash of a trace: a 64-bit value with a fixed definition (see ``StableHash``).
public struct TraceHash: Hashable, Sendable, CustomStringConvertible {
    /// The hash's 64 bits.
    public let value: UInt64

    /// A hash with this value (to compare with one printed earlier).
    public init(value: UInt64) {
        self.value = value
    }

    /// Sixteen lowercase hex digits.
    public var description: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// How much of the trace a simulated scheduler keeps.
public enum TraceMode: Sendable, Hashable {
    /// Every step is kept (needed to report where two runs diverge).
    case full
    /// Only the running hash and the step count are kept (for long or benchmark runs).
    case hashOnly
}
