import Dispatch
import Foundation
import Testing
import TapedeckScheduling

@Suite("Simulated scheduler: expected work from other threads")
struct ExternalWorkTests {
    /// Registers `count` expectations from a job, then lets real threads deliver them after random
    /// real-time delays, in whatever order the threads happen to finish.
    private func runScatteredArrivals(count: Int, seed: UInt64) throws -> (order: [Int], hash: TraceHash) {
        let scheduler = SimulatedScheduler(seed: seed)
        let root = scheduler.makeSimulatedQueue(label: "client.rootQueue", target: nil)
        let log = Log<Int>()
        root.async {
            for i in 0..<count {
                let expectation = scheduler.expectExternal("callback \(i)")
                DispatchQueue.global().async {
                    usleep(UInt32.random(in: 0...3_000))         // real thread timing, deliberately random
                    expectation.arrive(on: root, named: "callback") { log.append(i) }
                }
            }
        }
        try scheduler.runUntilIdle()
        return (log.values, scheduler.traceHash)
    }

    @Test("arrivals are taken in expectation order, never arrival order, so every run is identical")
    func arrivalsFollowTheLedger() throws {
        var hashes = Set<TraceHash>()
        for _ in 0..<20 {
            let run = try runScatteredArrivals(count: 12, seed: 5)
            #expect(run.order == Array(0..<12))
            hashes.insert(run.hash)
        }
        #expect(hashes.count == 1)
    }

    @Test("an expectation that never arrives fails after the bounded wait, naming it")
    func missingArrivalTimesOut() throws {
        let scheduler = SimulatedScheduler(externalWaitLimit: .milliseconds(200))
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        root.asyncAfter(delay: .seconds(2)) {
            _ = scheduler.expectExternal("didCompleteWithError for exchange #4")
        }
        let error = #expect(throws: SimulationError.self) { try scheduler.runUntilIdle() }
        guard case let .externalWorkTimedOut(report)? = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(report.missing.map(\.label) == ["didCompleteWithError for exchange #4"])
        #expect(report.time == .zero.advanced(by: .seconds(2)))
        #expect(report.description.contains("never arrived: #1 didCompleteWithError for exchange #4"))
    }

    @Test("an expectation with patience is waited for beyond the scheduler's limit; without it the wait times out")
    func patience() throws {
        for patient in [true, false] {
            let scheduler = SimulatedScheduler(externalWaitLimit: .milliseconds(50))
            let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
            let log = Log<String>()
            root.async {
                let expectation = scheduler.expectExternal("a live answer", patience: patient ? .seconds(20) : nil)
                DispatchQueue.global().async {
                    usleep(300_000)   // a slow live server: six times the scheduler's own limit
                    expectation.arrive(on: root, named: "answer") { log.append("answered") }
                }
            }
            if patient {
                try scheduler.runUntilIdle()
                #expect(log.values == ["answered"])
            } else {
                #expect(throws: SimulationError.self) { try scheduler.runUntilIdle() }
            }
        }
    }

    @Test("a withdrawn expectation is not waited for; a late or second arrival is ignored and reported")
    func withdrawAndDuplicates() throws {
        let scheduler = SimulatedScheduler(externalWaitLimit: .seconds(5))
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let log = Log<String>()
        root.async {
            let withdrawn = scheduler.expectExternal("stopLoading (task finished first)")
            withdrawn.cancel()
            let once = scheduler.expectExternal("response")
            once.arrive(on: root) { log.append("response") }
            once.arrive(on: root) { log.append("response again") }
            withdrawn.arrive(on: root) { log.append("late stop") }
        }
        try scheduler.runUntilIdle()
        #expect(log.values == ["response"])
        #expect(scheduler.externalDiagnosticMessages.count == 2)
        #expect(scheduler.externalDiagnosticMessages[0].contains("#2 response ignored: already arrived"))
    }

    @Test("work a foreign thread submits while the simulation runs (an app's own queue calling a completion) is run, and named as thread timing")
    func foreignSubmissionWhileDrivingIsReported() throws {
        let scheduler = SimulatedScheduler(seed: 3)
        let root = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
        let log = Log<String>()
        root.async(named: "ask") {
            // The job hands its completion to a thread of the app's and waits until that thread
            // has submitted: the submission surely lands while the driver runs.
            let submitted = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                root.async(named: "retryResult") { log.append("answer") }
                root.async(named: "retryResult") { log.append("second answer") }
                submitted.signal()
            }
            submitted.wait()
        }
        try scheduler.runUntilIdle()
        #expect(log.values == ["answer", "second answer"])
        let reports = scheduler.externalDiagnosticMessages
        #expect(reports == ["'retryResult' on app.rootQueue was submitted from a thread the simulation does not own while it ran "
            + "(a completion handler called from the app's own queue or thread, say): its place in the order depends on thread timing"],
                "one line per job name: \(reports)")
    }

    @Test("work submitted from the simulation's own jobs is not reported")
    func ownSubmissionsAreNotReported() throws {
        let scheduler = SimulatedScheduler(seed: 3)
        let root = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
        root.async(named: "ask") { root.async(named: "retryResult") {} }
        try scheduler.runUntilIdle()
        #expect(scheduler.externalDiagnosticMessages.isEmpty)
    }

    @Test("a foreign thread's sync while the driver waits is served at the quiescent point")
    func foreignSyncIsServed() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let log = Log<String>()
        root.async {
            let expectation = scheduler.expectExternal("after foreign sync")
            Thread.detachNewThread {
                root.sync {
                    log.append("foreign sync on root: \(root.isCurrent)")
                }
                expectation.arrive(on: root) { log.append("arrival") }
            }
        }
        try scheduler.runUntilIdle()
        #expect(log.values == ["foreign sync on root: true", "arrival"])
    }

    @Test("a burst of callbacks caused before a quiescent point costs one wait")
    func burstIsOneRound() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let log = Log<Int>()
        root.async {
            for i in 0..<50 {
                let expectation = scheduler.expectExternal("callback \(i)")
                DispatchQueue.global().async { expectation.arrive(on: root) { log.append(i) } }
            }
        }
        try scheduler.runUntilIdle()
        #expect(log.values == Array(0..<50))
        #expect(scheduler.externalRoundCount == 1)
    }

    @Test("after a foreign sync the thread no longer owns the simulation")
    func foreignSyncHandsOwnershipBack() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let log = Log<String>()
        root.async {
            let expectation = scheduler.expectExternal("after foreign sync")
            Thread.detachNewThread {
                root.sync { log.append("inside: owner=\(scheduler.isCurrentThreadOwner)") }
                log.append("after: owner=\(scheduler.isCurrentThreadOwner)")
                expectation.arrive(on: root) { log.append("arrival") }
            }
        }
        try scheduler.runUntilIdle()
        #expect(log.values == ["inside: owner=true", "after: owner=false", "arrival"])
    }

    @Test("a foreign sync asked for while a run ends is not left waiting")
    func ownershipRequestOutlivesTheRun() throws {
        let scheduler = SimulatedScheduler(traceMode: .hashOnly)
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let other = scheduler.makeSimulatedQueue(label: "other", target: nil)
        let done = DispatchSemaphore(value: 0)
        @Sendable func spin() { root.async { spin() } }
        root.async {
            Thread.detachNewThread {
                other.sync {}
                done.signal()
            }
            spin()
        }
        // The run never reaches a quiescent point, so it never serves the request; it ends by its step limit.
        #expect(throws: SimulationError.self) { try scheduler.runUntilIdle(maxSteps: 300_000) }
        #expect(done.wait(timeout: .now() + 10) == .success)
    }

    @Test("work submitted from another thread without an expectation still runs, and is counted")
    func untrackedSubmissionsAreCounted() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let log = Log<String>()
        root.async {
            let ack = scheduler.expectExternal("ack")
            DispatchQueue.global().async {
                root.async { log.append("untracked") }
                ack.arrive()
            }
        }
        try scheduler.runUntilIdle()
        #expect(log.values == ["untracked"])
        #expect(scheduler.untrackedSubmissionCount == 1)
    }

    @Test("work another thread submits while no run is in progress calls the outside-work hooks, once per submission; the owner's own does not")
    func outsideWorkHooks() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let calls = Log<String>()
        scheduler.addOutsideWorkHook { calls.append("woken") }
        // From this (non-driving) thread, with nothing running: an async and a timer.
        root.async { calls.append("ran async") }
        root.asyncAfter(deadline: scheduler.now.advanced(by: .seconds(60)), named: "timer") { calls.append("ran timer") }
        #expect(calls.values == ["woken", "woken"], "each submission wakes whoever serves the simulation")
        try scheduler.runUntilIdle()
        #expect(calls.values == ["woken", "woken", "ran async", "ran timer"], "work the run itself submits wakes nobody")
        // From inside a job (the owner): no hook.
        root.async { root.async { calls.append("nested") } }
        try scheduler.runUntilIdle()
        #expect(calls.values.filter { $0 == "woken" }.count == 3 && calls.values.last == "nested")
    }
}
