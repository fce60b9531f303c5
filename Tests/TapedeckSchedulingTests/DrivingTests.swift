import Foundation
import Synchronization
import Testing
import TapedeckScheduling

@Suite("Simulated scheduler: driving, virtual time and stalls")
struct DrivingTests {
    @Test("a minute of backoff is a minute of virtual time and no real time")
    func backoffCostsNoWallTime() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "root", target: nil)
        let times = Log<VirtualInstant>()
        root.asyncAfter(delay: .seconds(60)) { times.append(root.now) }
        let summary = try scheduler.runUntilIdle()
        #expect(times.values == [.zero.advanced(by: .seconds(60))])
        #expect(summary.end == .zero.advanced(by: .seconds(60)))
        #expect(summary.jobs == 1)
    }

    @Test("advance(by:) runs what is due, leaves later work, and lands exactly on the target instant")
    func advanceRunsOnlyDueWork() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "root", target: nil)
        let log = Log<String>()
        root.asyncAfter(delay: .seconds(1)) { log.append("1s") }
        root.asyncAfter(delay: .milliseconds(2500)) { log.append("2.5s") }
        try scheduler.advance(by: .seconds(2))
        #expect(log.values == ["1s"])
        #expect(scheduler.now == .zero.advanced(by: .seconds(2)))
        try scheduler.advance(by: .milliseconds(500))
        #expect(log.values == ["1s", "2.5s"])
        try scheduler.run(until: .zero.advanced(by: .seconds(10)))
        #expect(scheduler.now == .zero.advanced(by: .seconds(10)))
    }

    @Test("runReady runs what is due now and never moves the clock")
    func runReadyKeepsTime() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "root", target: nil)
        let log = Log<String>()
        root.async { log.append("now") }
        root.asyncAfter(delay: .nanoseconds(1)) { log.append("later") }
        try scheduler.runReady()
        #expect(log.values == ["now"])
        #expect(scheduler.now == .zero)
        #expect(scheduler.scheduledTimerCount == 1)
    }

    @Test("a cancelled timer neither runs nor drags the clock to its deadline")
    func cancelledTimerDoesNotMoveTime() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "root", target: nil)
        let log = Log<String>()
        let timeout = root.asyncAfter(delay: .seconds(60)) { log.append("timeout") }
        root.asyncAfter(delay: .seconds(30)) {
            log.append("response")
            timeout.cancel()
        }
        try scheduler.runUntilIdle()
        #expect(log.values == ["response"])
        #expect(scheduler.now == .zero.advanced(by: .seconds(30)))
    }

    @Test("a far-away timer is not a stall; unresolved pending work is, and the report names it")
    func stallNamesPendingWork() throws {
        // Given work that will complete an hour from now, and work nobody will ever complete
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "org.tapedeck.session.rootQueue", target: nil)
        let response = scheduler.beginPending("GET /slow awaiting its response")
        root.asyncAfter(delay: .seconds(3600)) { response.resolve() }
        let orphan = scheduler.beginPending("GET /never awaiting its response")
        root.async { root.asyncAfter(delay: .seconds(1)) {} }

        // When the simulation runs dry
        let error = #expect(throws: SimulationError.self) { try scheduler.runUntilIdle() }

        // Then only the orphan is reported, by name, with the time and the last steps
        guard case let .stalled(report)? = error else {
            Issue.record("expected a stall, got \(String(describing: error))")
            return
        }
        #expect(report.pending.map(\.label) == ["GET /never awaiting its response"])
        #expect(report.time == .zero.advanced(by: .seconds(3600)))
        let message = report.description
        #expect(message.contains("simulation stalled at t=3600s"))
        #expect(message.contains("GET /never awaiting its response (pending since t=0s)"))
        #expect(message.contains("org.tapedeck.session.rootQueue"))
        #expect(!message.contains("GET /slow"))

        // And once resolved, the simulation is idle without complaint
        orphan.resolve()
        try scheduler.runUntilIdle()
    }

    @Test("a continuation nobody resumes is reported as a stall")
    func unresumedContinuationStalls() async throws {
        let scheduler = SimulatedScheduler()
        let keeper = Keeper<PendingContinuation<Int>>()
        let waiter = Task {
            await scheduler.withPendingContinuation("token refresh result") { (continuation: PendingContinuation<Int>) in
                keeper.value = continuation
            }
        }
        while keeper.value == nil { await Task.yield() }     // the test's own hand-off, not the scheduler's
        let error = #expect(throws: SimulationError.self) { try scheduler.runUntilIdle() }
        guard case let .stalled(report)? = error else {
            Issue.record("expected a stall, got \(String(describing: error))")
            return
        }
        #expect(report.pending.map(\.label) == ["token refresh result"])
        #expect(scheduler.pendingLabels == ["token refresh result"])
        keeper.value?.resume(returning: 7)
        #expect(scheduler.pendingLabels.isEmpty)
        try scheduler.runUntilIdle()
        #expect(await waiter.value == 7)
    }

    @Test("work that reschedules itself forever hits the step limit with a clear message")
    func stepLimit() throws {
        let scheduler = SimulatedScheduler(traceMode: .hashOnly)
        let root = scheduler.makeQueue(label: "root", target: nil)
        @Sendable func tick() { root.asyncAfter(delay: .seconds(1)) { tick() } }
        root.async { tick() }
        let error = #expect(throws: SimulationError.self) { try scheduler.runUntilIdle(maxSteps: 1_000) }
        #expect(String(describing: error!).contains("ran 1000 jobs without becoming idle"))
    }
}

/// A box the test fills from another task.
final class Keeper<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLockLike()
    private var stored: T?

    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Something a job captures, to see when the scheduler lets go of it.
private final class Captured: Sendable {}

/// Submits work holding `captured` from the calling thread; nothing of it outlives the call.
private func submitForeign(_ captured: Captured?, to queue: SimulatedQueue, log: Log<String>) {
    queue.async { withExtendedLifetime(captured) { log.append("foreign") } }
}

@Suite("Simulated scheduler: ending a simulation")
struct EndingTests {
    @Test("end() drops ready and timed jobs unrun, frees what they held, and the abandoned scheduler is freed")
    func endDropsPendingWorkAndFreesTheSimulation() throws {
        // Given a simulation left with work pending: a ready job, a timer, each holding an object.
        weak var weakScheduler: SimulatedScheduler?
        weak var weakReady: Captured?
        weak var weakTimed: Captured?
        let ran = Log<String>()
        do {
            let scheduler = SimulatedScheduler()
            let root = scheduler.makeQueue(label: "root", target: nil)
            let child = scheduler.makeQueue(label: "child", target: root)
            let ready = Captured()
            let timed = Captured()
            child.async { withExtendedLifetime(ready) { ran.append("ready") } }
            root.asyncAfter(delay: .seconds(30)) { withExtendedLifetime(timed) { ran.append("timed") } }
            weakScheduler = scheduler
            weakReady = ready
            weakTimed = timed
            // When it ends.
            scheduler.end()
            #expect(scheduler.hasEnded)
            #expect(scheduler.scheduledTimerCount == 0)
        }
        // Then nothing ran, what the jobs held is gone, and so is the scheduler (pending work no
        // longer ties it to its queues).
        #expect(ran.values.isEmpty)
        #expect(weakReady == nil)
        #expect(weakTimed == nil)
        #expect(weakScheduler == nil)
    }

    @Test("without end(), pending work keeps an abandoned simulation alive (why end() exists)")
    func pendingWorkKeepsTheSimulation() throws {
        weak var weakScheduler: SimulatedScheduler?
        do {
            let scheduler = SimulatedScheduler()
            scheduler.makeQueue(label: "root", target: nil).asyncAfter(delay: .seconds(1)) {}
            weakScheduler = scheduler
        }
        #expect(weakScheduler != nil)
        weakScheduler?.end()
        #expect(weakScheduler == nil)
    }

    @Test("after end(), submissions from the owner or another thread and expected arrivals are dropped")
    func submissionsAfterEndAreDropped() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "root", target: nil)
        let ticket = scheduler.expectExternal("a late callback")
        scheduler.end()
        weak var weakLate: Captured?
        let ran = Log<String>()
        do {
            let late = Captured()
            weakLate = late
            root.async { withExtendedLifetime(late) { ran.append("owner") } }
            // The other thread gets its object through a slot it empties, so that the thread
            // object (which outlives the signal) never holds it.
            let slot = Mutex<Captured?>(late)
            let submitted = DispatchSemaphore(value: 0)
            Thread {
                submitForeign(slot.withLock { $0.take() }, to: root, log: ran)
                submitted.signal()
            }.start()
            submitted.wait()
            ticket.arrive(on: root) { withExtendedLifetime(late) { ran.append("arrival") } }
        }
        try scheduler.runUntilIdle()
        #expect(ran.values.isEmpty)
        #expect(weakLate == nil)
        #expect(scheduler.outstandingExpectationCount == 0)
    }
}
