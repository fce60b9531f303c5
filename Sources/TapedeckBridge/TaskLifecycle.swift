/// Every state the bridge's record of one URLSession task can be in, and every transition, as a
/// value.
///
/// URLSession's threads and the client report what happens: loading started, the client
/// cancelled, suspended or resumed the task, loading stopped, the network finished. The harness
/// hands each report to ``handle(_:)`` on the simulator's thread and does what the returned
/// ``Action`` says. The lifecycle does no I/O (`TaskLifecycleTests`: every event in every state).
///
/// ```
///            start (task running)                    the network finished
///  starting ─────────────────────▶ running(network) ─────────────────────▶ done
///     ▲  │ start (suspended) / cancel      │ cancel / suspend
///     │  ▼                                  ▼
///     │  stopping(network?, cancelled) ◀────┘         (a stop for a cancel: the cancellation → done)
///     │        │ stop after a suspend
///     └─ resume ┴── suspended  ── cancel ─▶ stopping(cancelled)
/// ```
struct TaskLifecycle: Hashable, Sendable {
    enum State: Hashable, Sendable {
        /// The task was resumed; its `startLoading` is expected.
        case starting
        /// The network runs exchange `networkID` for the task.
        case running(networkID: Int)
        /// The client cancelled (`cancelled`) or suspended the task: it takes no more callbacks and
        /// its `stopLoading` is expected. `networkID`: the exchange to abandon when it comes.
        case stopping(networkID: Int?, cancelled: Bool)
        /// Stopped after a suspension; a resume starts it again.
        case suspended
        /// Finished, failed or cancelled: nothing more will happen.
        case done
    }

    /// What the task's `state` said when the bridge looked (the only thing it learns by looking).
    enum TaskState: Hashable, Sendable {
        case running
        case canceling
        case suspended
        case completed
    }

    enum Event: Hashable, Sendable {
        /// `startLoading` was taken in; the task's state then.
        case startArrived(TaskState)
        /// The network started exchange `networkID` for the task.
        case exchangeStarted(networkID: Int)
        /// The client cancelled the task through the harness (``Harness/cancel(_:)``): told, not seen.
        case cancelNoticed
        /// The task's state as the bridge saw it when it looked: a cancel, suspend or resume the
        /// client made with the task's own methods (corelibs tells nobody; see ``Harness``).
        case taskSeen(TaskState)
        /// `stopLoading` was taken in; whether the task was being cancelled then.
        case stopArrived(taskCanceling: Bool)
        /// The network's exchange ended and its completion went to the client.
        case finished
    }

    enum Action: Hashable, Sendable {
        /// Nothing to do.
        case none
        /// Start a network exchange for the task (then report ``Event/exchangeStarted(networkID:)``).
        case startExchange
        /// The client cancelled: record it and, unless the stop is here already, expect the stop.
        case noticeCancel(expectStop: Bool)
        /// The client suspended: expect the stop.
        case expectSuspendStop
        /// The client resumed: expect `startLoading` again.
        case expectStart
        /// Deliver the cancellation (metrics and the callback corelibs queued); `noticeCancel`
        /// first when the stop is how the cancel became known.
        case deliverCancellation(noticeCancel: Bool)
        /// A stop after a suspension: hand the client the block corelibs queued, if any.
        case forwardStopCallback
        /// The event cannot happen in this state: a bug, reported by the harness; nothing changes.
        case illegal(String)
    }

    private(set) var state: State

    init(state: State = .starting) {
        self.state = state
    }

    /// The network exchange the task runs or ran until it was halted.
    var networkID: Int? {
        switch state {
        case let .running(id): return id
        case let .stopping(id, _): return id
        default: return nil
        }
    }

    /// Whether the client cancelled (a stop then ends the task).
    var isCancelled: Bool {
        if case .stopping(_, true) = state { return true }
        return false
    }

    /// Applies `event`: the one place where the task's record changes state.
    mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        // Loading starts: the task may already have been cancelled or suspended.
        case (.starting, .startArrived(.running)):
            return .startExchange
        case (.starting, .exchangeStarted(let id)):
            state = .running(networkID: id)
            return .none
        case (.starting, .startArrived(.canceling)), (.starting, .cancelNoticed):
            state = .stopping(networkID: nil, cancelled: true)
            return .noticeCancel(expectStop: true)
        case (.starting, .startArrived(.suspended)):
            state = .stopping(networkID: nil, cancelled: false)
            return .expectSuspendStop
        case (.starting, .startArrived(.completed)), (.stopping, .startArrived), (.done, .startArrived):
            return .none   // a start that lost the race with a cancel (or came for a finished task)

        // The client cancels (told, or seen on the task), suspends or resumes a task it holds.
        case let (.running(id), .cancelNoticed), let (.running(id), .taskSeen(.canceling)):
            state = .stopping(networkID: id, cancelled: true)
            return .noticeCancel(expectStop: true)
        case let (.stopping(id, false), .cancelNoticed), let (.stopping(id, false), .taskSeen(.canceling)):
            state = .stopping(networkID: id, cancelled: true)
            return .noticeCancel(expectStop: true)
        case (.suspended, .cancelNoticed), (.suspended, .taskSeen(.canceling)):
            state = .stopping(networkID: nil, cancelled: true)
            return .noticeCancel(expectStop: true)
        case (.stopping(_, true), .cancelNoticed), (.done, .cancelNoticed):
            return .none
        case let (.running(id), .taskSeen(.suspended)):
            state = .stopping(networkID: id, cancelled: false)
            return .expectSuspendStop
        case (.suspended, .taskSeen(.running)):
            state = .starting
            return .expectStart
        case (_, .taskSeen):
            // Nothing the client changed: a running task still running, a cancel already known,
            // or a task not yet started (its start or its stop will say).
            return .none

        // A stop: the cancellation, or the end of a suspension.
        case (.stopping(_, true), .stopArrived):
            state = .done
            return .deliverCancellation(noticeCancel: false)
        case (.starting, .stopArrived(true)), (.running, .stopArrived(true)), (.stopping(_, false), .stopArrived(true)),
             (.suspended, .stopArrived(true)):
            state = .done
            return .deliverCancellation(noticeCancel: true)
        case (.starting, .stopArrived(false)), (.running, .stopArrived(false)), (.stopping(_, false), .stopArrived(false)),
             (.suspended, .stopArrived(false)):
            state = .suspended
            return .forwardStopCallback
        case (.done, .stopArrived):
            return .forwardStopCallback

        // The network's end.
        case (.running, .finished):
            state = .done
            return .none

        default:
            return .illegal("\(event) in state \(state)")
        }
    }
}
