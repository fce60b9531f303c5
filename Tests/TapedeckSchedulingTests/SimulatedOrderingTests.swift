import Testing
import TapedeckScheduling

@Suite("Simulated scheduler: ordering properties over many seeds")
struct SimulatedOrderingTests {
    @Test("per-queue FIFO, one job per root at a time, deadlines exact, queue checks hold — 300 seeds")
    func invariantsHoldForEverySeed() throws {
        for seed in UInt64(0)..<300 {
            // Given a Session-shaped workload of 3 roots × 3 queues with tied timers and hops
            let scheduler = SimulatedScheduler(seed: seed, traceMode: .hashOnly)
            let probe = WorkloadProbe()
            Workload().build(on: scheduler, probe: probe)

            // When it runs to the end
            try scheduler.runUntilIdle()

            // Then every invariant holds
            #expect(probe.failures.isEmpty, "seed \(seed): \(probe.failures.prefix(3))")
            #expect(probe.fifoViolation() == nil, "seed \(seed): \(probe.fifoViolation() ?? "")")
            #expect(probe.maxActivePerRoot == 1, "seed \(seed): a root ran two jobs at once")
            #expect(probe.executions.count == probe.submissionCount, "seed \(seed): lost or duplicated jobs")
            #expect(probe.executions.contains { $0.ticket.isTimer }, "seed \(seed): the workload ran no timer")
            for execution in probe.executions where execution.ticket.isTimer {
                #expect(execution.time == execution.ticket.effectiveDeadline, "seed \(seed): timer ran off its deadline")
            }
        }
    }

    @Test("same seed ⇒ same trace hash, 1,000 runs of 3 roots × 3 queues × timers")
    func sameSeedSameHash() throws {
        var hashes = Set<TraceHash>()
        var jobCounts = Set<Int>()
        for _ in 0..<1_000 {
            let scheduler = SimulatedScheduler(seed: 0xC0FFEE, traceMode: .hashOnly)
            Workload().build(on: scheduler, probe: WorkloadProbe())
            try scheduler.runUntilIdle()
            hashes.insert(scheduler.traceHash)
            jobCounts.insert(scheduler.jobsExecuted)
        }
        #expect(hashes.count == 1)
        #expect(jobCounts.count == 1 && jobCounts.first! > 100)
    }

    @Test("different seeds ⇒ different interleavings of roots ready at the same instant")
    func differentSeedsExploreInterleavings() throws {
        var signatures = Set<[Int]>()
        var hashes = Set<TraceHash>()
        for seed in UInt64(1)...40 {
            let scheduler = SimulatedScheduler(seed: seed, traceMode: .hashOnly)
            let probe = WorkloadProbe()
            Workload().build(on: scheduler, probe: probe)
            try scheduler.runUntilIdle()
            signatures.insert(probe.orderSignature)
            hashes.insert(scheduler.traceHash)
        }
        #expect(signatures.count >= 35, "only \(signatures.count) distinct orders in 40 seeds")
        #expect(hashes.count == signatures.count)
    }

    @Test("the FIFO seed runs same-instant work in global submission order")
    func fifoSeedIsPlainFIFO() throws {
        // Given three roots with work submitted round-robin, all due now
        let scheduler = SimulatedScheduler(seed: SimulatedScheduler.fifoSeed)
        let roots = (0..<3).map { scheduler.makeQueue(label: "r\($0)", target: nil) }
        let children = roots.map { scheduler.makeQueue(label: "\($0.label).child", target: $0) }
        let log = Log<Int>()
        for i in 0..<30 {
            let queue = i % 2 == 0 ? roots[i % 3] : children[i % 3]
            queue.async { log.append(i) }
        }
        // When it runs
        try scheduler.runUntilIdle()
        // Then the order is exactly the submission order
        #expect(log.values == Array(0..<30))
    }

    @Test("a seeded choice interleaves roots but keeps each root's own order")
    func seededChoiceKeepsRootOrder() throws {
        let scheduler = SimulatedScheduler(seed: 99)
        let roots = (0..<3).map { scheduler.makeQueue(label: "r\($0)", target: nil) }
        let log = Log<Int>()
        for i in 0..<60 {
            roots[i % 3].async { log.append(i) }
        }
        try scheduler.runUntilIdle()
        #expect(log.values != Array(0..<60), "seed 99 should not happen to be FIFO")
        for r in 0..<3 {
            let mine = log.values.filter { $0 % 3 == r }
            #expect(mine == mine.sorted())
        }
    }

    @Test("timers run in (deadline, submission) order, then work submitted at that instant")
    func deadlineThenSequence() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "root", target: nil)
        let other = scheduler.makeQueue(label: "other", target: nil)
        let log = Log<String>()
        root.asyncAfter(deadline: .zero.advanced(by: .seconds(2))) { log.append("root@2 first") }
        other.asyncAfter(deadline: .zero.advanced(by: .seconds(1))) {
            log.append("other@1")
            root.asyncAfter(deadline: .zero.advanced(by: .seconds(2))) { log.append("root@2 later") }
            root.asyncAfter(deadline: .zero) { log.append("root@past runs now") }
        }
        root.asyncAfter(deadline: .zero.advanced(by: .seconds(2))) { log.append("root@2 second") }
        try scheduler.runUntilIdle()
        #expect(log.values == ["other@1", "root@past runs now", "root@2 first", "root@2 second", "root@2 later"])
        #expect(scheduler.now == .zero.advanced(by: .seconds(2)))
    }
}
