/// Every state a request can be in, and every transition, as a value: Alamofire's public
/// ``Request/State`` (initialized, resumed, suspended, cancelled, finished) together with where
/// the current attempt stands (running, the retrier deciding, a retry waiting, the response
/// serializers running, all of them done).
///
/// ``Request`` hands every event to ``handle(_:)`` under its lock and does what the returned
/// ``Action`` says (resume, suspend or cancel the task, ask the retrier, finish...). The lifecycle
/// does no I/O; `RequestLifecycleTests` drives every event through every state.
///
/// ```
///  initialized ─resume─▶ resumed ⇄ suspended      any of them ─cancel─▶ cancelled
///                          │                                    (the attempt still ends)
///   attempt:  attempting ─failed─▶ decidingRetry ─retry─▶ (retryPending) ─start─▶ attempting
///                 │                      └─ do not retry ─┐
///                 └──── ended ─────────────────────────▶ finishing ─serializers done─▶ finished
///                                                           ▲ a serializer added later ┘
/// ```
struct RequestLifecycle: Hashable, Sendable {
    /// Where the current attempt stands.
    enum Phase: Hashable, Sendable {
        /// Setting up or running an attempt (or not started yet).
        case attempting
        /// The retrier is deciding about a failed attempt.
        case decidingRetry
        /// A retry waits for its delay.
        case retryPending
        /// The response serializers run (once per attempt, in order).
        case finishing
        /// Every serializer ran; one appended later runs on the stored response.
        case finished
    }

    /// What the request's last task is doing, as far as a lifecycle event cares.
    enum TaskStatus: Hashable, Sendable {
        /// No task was created yet.
        case none
        /// A task exists and has not completed.
        case active
        /// The last task completed (the retry decision or the serializers are under way).
        case completed
    }

    enum Event: Hashable, Sendable {
        /// `resume()`, `suspend()`, `cancel()`, with the last task's status.
        case resume(TaskStatus)
        case suspend(TaskStatus)
        case cancel(TaskStatus)
        /// An attempt's task was created.
        case taskCreated
        /// The attempt ended (its task completed, or setup failed); `retryable`: with an error a
        /// retrier may look at.
        case attemptEnded(retryable: Bool)
        /// The retrier answered for a failed attempt.
        case retryDecided(retry: Bool)
        /// A failing serializer asked for a retry: if a cancel ends that retry, that serializer's
        /// handler is delivered as cancelled.
        case serializerRetryRequested
        /// A delayed retry was scheduled.
        case retryArmed
        /// The retry starts its attempt.
        case retryStarting
        /// A cancel ended the retry before its attempt started.
        case retryAbandoned
        /// The request finishes its attempt (`finish`): the serializers run.
        case finishRequested
        /// A response serializer was appended.
        case serializerAppended
        /// Every appended serializer completed.
        case serializersCompleted
    }

    /// What the task should do after a state change.
    enum TaskStep: Hashable, Sendable {
        case nothing
        /// Create the first attempt (lazy setup).
        case setUp
        case resume
        case suspend
        /// Resume (so that metrics are still produced) and cancel.
        case cancel
    }

    enum Action: Hashable, Sendable {
        /// The event changes nothing (a resume of a cancelled request, a second finish...).
        case ignore
        /// The state changed to resumed / suspended: tell the monitors, then do `TaskStep`.
        case resumed(TaskStep)
        case suspended(TaskStep)
        /// The state changed to cancelled: tell the monitors, then do this.
        case cancelled(CancelStep)
        /// Align a newly created task with the state.
        case alignTask(TaskStep)
        /// Ask the retriers about the failed attempt.
        case askRetrier
        /// Start the retry (through the session).
        case retry
        /// Finish the attempt: run the serializers. `disarmRetry`: a waiting retry is dropped.
        case finish(disarmRetry: Bool)
        /// Keep the scheduled retry.
        case keepRetry
        /// A cancel came first: drop the scheduled retry and end it now.
        case disarmRetry
        /// Proceed (a retry's attempt starts; nothing else to decide).
        case proceed
        /// A cancel ended a serializer-stage retry: deliver that serializer's handler as cancelled.
        case abandonSerializerRetry
        /// A cancel ended a retry: finish as explicitly cancelled.
        case finishCancelled
        /// A serializer was appended: run it now on the stored response (`processNow`) and
        /// resume the request when it should start automatically (`mayResume`).
        case appended(processNow: Bool, mayResume: Bool)
        /// Every serializer ran: deliver their completions and the finish handlers.
        case completed
        /// The event cannot happen in this phase: a bug; nothing changes.
        case illegal(String)
    }

    /// What a cancel does besides changing the state.
    enum CancelStep: Hashable, Sendable {
        /// Cancel the task (resume it first, so that metrics are still produced).
        case cancelTask
        /// Nothing yet: the serializers are under way and end it.
        case nothing
        /// No task exists: finish now.
        case finish
        /// Drop the waiting retry (or the retrier's coming answer) and end it as cancelled.
        case abandonRetry
    }

    private(set) var state: Request.State
    private(set) var phase: Phase
    /// A failing serializer's retry is under way (see ``Event/serializerRetryRequested``).
    private(set) var serializerRetry = false

    init(state: Request.State = .initialized, phase: Phase = .attempting, serializerRetry: Bool = false) {
        self.state = state
        self.phase = phase
        self.serializerRetry = serializerRetry
    }

    /// Finished, and every serializer ran.
    var isFullyFinished: Bool { state == .finished && phase == .finished }

    /// Applies `event`: the one place where a request changes state.
    mutating func handle(_ event: Event) -> Action {
        switch event {
        case let .resume(task):
            guard state.canTransitionTo(.resumed) else { return .ignore }
            state = .resumed
            switch task {
            case .none: return .resumed(.setUp)
            case .active: return .resumed(.resume)
            case .completed: return .resumed(.nothing)
            }
        case let .suspend(task):
            guard state.canTransitionTo(.suspended) else { return .ignore }
            state = .suspended
            return .suspended(task == .active ? .suspend : .nothing)
        case let .cancel(task):
            guard state.canTransitionTo(.cancelled) else { return .ignore }
            state = .cancelled
            // Tapedeck does better than 5.12.0 here: a cancel during a retry's delay ends the
            // request now (Alamofire's request never completes), and so does a cancel while the
            // retrier decides (Alamofire waits for its answer — an authenticator's whole token
            // refresh — and then finishes with the retrier's error, not the cancel); the
            // retrier's later answer is ignored.
            if phase == .retryPending || phase == .decidingRetry { return .cancelled(.abandonRetry) }
            switch task {
            case .none: return .cancelled(.finish)
            case .completed: return .cancelled(.nothing)
            case .active: return .cancelled(.cancelTask)
            }

        case .taskCreated:
            switch state {
            case .initialized, .finished: return .alignTask(.nothing)
            case .resumed: return .alignTask(.resume)
            case .suspended: return .alignTask(.suspend)
            case .cancelled: return .alignTask(.cancel)
            }

        case let .attemptEnded(retryable):
            // A cancelled request, or one that finished meanwhile (a cancel before its task
            // existed), only finishes (once).
            guard retryable && state != .cancelled && phase == .attempting else { return finish() }
            phase = .decidingRetry
            return .askRetrier
        case let .retryDecided(retry):
            guard phase == .decidingRetry else { return .ignore }   // finished meanwhile (session invalidated)
            phase = .attempting
            return retry ? .retry : finish()

        case .serializerRetryRequested:
            guard phase == .finishing else { return .illegal("serializer retry in phase \(phase)") }
            serializerRetry = true
            return .proceed
        case .retryArmed:
            guard state != .cancelled else { return .disarmRetry }
            phase = .retryPending
            return .keepRetry
        case .retryStarting:
            phase = .attempting
            serializerRetry = false
            return .proceed
        case .retryAbandoned:
            if serializerRetry {
                serializerRetry = false
                phase = .finishing
                return .abandonSerializerRetry
            }
            if phase == .retryPending { phase = .attempting }
            return .finishCancelled

        case .finishRequested:
            return finish()

        case .serializerAppended:
            if state == .finished { state = .resumed }   // run the new serializer on the stored data
            let processNow = phase == .finished
            if processNow { phase = .finishing }
            return .appended(processNow: processNow, mayResume: state.canTransitionTo(.resumed))
        case .serializersCompleted:
            if state.canTransitionTo(.finished) { state = .finished }
            phase = .finished
            serializerRetry = false
            return .completed
        }
    }

    /// The attempt finishes: the serializers run, unless they already do (or a serializer-stage
    /// retry waits, which a cancel ends through its serializer).
    private mutating func finish() -> Action {
        switch phase {
        case .finishing, .finished:
            return .ignore
        case .retryPending where serializerRetry:
            return .ignore
        case .retryPending:
            phase = .finishing
            return .finish(disarmRetry: true)
        case .attempting, .decidingRetry:
            phase = .finishing
            return .finish(disarmRetry: false)
        }
    }
}
