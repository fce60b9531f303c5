import Foundation
import HeapModule
import Synchronization

/// A single-threaded, deterministic scheduler on virtual time.
///
/// Everything that runs on its queues runs on the thread that drives it (``runUntilIdle(maxSteps:)``,
/// ``advance(by:maxSteps:)``, ``run(until:maxSteps:)``), one job at a time, in the total order
/// (virtual deadline, enqueue sequence). Where several root queues have work at the same instant,
/// a choice seeded by ``seed`` picks which runs next; seed ``fifoSeed`` always picks the oldest
/// job (plain FIFO). Nothing here reads the wall clock or sleeps, except the bounded real-time wait
/// for expected external callbacks (``expectExternal(_:patience:)``), which never decides order.
///
/// ```swift
/// let scheduler = SimulatedScheduler(seed: 7)
/// let root = scheduler.makeQueue(label: "session.rootQueue", target: nil)
/// let request = scheduler.makeQueue(label: "session.requestQueue", target: root)
/// request.asyncAfter(deadline: .zero.advanced(by: .seconds(60))) {
///     request.preconditionCurrent()   // also on root
/// }
/// try scheduler.runUntilIdle()        // a minute of virtual time, microseconds of real time
/// print(scheduler.now, scheduler.traceHash)
/// ```
public final class SimulatedScheduler: Scheduler, @unchecked Sendable {
    // @unchecked Sendable — ownership rules:
    // * "Owner-confined" state below is read and written only by the thread whose id is in `owner`:
    //   the driving thread during a run, or a thread that took ownership briefly (setup calls,
    //   inspection, a foreign `sync` that the driver handed ownership to). Ownership changes hands
    //   only under `condition`'s lock, which orders the memory accesses of successive owners.
    // * "Shared" state is guarded by `condition`'s lock; it is how other threads reach the simulation
    //   while it runs (expected external callbacks, untracked submissions, ownership requests).

    /// The seed that makes every choice of the root-picking stream.
    public let seed: UInt64
    /// The simulation's random sub-streams (the scheduler uses `"scheduler.roots"`).
    public let random: SimulationRandom
    /// Whether a broken queue rule traps or is recorded in ``violations``.
    public let violationPolicy: ViolationPolicy
    /// How long, in real time, the scheduler waits for expected external callbacks before failing.
    public let externalWaitLimit: Duration
    /// Whether every trace step is kept or only the running hash.
    public let traceMode: TraceMode

    /// The seed under which the next job is always the oldest ready one (plain FIFO).
    public static let fifoSeed: UInt64 = 0

    // MARK: Owner-confined state
    // Only the owner thread touches these, and never across the execution of a job (a job may call
    // back into the scheduler), so accesses cannot overlap; dynamic exclusivity checks are off for
    // the ones on the per-job path, where they cost more than the rest of a step.
    @exclusivity(unchecked) var nowNanos: Int64 = 0
    @exclusivity(unchecked) var nextSeq: UInt64 = 1
    @exclusivity(unchecked) var readyRoots: [ReadyRoot] = []
    @exclusivity(unchecked) var spares = JobSegmentPool()
    @exclusivity(unchecked) var frames: [Frame] = []
    @exclusivity(unchecked) var recorder: TraceRecorder
    @exclusivity(unchecked) var executedSteps = 0
    var timers = Heap<TimerEntry>()
    var rootChooser: SeededGenerator
    /// Recording or replaying choices between ready roots (see ``RootChoiceSource``).
    var choices: RootChoices
    /// True for ``RootChoiceSource/seeded``: the hot path skips ``RootChoices``.
    let choicesAreSeededOnly: Bool
    /// Called on the owner thread at every quiescent point (see ``addQuiescenceHook(_:)``).
    var quiescenceHooks: [() -> Void] = []
    /// Queues made so far (their creation numbers).
    var queueCount = 0
    /// Set while one of the run methods is active on the owner thread.
    var isDriving = false
    /// Set once by ``end()``: from then on every submission and arrival is dropped.
    let ended = Atomic<Bool>(false)

    // MARK: Shared state (guarded by `condition`)
    let condition = NSCondition()
    let owner = Atomic<UInt>(0)
    /// Published copy of `nowNanos`, so any thread can read the time.
    let publishedNow = Atomic<Int64>(0)
    var ownerIsDriving = false
    var nextTicket: UInt64 = 1
    var outstanding: [UInt64: String] = [:]
    /// The real-time waits outstanding expectations of live work asked for (a recording's network
    /// call, whose arrival time is the network's, not the simulation's): its keys are the live ones.
    var patience: [UInt64: Duration] = [:]
    /// Asked on the owner thread while only live calls are awaited (``whileAwaitingLiveCalls``).
    var liveWaitHook: (@Sendable () -> Bool)?
    /// Live calls that have answered but are not yet taken in: they go in in the order they were
    /// expected, whatever order they answered in.
    var liveArrived: Set<UInt64> = []
    /// Bumped by ``wakeExternalWait()``: a wake that came while the hook ran is not lost.
    var wakeCount: UInt64 = 0
    var arrivals: [UInt64: Arrival] = [:]
    var inbox: [InboxItem] = []
    var ownershipRequests: [OwnershipRequest] = []
    var pending: [UInt64: PendingRecord] = [:]
    var nextPendingID: UInt64 = 1
    var externalDiagnostics: [String] = []
    /// Names of jobs submitted from foreign threads while a driver ran (one diagnostic each).
    var foreignJobNames: Set<String> = []
    var recordedViolations: [QueueViolation] = []
    var untrackedSubmissions = 0
    /// Called when work another thread submitted is in place and no run will take it in (see
    /// ``addOutsideWorkHook(_:)``). Guarded by `condition`.
    var outsideWorkHooks: [@Sendable () -> Void] = []
    var externalRounds = 0

    private var clockQueueStorage: SimulatedQueue?

    /// The root queue on which ``SimulatedClock`` runs its timers.
    public var clockQueue: SimulatedQueue { clockQueueStorage! }

    /// - Parameters:
    ///   - seed: decides the interleaving of root queues ready at the same instant; ``fifoSeed`` for FIFO.
    ///   - traceMode: `.full` keeps every step (needed to locate a divergence); `.hashOnly` is cheaper.
    ///   - violationPolicy: `.trap` (default) stops on a broken queue rule; `.record` lets a test see it.
    ///   - externalWaitLimit: the real-time bound on waiting for an expected external callback.
    ///   - choices: seeded choices between ready roots (default), recorded too, or replayed from a list.
    public init(
        seed: UInt64 = fifoSeed,
        traceMode: TraceMode = .full,
        violationPolicy: ViolationPolicy = .trap,
        externalWaitLimit: Duration = .seconds(10),
        choices: RootChoiceSource = .seeded
    ) {
        self.choices = RootChoices(choices)
        self.choicesAreSeededOnly = choices == .seeded
        self.seed = seed
        self.random = SimulationRandom(seed: seed)
        self.traceMode = traceMode
        self.violationPolicy = violationPolicy
        self.externalWaitLimit = externalWaitLimit
        self.recorder = TraceRecorder(mode: traceMode)
        self.rootChooser = random.stream("scheduler.roots")
        self.clockQueueStorage = SimulatedQueue(label: "tapedeck.clock", parent: nil, scheduler: self, id: 0, ownedByScheduler: true)
        self.queueCount = 1
    }

    // MARK: Scheduler

    /// The current virtual time.
    public var now: VirtualInstant {
        VirtualInstant(nanoseconds: publishedNow.load(ordering: .relaxed))
    }

    /// A new serial queue of this scheduler (see ``makeSimulatedQueue(label:target:)``).
    public func makeQueue(label: String, target: (any SchedulerQueue)?) -> SimulatedQueue {
        makeSimulatedQueue(label: label, target: target)
    }

    /// A new serial queue; with a target (a queue of this scheduler) its work drains through it.
    public func makeSimulatedQueue(label: String, target: (any SchedulerQueue)?) -> SimulatedQueue {
        let parent: SimulatedQueue?
        if let target {
            guard let simulated = target as? SimulatedQueue, simulated.scheduler === self else {
                fatalError("tapedeck: queue '\(label)' cannot target '\(target.label)': it belongs to another scheduler")
            }
            parent = simulated
        } else {
            parent = nil
        }
        return asOwner {
            defer { queueCount += 1 }
            return SimulatedQueue(label: label, parent: parent, scheduler: self, id: queueCount)
        }
    }

    /// Adds `event` with `payload` to the trace, as part of the job running now (from another thread,
    /// it is queued and added in order).
    public func record(_ event: String, _ payload: String) {
        guard isOwnerThread else {
            submitForeign(.record(event: event, payload: payload))
            return
        }
        let frame = frames.last
        recorder.record(
            time: nowNanos, queue: frame?.queue.label ?? "", queueDigest: frame?.queue.labelDigest ?? TraceRecorder.emptyDigest,
            job: frame?.job ?? 0, event: event, payload: payload)
    }

    /// Violations recorded so far (with ``ViolationPolicy/record``).
    public var violations: [QueueViolation] {
        condition.lock(); defer { condition.unlock() }
        return recordedViolations
    }

    // MARK: Inspection (call while the simulation is not being driven by another thread)

    /// Every step so far (empty in `.hashOnly` mode).
    public var trace: [TraceStep] {
        asOwner { recorder.steps }
    }

    /// The running hash of the trace; equal hashes mean equal traces (see docs/scheduling.md).
    public var traceHash: TraceHash {
        asOwner { recorder.hash }
    }

    /// Number of steps recorded in the trace (jobs, sync blocks, events).
    public var traceCount: Int {
        asOwner { recorder.count }
    }

    /// The choices between ready roots FIFO would not have made, in order (when recording or
    /// replaying; empty with ``RootChoiceSource/seeded``).
    public var recordedChoices: [SchedulingChoice] {
        asOwner { choices.recorded }
    }

    /// Number of jobs executed so far.
    public var jobsExecuted: Int {
        asOwner { executedSteps }
    }

    /// The job running on the calling thread's innermost frame, if any.
    public var currentJob: UInt64? {
        guard isOwnerThread else { return nil }
        return frames.last?.job
    }

    /// The deadline of the earliest timer not cancelled, if any: when a driver that paces virtual
    /// time on the wall clock (the bridge's serving mode) has to run next.
    public var nextTimerDeadline: VirtualInstant? {
        asOwner {
            timers.unordered.lazy.filter { !$0.job.isCancelled }.map(\.deadline).min()
                .map { VirtualInstant(nanoseconds: $0) }
        }
    }

    /// Jobs waiting for a future deadline (cancelled timers excluded).
    public var scheduledTimerCount: Int {
        asOwner { timers.unordered.count { !$0.job.isCancelled } }
    }

    /// Submissions that reached the simulation from other threads without an expectation; their
    /// position in the order depends on thread timing (see ``expectExternal(_:patience:)``).
    public var untrackedSubmissionCount: Int {
        condition.lock(); defer { condition.unlock() }
        return untrackedSubmissions
    }

    /// How many times the driver took in expected external callbacks. All callbacks caused while
    /// the simulation ran up to a quiescent point are taken in together, in one round.
    public var externalRoundCount: Int {
        condition.lock(); defer { condition.unlock() }
        return externalRounds
    }

    /// Problems seen at the boundary with other threads: duplicate or unexpected arrivals.
    public var externalDiagnosticMessages: [String] {
        condition.lock(); defer { condition.unlock() }
        return externalDiagnostics
    }

    /// What came in from threads the simulation does not own while it ran, so that thread timing
    /// placed it among the simulation's steps: the reasons a rerun with the same seed may differ
    /// (empty: none). Work put on a simulated queue from such a thread (an app's own queue calling
    /// a completion handler), once per job name, and expectations registered from one.
    ///
    /// ```swift
    /// let reasons = scheduler.threadTimingDiagnostics
    /// if !reasons.isEmpty { print("may vary between runs:", reasons) }
    /// ```
    public var threadTimingDiagnostics: [String] {
        externalDiagnosticMessages.filter {
            $0.contains("registered from another thread") || $0.contains("submitted from a thread the simulation does not own")
        }
    }
}
