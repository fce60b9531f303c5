import Foundation
import TapedeckScenarios

/// The exploration part of `tools/bench scenarios`: seeds per second of `tapedeck explore` on
/// retry-storm (19 requests a seed, 12 injected 503s), with 1 and 2 workers, in threads of this
/// process and in worker processes (through the release `tapedeck`, process start included), and
/// where one seed's time goes (set-up, simulation with the outcome, record and JSON line).
///   efficiency = requests simulated per wall second exploring with 1 worker thread
///                ÷ requests per second of the client pipeline alone, sequential (no per-seed set-up);
///   scaling    = seeds per second with 2 worker processes ÷ with 1 (what `explore --jobs 2` uses).
/// Goals: efficiency ≥ 0.7, scaling ≥ 1.7 (2 cores).
func runExploreBenchmark(directory: URL, cli: URL) throws {
    let file = directory.appendingPathComponent("retry-storm.yaml")
    let scenario = try Scenario.load(file)
    let seeds = Array(UInt64(1)...200)

    // Where a seed's time goes (one worker, this thread's clock).
    let timed = InProcessSeedWorker(scenario: scenario, clock: { DispatchTime.now().uptimeNanoseconds })
    var attempts = 0
    for seed in seeds { attempts += try timed.run(seed: seed).attempts }
    let perSeed = { (nanoseconds: UInt64) in fixed(Double(nanoseconds) / Double(timed.times.seeds) / 1_000, 1) }
    // The same without keeping the parsed cassette between seeds (as `tapedeck run` reads it).
    let rereading = InProcessSeedWorker(scenario: scenario, clock: { DispatchTime.now().uptimeNanoseconds }, reuseCassettes: false)
    for seed in seeds { _ = try rereading.run(seed: seed) }

    // Threads in this process.
    func threads(_ jobs: Int) throws -> Double {
        try medianSeconds(repetitions: 3) {
            let result = try Explorer(jobs: jobs, stopAfter: nil).explore(seeds: seeds, makeWorker: { _ in InProcessSeedWorker(scenario: scenario) }) {
                precondition($0.passed, "retry-storm seed \($0.seed) failed")
                _ = try $0.jsonLine()
            }
            precondition(result.emitted == seeds.count)
        }
    }
    let threads1 = try threads(1), threads2 = try threads(2)

    // Worker processes, through the release CLI (process start included).
    func processes(_ jobs: Int) throws -> Double {
        guard FileManager.default.isExecutableFile(atPath: cli.path) else { return .nan }
        return try medianSeconds(repetitions: 3) {
            let child = Process()
            child.executableURL = cli
            child.arguments = ["explore", file.path, "--seeds", "1..\(seeds.count)", "--jobs", String(jobs), "--workers", "processes", "--format", "jsonl"]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            child.waitUntilExit()
            precondition(child.terminationStatus == 0, "tapedeck explore --workers processes failed")
        }
    }
    let processes1 = try processes(1), processes2 = try processes(2)

    // The pipeline alone: sequential requests on one long-lived simulation.
    let pipelineRequests = 2_000
    let pipeline = try medianSeconds(repetitions: 3) {
        try runThroughPipeline(requests: pipelineRequests, concurrency: 1, body: #"{"method":"GET","path":"/get","query":""}"#)
    }

    let seedsPerSecond = { (wall: Double) in wall.isNaN ? "n/a" : fixed(Double(seeds.count) / wall, 1) }
    let exploreRequestsPerSecond = Double(attempts) / threads1
    let pipelineRequestsPerSecond = Double(pipelineRequests) / pipeline
    // `explore` runs 1 job in a thread and more in worker processes (docs/explore.md), so `scaling`
    // is 2 worker processes ÷ 1; `scaling_threads` is the same ratio for threads.
    report("scenarios", [
        "name": "explore", "scenario": "retry-storm", "seeds": String(seeds.count), "requests_per_seed": String(attempts / seeds.count),
        "seeds_per_s": seedsPerSecond(threads1), "seeds_per_s_threads_2": seedsPerSecond(threads2),
        "seeds_per_s_processes_1": seedsPerSecond(processes1), "seeds_per_s_processes_2": seedsPerSecond(processes2),
        "explore_rps": String(Int(exploreRequestsPerSecond)), "pipeline_rps": String(Int(pipelineRequestsPerSecond)),
        "efficiency": fixed(exploreRequestsPerSecond / pipelineRequestsPerSecond),
        "scaling": processes1.isNaN ? "n/a" : fixed(processes1 / processes2), "scaling_threads": fixed(threads1 / threads2),
        "setup_us": perSeed(timed.times.setup), "setup_us_rereading_cassette": perSeed(rereading.times.setup),
        "simulation_us": perSeed(timed.times.simulation), "encoding_us": perSeed(timed.times.encoding),
        "goal_efficiency": "0.7", "goal_scaling": "1.7",
    ])
}
