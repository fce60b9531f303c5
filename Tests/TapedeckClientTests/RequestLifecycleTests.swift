import Testing
@testable import TapedeckClient

/// A request's lifecycle as a value, without a session: every event through every combination of
/// public state, attempt phase and serializer-retry flag.
@Suite("Pipeline: the request lifecycle, every event in every state")
struct RequestLifecycleTests {
    typealias Phase = RequestLifecycle.Phase
    typealias Event = RequestLifecycle.Event
    typealias Action = RequestLifecycle.Action

    static let states: [Request.State] = [.initialized, .resumed, .suspended, .cancelled, .finished]
    static let phases: [Phase] = [.attempting, .decidingRetry, .retryPending, .finishing, .finished]
    static let tasks: [RequestLifecycle.TaskStatus] = [.none, .active, .completed]
    static let events: [Event] = tasks.flatMap { [Event.resume($0), .suspend($0), .cancel($0)] } + [
        .taskCreated, .attemptEnded(retryable: true), .attemptEnded(retryable: false), .retryDecided(retry: true),
        .retryDecided(retry: false), .serializerRetryRequested, .retryArmed, .retryStarting, .retryAbandoned,
        .finishRequested, .serializerAppended, .serializersCompleted,
    ]

    /// What finishing does from `phase` (with the serializer-retry flag): the phase after, and the action.
    static func finishing(_ phase: Phase, _ serializerRetry: Bool) -> (Phase, Action) {
        switch phase {
        case .finishing, .finished: return (phase, .ignore)
        case .retryPending where serializerRetry: return (phase, .ignore)
        case .retryPending: return (.finishing, .finish(disarmRetry: true))
        case .attempting, .decidingRetry: return (.finishing, .finish(disarmRetry: false))
        }
    }

    /// The whole table, stated independently of the implementation: (state, phase, flag) + event →
    /// (action, state, phase, flag).
    static func expected(_ state: Request.State, _ phase: Phase, _ flag: Bool, _ event: Event)
        -> (Action, Request.State, Phase, Bool) {
        switch event {
        case let .resume(task):
            guard state.canTransitionTo(.resumed) else { return (.ignore, state, phase, flag) }
            let step: RequestLifecycle.TaskStep = task == .none ? .setUp : task == .active ? .resume : .nothing
            return (.resumed(step), .resumed, phase, flag)
        case let .suspend(task):
            guard state.canTransitionTo(.suspended) else { return (.ignore, state, phase, flag) }
            return (.suspended(task == .active ? .suspend : .nothing), .suspended, phase, flag)
        case let .cancel(task):
            guard state.canTransitionTo(.cancelled) else { return (.ignore, state, phase, flag) }
            let step: RequestLifecycle.CancelStep
            if phase == .retryPending || phase == .decidingRetry { step = .abandonRetry }
            else { step = task == .none ? .finish : task == .completed ? .nothing : .cancelTask }
            return (.cancelled(step), .cancelled, phase, flag)
        case .taskCreated:
            let step: RequestLifecycle.TaskStep = switch state {
            case .initialized, .finished: .nothing
            case .resumed: .resume
            case .suspended: .suspend
            case .cancelled: .cancel
            }
            return (.alignTask(step), state, phase, flag)
        case let .attemptEnded(retryable):
            if retryable && state != .cancelled && phase == .attempting { return (.askRetrier, state, .decidingRetry, flag) }
            let (next, action) = finishing(phase, flag)
            return (action, state, next, flag)
        case let .retryDecided(retry):
            guard phase == .decidingRetry else { return (.ignore, state, phase, flag) }
            if retry { return (.retry, state, .attempting, flag) }
            let (next, action) = finishing(.attempting, flag)
            return (action, state, next, flag)
        case .serializerRetryRequested:
            guard phase == .finishing else { return (.illegal("serializer retry in phase \(phase)"), state, phase, flag) }
            return (.proceed, state, phase, true)
        case .retryArmed:
            return state == .cancelled ? (.disarmRetry, state, phase, flag) : (.keepRetry, state, .retryPending, flag)
        case .retryStarting:
            return (.proceed, state, .attempting, false)
        case .retryAbandoned:
            if flag { return (.abandonSerializerRetry, state, .finishing, false) }
            return (.finishCancelled, state, phase == .retryPending ? .attempting : phase, flag)
        case .finishRequested:
            let (next, action) = finishing(phase, flag)
            return (action, state, next, flag)
        case .serializerAppended:
            let after: Request.State = state == .finished ? .resumed : state
            let processNow = phase == .finished
            return (.appended(processNow: processNow, mayResume: after.canTransitionTo(.resumed)), after,
                    processNow ? .finishing : phase, flag)
        case .serializersCompleted:
            return (.completed, state.canTransitionTo(.finished) ? .finished : state, .finished, false)
        }
    }

    @Test("every event in every (state, phase, serializer-retry) combination: the listed action and next values")
    func everyEventEverywhere() {
        var checked = 0
        for state in Self.states {
            for phase in Self.phases {
                for flag in [false, true] {
                    for event in Self.events {
                        var lifecycle = RequestLifecycle(state: state, phase: phase, serializerRetry: flag)
                        let action = lifecycle.handle(event)
                        let (expectedAction, nextState, nextPhase, nextFlag) = Self.expected(state, phase, flag, event)
                        let label = "\(state)/\(phase)/\(flag) + \(event)"
                        if case .illegal = expectedAction {
                            guard case .illegal = action else {
                                Issue.record("\(label): expected illegal, got \(action)")
                                continue
                            }
                        } else {
                            #expect(action == expectedAction, "\(label)")
                        }
                        #expect(lifecycle.state == nextState && lifecycle.phase == nextPhase && lifecycle.serializerRetry == nextFlag, "\(label)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 5 * 5 * 2 * 21)
    }

    @Test("the public state only moves along Request.State's transition table")
    func publicStateFollowsItsTable() {
        for state in Self.states {
            for phase in Self.phases {
                for event in Self.events {
                    var lifecycle = RequestLifecycle(state: state, phase: phase)
                    _ = lifecycle.handle(event)
                    let moved = lifecycle.state != state
                    // A serializer appended to a finished request reopens it (Alamofire's behaviour).
                    let reopened = state == .finished && lifecycle.state == .resumed && event == .serializerAppended
                    #expect(!moved || reopened || state.canTransitionTo(lifecycle.state), "\(state) → \(lifecycle.state) on \(event)")
                }
            }
        }
    }

    @Test("a cancel during a retry's delay ends the request: abandon the retry, finish cancelled, run the serializers once")
    func cancelDuringRetryDelay() {
        var lifecycle = RequestLifecycle()
        let steps: [(Event, Action)] = [
            (.resume(.none), .resumed(.setUp)), (.taskCreated, .alignTask(.resume)), (.attemptEnded(retryable: true), .askRetrier),
            (.retryDecided(retry: true), .retry), (.retryArmed, .keepRetry), (.cancel(.completed), .cancelled(.abandonRetry)),
            (.retryAbandoned, .finishCancelled), (.finishRequested, .finish(disarmRetry: false)), (.finishRequested, .ignore),
            (.serializersCompleted, .completed),
        ]
        for (event, expected) in steps {
            #expect(lifecycle.handle(event) == expected, "\(event) in \(lifecycle.state)/\(lifecycle.phase)")
        }
        #expect(lifecycle.state == .cancelled && lifecycle.phase == .finished)
    }

    @Test("a cancel that ends a serializer-stage retry hands that serializer its cancellation; the others still run")
    func cancelEndsSerializerStageRetry() {
        var lifecycle = RequestLifecycle(state: .resumed, phase: .attempting)
        let steps: [(Event, Action)] = [
            (.attemptEnded(retryable: false), .finish(disarmRetry: false)), (.serializerRetryRequested, .proceed),
            (.retryArmed, .keepRetry), (.finishRequested, .ignore), (.cancel(.completed), .cancelled(.abandonRetry)),
            (.retryAbandoned, .abandonSerializerRetry), (.serializersCompleted, .completed),
        ]
        for (event, expected) in steps {
            #expect(lifecycle.handle(event) == expected, "\(event) in \(lifecycle.state)/\(lifecycle.phase)")
        }
        #expect(lifecycle.isFullyFinished == false && lifecycle.state == .cancelled && lifecycle.phase == .finished)
    }
}
