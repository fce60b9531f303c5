import Synchronization

/// A `Clock` on a simulated scheduler's virtual time.
///
/// `sleep` suspends the calling task until the simulation reaches the deadline (a timer on the
/// scheduler's ``SimulatedScheduler/clockQueue``), and ends early with `CancellationError` when
/// the task is cancelled. Because its `Duration` is `Swift.Duration`, it can be passed wherever code
/// takes `some Clock<Duration>`.
///
/// ```swift
/// let clock = SimulatedClock(scheduler: scheduler)
/// let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
/// // ... once the task has started sleeping:
/// try scheduler.advance(by: .seconds(60))   // the sleep ends; no real minute passes
/// ```
public struct SimulatedClock: Clock, Sendable {
    /// The clock's instants are the scheduler's.
    public typealias Instant = VirtualInstant
    /// Durations are Swift's.
    public typealias Duration = Swift.Duration

    /// The scheduler whose time this clock reads.
    public let scheduler: SimulatedScheduler

    /// A clock reading `scheduler`'s virtual time.
    public init(scheduler: SimulatedScheduler) {
        self.scheduler = scheduler
    }

    /// The scheduler's current virtual time.
    public var now: VirtualInstant { scheduler.now }

    /// One nanosecond: the scheduler's resolution.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the simulation reaches `deadline` (a timer on the scheduler, not a real sleep).
    public func sleep(until deadline: VirtualInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard sleeper.install(continuation) else { return }
                let handle = scheduler.clockQueue.asyncAfter(deadline: deadline, named: "clock.sleep") {
                    sleeper.finish(.success(()))
                }
                sleeper.attach(handle)
            }
        } onCancel: {
            sleeper.finish(.failure(CancellationError()))
        }
    }
}

/// The meeting point of a sleep's timer and its task's cancellation; whichever comes first wins.
private final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var outcome: Result<Void, any Error>?
        var handle: ScheduledWork?
    }

    private let state = Mutex(State())

    /// Returns false when the sleep already ended (cancelled before it started waiting).
    func install(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let early: Result<Void, any Error>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(with: early)
            return false
        }
        return true
    }

    func attach(_ handle: ScheduledWork) {
        let cancelled = state.withLock { state -> Bool in
            state.handle = handle
            return state.outcome != nil
        }
        if cancelled { handle.cancel() }
    }

    func finish(_ outcome: Result<Void, any Error>) {
        let (continuation, handle): (CheckedContinuation<Void, any Error>?, ScheduledWork?) = state.withLock { state in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            defer { state.continuation = nil }
            return (state.continuation, state.handle)
        }
        if case .failure = outcome { handle?.cancel() }
        continuation?.resume(with: outcome)
    }
}
