import Foundation
import TapedeckScheduling

/// ~1M work items over a root queue with two queues targeting it, on the simulated scheduler and on
/// real DispatchQueues, in one run. Each side is timed from the first enqueue to the last item done.
func runSchedulerBenchmark() throws {
    let items = 1_000_000
    let repetitions = 5

    // TAPEDECK_BENCH_PROFILE=simulated skips the GCD side (for profiling the simulator alone).
    let profileSimulatedOnly = ProcessInfo.processInfo.environment["TAPEDECK_BENCH_PROFILE"] == "simulated"
    let gcd = medianSeconds(repetitions: profileSimulatedOnly ? 0 : repetitions) {
        let counter = Counter()
        let root = DispatchQueue(label: "bench.root")
        let request = DispatchQueue(label: "bench.request", target: root)
        let serialization = DispatchQueue(label: "bench.serialization", target: root)
        for i in 0..<items {
            (i & 1 == 0 ? request : serialization).async { counter.value &+= 1 }
        }
        request.sync {}
        serialization.sync {}
        precondition(counter.value == items)
    }

    func simulated(_ mode: TraceMode) throws -> Double {
        try medianSeconds(repetitions: repetitions) {
            let counter = Counter()
            let scheduler = SimulatedScheduler(traceMode: mode)
            let root = scheduler.makeQueue(label: "bench.root", target: nil)
            let request = scheduler.makeQueue(label: "bench.request", target: root)
            let serialization = scheduler.makeQueue(label: "bench.serialization", target: root)
            root.async {
                for i in 0..<items {
                    (i & 1 == 0 ? request : serialization).async { counter.value &+= 1 }
                }
            }
            try scheduler.runUntilIdle()
            precondition(counter.value == items)
        }
    }
    let hashOnly = try simulated(.hashOnly)
    let full = try simulated(.full)

    report("scheduler", [
        "items": String(items),
        "trace": "hash",
        "simulated_ops_per_s": rate(items, hashOnly),
        "gcd_ops_per_s": rate(items, gcd),
        "ratio": fixed(gcd / hashOnly),
        "goal": "3",
    ])
    report("scheduler", [
        "items": String(items),
        "trace": "full",
        "simulated_ops_per_s": rate(items, full),
        "gcd_ops_per_s": rate(items, gcd),
        "ratio": fixed(gcd / full),
        "goal": "3",
    ])
}

/// A counter touched only by one serial execution context at a time (the benchmark's root queue).
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: each benchmark increments it from one serial queue tree only.
    var value = 0
}
