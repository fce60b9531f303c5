/// Per task: has it completed, have its metrics been gathered? Request-level completion waits for
/// both, in either order, on a transport that delivers metrics (Alamofire's `RequestTaskMap` on
/// Darwin); on one that does not, completion goes ahead at once (Alamofire on Linux).
///
/// A value type with explicit transitions; the Session acts on the returned actions.
struct TaskLedger {
    struct Entry {
        var completed = false
        var metricsGathered = false
        /// Set once both happened (or the completion went ahead without metrics).
        var done = false
    }

    /// Keyed by the task's identifier (unique within its URLSession, never reused).
    private(set) var entries: [Int: Entry] = [:]

    enum CompletionAction: Equatable {
        /// Run the request-level completion now.
        case completeNow
        /// Hold it until the metrics come (or the grace period ends).
        case waitForMetrics
        /// The task completed before: report it, do nothing else.
        case duplicate
    }

    enum MetricsAction: Equatable {
        /// Remember the metrics; the completion has not come yet.
        case recorded
        /// The completion was waiting for these metrics: run it now.
        case releaseWaitingCompletion
        /// Metrics came before for this task: report it, ignore them.
        case duplicate
        /// Metrics for a task the ledger does not know (none expected): ignore them.
        case unknownTask
    }

    enum GraceAction: Equatable {
        /// The completion is still waiting: report missing metrics and run it.
        case completeWithoutMetrics
        /// Nothing to do (the metrics came in time).
        case none
    }

    mutating func register(_ task: Int) {
        entries[task] = Entry()
    }

    mutating func didComplete(_ task: Int, transportDeliversMetrics: Bool) -> CompletionAction {
        guard var entry = entries[task] else { return .completeNow }
        guard !entry.completed else { return .duplicate }
        entry.completed = true
        defer { entries[task] = entry }
        if entry.metricsGathered || !transportDeliversMetrics {
            entry.done = true
            return .completeNow
        }
        return .waitForMetrics
    }

    mutating func didGatherMetrics(_ task: Int) -> MetricsAction {
        guard var entry = entries[task] else { return .unknownTask }
        guard !entry.metricsGathered else { return .duplicate }
        entry.metricsGathered = true
        defer { entries[task] = entry }
        if entry.completed && !entry.done {
            entry.done = true
            return .releaseWaitingCompletion
        }
        return .recorded
    }

    mutating func gracePeriodEnded(_ task: Int) -> GraceAction {
        guard var entry = entries[task], entry.completed, !entry.done else { return .none }
        entry.done = true
        entries[task] = entry
        return .completeWithoutMetrics
    }

    /// Stops tracking a task whose request is gone.
    mutating func forget(_ task: Int) {
        entries[task] = nil
    }

    /// Whether the task is still being tracked (neither completed nor given up on).
    func isPending(_ task: Int) -> Bool {
        entries[task].map { !$0.done } ?? false
    }
}
