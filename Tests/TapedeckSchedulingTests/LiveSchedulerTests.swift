import Foundation
import Testing
import TapedeckScheduling

@Suite("Live scheduler keeps GCD's guarantees")
struct LiveSchedulerTests {
    @Test("the Session-shaped workload keeps FIFO, exclusion per root, deadlines and queue checks on real GCD")
    func workloadInvariantsOnGCD() throws {
        for _ in 0..<5 {
            let scheduler = LiveScheduler(violationPolicy: .record)
            let probe = WorkloadProbe()
            let trees = Workload(jobsPerQueue: 40).build(on: scheduler, probe: probe)
            try waitUntil { probe.executions.count == probe.submissionCount }
            #expect(probe.failures.isEmpty, "\(probe.failures.prefix(3))")
            #expect(probe.fifoViolation(setupImmediateOnly: true) == nil, "\(probe.fifoViolation(setupImmediateOnly: true) ?? "")")
            #expect(probe.maxActivePerRoot == 1)
            #expect(scheduler.violations.isEmpty)
            _ = trees
        }
    }

    @Test("code inside sync is on the target and on the caller's queue; sync onto a held root is a reported deadlock")
    func syncSemantics() throws {
        let scheduler = LiveScheduler(violationPolicy: .record)
        let root = scheduler.makeQueue(label: "live.root", target: nil)
        let request = scheduler.makeQueue(label: "live.request", target: root)
        let caller = scheduler.makeQueue(label: "live.caller", target: nil)
        let seen = Log<String>()
        let done = DispatchSemaphore(value: 0)
        caller.async {
            request.sync {
                seen.append("in sync: request=\(request.isCurrent) root=\(root.isCurrent) caller=\(caller.isCurrent)")
            }
            root.async {
                request.sync {}      // would deadlock on GCD: rootQueue is held by this very block
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.values == ["in sync: request=true root=true caller=true"])
        #expect(scheduler.violations.map(\.kind) == [.syncDeadlock])
        #expect(scheduler.violations.first?.runningOn == ["live.root"])
    }

    @Test("work URLSession-style code submits straight to the DispatchQueue is on the queue too")
    func directDispatchIsOnQueue() throws {
        let scheduler = LiveScheduler()
        let root = scheduler.makeLiveQueue(label: "live.root", target: nil)
        let child = scheduler.makeLiveQueue(label: "live.child", target: root)
        let seen = Log<[Bool]>()
        let group = DispatchGroup()
        group.enter()
        root.dispatchQueue.async {
            seen.append([root.isCurrent, child.isCurrent])
            group.leave()
        }
        group.enter()
        child.dispatchQueue.async {
            seen.append([root.isCurrent, child.isCurrent])
            group.leave()
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(seen.values == [[true, false], [true, true]])
    }

    @Test("a wrapped caller-supplied concurrent queue becomes serial")
    func wrappedConcurrentQueueIsSerial() throws {
        let scheduler = LiveScheduler()
        let supplied = DispatchQueue(label: "app.concurrent", attributes: .concurrent)
        let root = scheduler.makeQueue(wrapping: supplied)
        #expect(root.label == "app.concurrent")
        let probe = WorkloadProbe()
        let group = DispatchGroup()
        for _ in 0..<200 {
            group.enter()
            root.async {
                probe.enter(root: 0)
                for _ in 0..<100 { _ = root.isCurrent }
                probe.leave(root: 0)
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(probe.maxActivePerRoot == 1)
    }

    @Test("deadlines are never early on the live scheduler")
    func liveDeadlinesNotEarly() throws {
        let scheduler = LiveScheduler()
        let root = scheduler.makeQueue(label: "live.timer", target: nil)
        let lateness = Log<Int64>()
        let group = DispatchGroup()
        for ms in [1, 5, 10, 20] {
            group.enter()
            let deadline = scheduler.now.advanced(by: .milliseconds(ms))
            root.asyncAfter(deadline: deadline) {
                lateness.append(deadline.duration(to: scheduler.now).wholeNanoseconds)
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(lateness.values.allSatisfy { $0 >= 0 })
    }

    private func waitUntil(_ condition: () -> Bool) throws {
        for _ in 0..<10_000 where !condition() {
            usleep(1_000)
        }
        try #require(condition())
    }
}
