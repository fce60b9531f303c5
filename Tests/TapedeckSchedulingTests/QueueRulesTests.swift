import Testing
import TapedeckScheduling

@Suite("Simulated scheduler: targeting, on-queue checks and sync")
struct QueueRulesTests {
    /// A Session-shaped tree: rootQueue; requestQueue and serializationQueue targeting it.
    struct SessionQueues {
        let root: any SchedulerQueue
        let request: any SchedulerQueue
        let serialization: any SchedulerQueue

        init(_ scheduler: any Scheduler, label: String = "org.tapedeck.session") {
            root = scheduler.makeQueue(label: "\(label).rootQueue", target: nil)
            request = scheduler.makeQueue(label: "\(label).requestQueue", target: root)
            serialization = scheduler.makeQueue(label: "\(label).serializationQueue", target: root)
        }
    }

    @Test("work on requestQueue is also on rootQueue, never on serializationQueue")
    func targetingFollowsGCD() throws {
        let scheduler = SimulatedScheduler()
        let session = SessionQueues(scheduler)
        let seen = Log<[Bool]>()
        session.request.async {
            seen.append([session.request.isCurrent, session.root.isCurrent, session.serialization.isCurrent])
        }
        session.root.async {
            seen.append([session.request.isCurrent, session.root.isCurrent, session.serialization.isCurrent])
        }
        try scheduler.runUntilIdle()
        #expect(seen.values == [[true, true, false], [false, true, false]])
        #expect(!session.root.isCurrent, "the test thread is on no simulated queue")
    }

    @Test("a failed on-queue check names the expected and the actual queues, and a test can see it")
    func failedCheckIsObservable() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let session = SessionQueues(scheduler)
        session.serialization.async {
            session.request.preconditionCurrent()
            session.root.preconditionCurrent()          // holds: serialization targets root
            session.root.preconditionNotCurrent()       // fails
        }
        try scheduler.runUntilIdle()
        let violations = scheduler.violations
        #expect(violations.count == 2)
        #expect(violations.first?.kind == .notOnQueue)
        #expect(violations.first?.queue == "org.tapedeck.session.requestQueue")
        #expect(violations.first?.runningOn == ["org.tapedeck.session.serializationQueue", "org.tapedeck.session.rootQueue"])
        let message = violations.first?.description ?? ""
        #expect(message.contains("expected to run on 'org.tapedeck.session.requestQueue'"))
        #expect(message.contains("QueueRulesTests.swift"))
        #expect(violations.last?.kind == .unexpectedlyOnQueue)
        #expect(scheduler.trace.contains { $0.event == "violation" }, "violations are part of the trace")
    }

    @Test("Moya's requestQueue.sync setup runs before the setup the Session queued asynchronously")
    func syncRunsBeforeLaterAsyncWork() throws {
        // Given a session tree, work already queued on its root, and a caller on another root
        let scheduler = SimulatedScheduler()
        let session = SessionQueues(scheduler)
        let caller = scheduler.makeQueue(label: "app.main", target: nil)
        let log = Log<String>()
        caller.async {
            session.root.async { log.append("queued earlier on rootQueue") }
            // When the caller creates a request inside requestQueue.sync, and creating it queues
            // the Session's own setup on requestQueue
            session.request.sync {
                session.root.async { session.request.async { log.append("session setup") } }
                session.request.async { log.append("session setup (direct)") }
                log.append("moya configures the request")
                #expect(session.request.isCurrent && session.root.isCurrent && caller.isCurrent)
            }
            log.append("sync returned")
        }
        try scheduler.runUntilIdle()
        // Then: earlier work first (GCD's FIFO), then the sync block, then what it queued
        #expect(log.values == [
            "queued earlier on rootQueue", "moya configures the request", "sync returned",
            "session setup (direct)", "session setup",
        ])
    }

    @Test("sync onto the queue (or root) already held is reported as the deadlock it would be")
    func syncOntoHeldHierarchyIsADeadlock() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let session = SessionQueues(scheduler)
        session.root.async {
            session.request.sync { }            // requestQueue needs rootQueue, which this job holds
        }
        session.request.async {
            session.request.sync { }            // the queue itself
        }
        session.serialization.async {
            let other = session.root
            other.sync { }                      // the root of the queue it runs on
        }
        try scheduler.runUntilIdle()
        let kinds = scheduler.violations.map(\.kind)
        #expect(kinds == [.syncDeadlock, .syncDeadlock, .syncDeadlock])
        let first = scheduler.violations[0].description
        #expect(first.contains("deadlock"))
        #expect(first.contains("sync onto 'org.tapedeck.session.requestQueue'"))
        #expect(first.contains("'org.tapedeck.session.rootQueue'"))
    }

    @Test("sync from the test thread runs the work queued ahead of it first, then returns its value")
    func syncFromOutsideRunsAheadWork() throws {
        let scheduler = SimulatedScheduler()
        let session = SessionQueues(scheduler)
        let log = Log<String>()
        session.request.async { log.append("ahead") }
        session.request.asyncAfter(deadline: .zero.advanced(by: .seconds(1))) { log.append("timer") }
        let value = session.request.sync { () -> Int in
            log.append("sync")
            return 42
        }
        #expect(value == 42)
        #expect(log.values == ["ahead", "sync"])
        try scheduler.runUntilIdle()
        #expect(log.values == ["ahead", "sync", "timer"])
    }

    @Test("sync rethrows the block's error")
    func syncRethrows() {
        struct Boom: Error {}
        let scheduler = SimulatedScheduler()
        let queue = scheduler.makeQueue(label: "q", target: nil)
        #expect(throws: Boom.self) { try queue.sync { throw Boom() } }
    }

    @Test("a caller-supplied root is wrapped in a serial queue with the same label that targets it")
    func suppliedRootIsWrapped() throws {
        let scheduler = SimulatedScheduler()
        let supplied = scheduler.makeQueue(label: "app.network", target: nil)
        let wrapper = scheduler.makeQueue(wrapping: supplied)
        #expect(wrapper !== supplied)
        #expect(wrapper.label == "app.network")
        #expect(wrapper.target === supplied)
        let seen = Log<Bool>()
        wrapper.async { seen.append(supplied.isCurrent) }
        supplied.async { seen.append(wrapper.isCurrent) }
        try scheduler.runUntilIdle()
        #expect(seen.values == [true, false])
    }

    @Test("by default a violation stops the process with its description")
    func trapIsDefault() async {
        await #expect(processExitsWith: .failure) {
            let scheduler = SimulatedScheduler()
            let root = scheduler.makeQueue(label: "root", target: nil)
            root.async { root.sync {} }
            _ = try? scheduler.runUntilIdle()
        }
    }

    @Test("jobs that a sync runs ahead of itself are not on the sync caller's queues")
    func drainedAheadJobsRunOnTheirOwnThread() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let a = scheduler.makeQueue(label: "a", target: nil)
        let b = scheduler.makeQueue(label: "b", target: nil)
        let seen = Log<[Bool]>()
        a.async {
            b.async { seen.append([a.isCurrent, b.isCurrent]) }   // queued ahead of the sync below
            b.sync { seen.append([a.isCurrent, b.isCurrent]) }    // the caller stays on a
        }
        try scheduler.runUntilIdle()
        #expect(seen.values == [[false, true], [true, true]])
        #expect(scheduler.violations.isEmpty)
    }

    @Test("a sibling queue and a root reached through nested syncs are deadlocks too")
    func nestedDeadlocks() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let first = SessionQueues(scheduler, label: "one")
        let second = SessionQueues(scheduler, label: "two")
        first.request.async {
            first.serialization.sync {}                          // sibling: needs one.rootQueue, held
        }
        first.request.async {
            second.request.sync {                                // fine: another tree
                first.serialization.sync {}                      // one.rootQueue is still held below
            }
        }
        try scheduler.runUntilIdle()
        #expect(scheduler.violations.map(\.kind) == [.syncDeadlock, .syncDeadlock])
        #expect(scheduler.violations.map(\.queue) == ["one.serializationQueue", "one.serializationQueue"])
        #expect(scheduler.violations[1].runningOn == ["two.requestQueue", "two.rootQueue", "one.requestQueue", "one.rootQueue"])
    }

    @Test("a simulated scheduler and its queues are freed when nobody holds them")
    func schedulerIsFreed() throws {
        weak var weakScheduler: SimulatedScheduler?
        weak var weakQueue: SimulatedQueue?
        do {
            let scheduler = SimulatedScheduler()
            let queue = scheduler.makeSimulatedQueue(label: "q", target: nil)
            queue.async {}
            try scheduler.runUntilIdle()
            weakScheduler = scheduler
            weakQueue = queue
        }
        #expect(weakScheduler == nil)
        #expect(weakQueue == nil)
    }
}
