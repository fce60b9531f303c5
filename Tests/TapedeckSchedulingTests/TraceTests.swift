import Testing
import TapedeckScheduling

@Suite("Traces, hashes and the determinism check")
struct TraceTests {
    @Test("stable hashes follow their published definitions (FNV-1a 64 test vectors)")
    func stableHashVectors() {
        #expect(StableHash.fnv1a("") == 0xCBF2_9CE4_8422_2325)
        #expect(StableHash.fnv1a("a") == 0xAF63_DC4C_8601_EC8C)
        #expect(StableHash.fnv1a("foobar") == 0x8594_4171_F739_67E8)
    }

    @Test("the trace hash of a fixed workload is the same in every process and on every machine")
    func traceHashIsPinned() throws {
        // This value pins "trace hash v1" (docs/scheduling.md) together with the scheduler's order.
        // It is computed from nothing but the workload and the seed; Swift's per-process Hasher is
        // never involved. If it changes, traces recorded elsewhere no longer compare: change it
        // only with a deliberate format change, noted in the docs.
        let scheduler = SimulatedScheduler(seed: 7)
        Workload().build(on: scheduler, probe: WorkloadProbe())
        try scheduler.runUntilIdle()
        #expect(scheduler.traceHash.description == "2d4b693f3b62bf48")
    }

    @Test("every job, sync block and client event is a step with time, queue, job and event")
    func stepsCarryContext() throws {
        let scheduler = SimulatedScheduler()
        let root = scheduler.makeQueue(label: "session.rootQueue", target: nil)
        let request = scheduler.makeQueue(label: "session.requestQueue", target: root)
        let other = scheduler.makeQueue(label: "app", target: nil)
        request.asyncAfter(deadline: .zero.advanced(by: .milliseconds(500)), named: "perform") {
            scheduler.record("didCreateTask", "GET /get")
            other.sync {}
        }
        try scheduler.runUntilIdle()
        let steps = scheduler.trace.map { "\($0.time) \($0.queue) \($0.event) \($0.payload)" }
        #expect(steps == [
            "0.5s session.requestQueue run perform",
            "0.5s session.requestQueue didCreateTask GET /get",
            "0.5s app sync ",
        ])
        #expect(scheduler.trace[0].job == scheduler.trace[1].job)
        #expect(scheduler.trace.map(\.index) == [0, 1, 2])
    }

    @Test("hash-only mode gives the same hash as full mode")
    func hashOnlyMatchesFull() throws {
        var hashes: [TraceHash] = []
        for mode in [TraceMode.full, .hashOnly] {
            let scheduler = SimulatedScheduler(seed: 3, traceMode: mode)
            Workload().build(on: scheduler, probe: WorkloadProbe())
            try scheduler.runUntilIdle()
            hashes.append(scheduler.traceHash)
        }
        #expect(hashes[0] == hashes[1])
    }

    @Test("the determinism check passes a deterministic workload")
    func determinismCheckPasses() throws {
        let report = try DeterminismCheck.run(seed: 11, runs: 5) { scheduler in
            Workload().build(on: scheduler, probe: WorkloadProbe())
            try scheduler.runUntilIdle()
        }
        #expect(report.isDeterministic, "\(report)")
        #expect(Set(report.hashes).count == 1)
        #expect(report.description.hasPrefix("deterministic: seed 11, 5 runs"))
    }

    @Test("the determinism check finds the first divergent step and shows both sides")
    func determinismCheckReportsDivergence() throws {
        // Given a workload that leaks state between runs (the kind of bug the check exists for)
        let leaked = Log<Int>()
        let report = try DeterminismCheck.run(seed: 11) { scheduler in
            let root = scheduler.makeQueue(label: "root", target: nil)
            let runNumber = leaked.values.count
            leaked.append(runNumber)
            for i in 0..<5 {
                root.async { scheduler.record("tick", i == 3 ? "run \(runNumber)" : "") }
            }
            try scheduler.runUntilIdle()
        }
        #expect(!report.isDeterministic)
        let divergence = try #require(report.divergence)
        #expect(divergence.stepIndex == 7)
        #expect(divergence.expected?.payload == "run 0")
        #expect(divergence.actual?.payload == "run 1")
        #expect(divergence.commonPrefix.count == 3)
        #expect(report.description.contains("run 1 diverged from run 0 at step 7"))
    }
}
