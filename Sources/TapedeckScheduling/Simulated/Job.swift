/// A unit of work waiting in a simulated queue.
struct Job {
    /// Enqueue sequence: the job's number in the trace and the tie-breaker after the deadline.
    let seq: UInt64
    /// Not reference counted: the scheduler keeps a queue alive while it has pending jobs.
    unowned(unsafe) let queue: SimulatedQueue
    let name: String
    let work: @Sendable () -> Void
    /// Set for timers, which can be cancelled before they run.
    let handle: ScheduledWork?

    @inline(__always)
    var isCancelled: Bool { handle?.isCancelled ?? false }
}

/// A job waiting for its deadline, ordered by (deadline, enqueue sequence).
struct TimerEntry: Comparable {
    let deadline: Int64
    let job: Job

    static func < (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        lhs.deadline != rhs.deadline ? lhs.deadline < rhs.deadline : lhs.job.seq < rhs.job.seq
    }

    static func == (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        lhs.deadline == rhs.deadline && lhs.job.seq == rhs.job.seq
    }
}

/// What the owner thread is executing: a job or a `sync` block on a queue.
struct Frame {
    unowned(unsafe) let queue: SimulatedQueue
    let job: UInt64
    /// True for a job: on GCD it would run on a thread of its own, so the frames below it (a
    /// `sync` caller waiting for it) are not "current" for it. False for a `sync` block.
    let startsThread: Bool
}

/// A root queue in the scheduler's list of roots with ready work.
struct ReadyRoot {
    unowned(unsafe) let queue: SimulatedQueue
}
