import Testing
@testable import TapedeckBridge

/// The bridge's record of a task as a value, without URLSession: every event in every state.
@Suite("Bridge: the task lifecycle, every event in every state")
struct TaskLifecycleTests {
    typealias State = TaskLifecycle.State
    typealias Event = TaskLifecycle.Event
    typealias Action = TaskLifecycle.Action

    static let states: [State] = [
        .starting, .running(networkID: 3), .stopping(networkID: 3, cancelled: false), .stopping(networkID: nil, cancelled: false),
        .stopping(networkID: 3, cancelled: true), .stopping(networkID: nil, cancelled: true), .suspended, .done,
    ]

    static let taskStates: [TaskLifecycle.TaskState] = [.running, .canceling, .suspended, .completed]

    static let events: [Event] = taskStates.map { .startArrived($0) } + taskStates.map { .taskSeen($0) }
        + [.exchangeStarted(networkID: 7), .cancelNoticed, .stopArrived(taskCanceling: true), .stopArrived(taskCanceling: false), .finished]

    /// The whole table: (state, event) → (action, next state); nil means illegal (reported, no change).
    static func expected(_ state: State, _ event: Event) -> (Action, State)? {
        switch (state, event) {
        case (.starting, .startArrived(.running)): return (.startExchange, .starting)
        case let (.starting, .exchangeStarted(id)): return (.none, .running(networkID: id))
        case (.starting, .startArrived(.canceling)), (.starting, .cancelNoticed):
            return (.noticeCancel(expectStop: true), .stopping(networkID: nil, cancelled: true))
        case (.starting, .startArrived(.suspended)): return (.expectSuspendStop, .stopping(networkID: nil, cancelled: false))
        case (.starting, .startArrived(.completed)), (.stopping, .startArrived), (.done, .startArrived): return (.none, state)
        case let (.running(id), .cancelNoticed), let (.running(id), .taskSeen(.canceling)):
            return (.noticeCancel(expectStop: true), .stopping(networkID: id, cancelled: true))
        case let (.stopping(id, false), .cancelNoticed), let (.stopping(id, false), .taskSeen(.canceling)):
            return (.noticeCancel(expectStop: true), .stopping(networkID: id, cancelled: true))
        case (.suspended, .cancelNoticed), (.suspended, .taskSeen(.canceling)):
            return (.noticeCancel(expectStop: true), .stopping(networkID: nil, cancelled: true))
        case (.stopping(_, true), .cancelNoticed), (.done, .cancelNoticed): return (.none, state)
        case let (.running(id), .taskSeen(.suspended)): return (.expectSuspendStop, .stopping(networkID: id, cancelled: false))
        case (.suspended, .taskSeen(.running)): return (.expectStart, .starting)
        case (_, .taskSeen): return (.none, state)
        case (.stopping(_, true), .stopArrived): return (.deliverCancellation(noticeCancel: false), .done)
        case (.starting, .stopArrived(true)), (.running, .stopArrived(true)), (.stopping(_, false), .stopArrived(true)),
             (.suspended, .stopArrived(true)):
            return (.deliverCancellation(noticeCancel: true), .done)
        case (.done, .stopArrived): return (.forwardStopCallback, .done)
        case (_, .stopArrived(false)): return (.forwardStopCallback, .suspended)
        case (.running, .finished): return (.none, .done)
        default: return nil
        }
    }

    @Test("every (state, event) pair gives its listed action and next state, or is reported illegal and changes nothing")
    func everyEventInEveryState() {
        var illegal = 0
        for state in Self.states {
            for event in Self.events {
                var lifecycle = TaskLifecycle(state: state)
                let action = lifecycle.handle(event)
                if let (expectedAction, next) = Self.expected(state, event) {
                    #expect(action == expectedAction, "\(state) + \(event)")
                    #expect(lifecycle.state == next, "\(state) + \(event)")
                } else {
                    guard case .illegal = action else {
                        Issue.record("\(state) + \(event) should be illegal, got \(action)")
                        continue
                    }
                    #expect(lifecycle.state == state, "\(state) + \(event)")
                    illegal += 1
                }
            }
        }
        #expect(illegal > 10, "the table does forbid things: \(illegal)")
    }

    @Test("suspend, stop, resume, start again, then a cancel noticed on the task ends in one cancellation")
    func suspendResumeThenCancel() {
        var lifecycle = TaskLifecycle()
        let steps: [(Event, Action)] = [
            (.startArrived(.running), .startExchange), (.exchangeStarted(networkID: 1), .none),
            (.taskSeen(.running), .none), (.taskSeen(.suspended), .expectSuspendStop),
            (.stopArrived(taskCanceling: false), .forwardStopCallback), (.taskSeen(.running), .expectStart),
            (.startArrived(.running), .startExchange), (.exchangeStarted(networkID: 2), .none),
            (.taskSeen(.canceling), .noticeCancel(expectStop: true)), (.taskSeen(.canceling), .none),
            (.stopArrived(taskCanceling: true), .deliverCancellation(noticeCancel: false)),
        ]
        for (event, expected) in steps {
            #expect(lifecycle.handle(event) == expected, "\(event) in \(lifecycle.state)")
        }
        #expect(lifecycle.state == .done && lifecycle.networkID == nil)
    }
}
