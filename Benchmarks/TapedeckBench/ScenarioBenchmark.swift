import Foundation
import TapedeckScenarios

/// `tools/bench scenarios`: for every fixture scenario, virtual seconds simulated per wall second
/// (the scenario loaded once, then run repeatedly in this process; median of the runs), and the
/// wall time of one `tapedeck run` of it as a user sees it, process start to exit. The in-process
/// runs keep to one CPU as `tapedeck run` does (CPUPinning); `compression_unpinned` is the same
/// runs with the threads left to the system.
/// Goal: compression ≥ 1,000× on every fixture. `ceiling` is what a fixture would reach if each of
/// its exchanges cost only what a bare URLSession task costs here (`floor_us_per_exchange`, measured
/// in the same run): a fixture whose ceiling is under 1,000 cannot meet the goal while its client
/// runs on a real URLSession. Then the exploration line (ExploreBenchmark.swift).
func runScenarioBenchmark() throws {
    let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("fixtures/scenarios")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted()
    let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tapedeck")
    // TAPEDECK_BENCH_EXPLORE_ONLY=1 skips the per-fixture lines.
    let fixtures = ProcessInfo.processInfo.environment["TAPEDECK_BENCH_EXPLORE_ONLY"] == "1" ? [] : files
    // The least an exchange can cost through a real corelibs URLSession (a protocol that answers
    // from startLoading, nothing simulated): `ceiling` is the compression a fixture would reach
    // if its run cost only that per exchange.
    // `tapedeck run` keeps its threads on one CPU (CPUPinning); the fixtures are timed that way,
    // and with the threads left to the system (`compression_unpinned`), one after the other.
    let floorUnpinned = fixtures.isEmpty ? 0 : trivialURLSessionSecondsPerRequest()
    let cpu = fixtures.isEmpty ? nil : CPUPinning.pinProcess()
    let floorPerExchange = fixtures.isEmpty ? 0 : trivialURLSessionSecondsPerRequest()
    CPUPinning.releaseProcess()
    for name in fixtures {
        let url = directory.appendingPathComponent(name)
        let scenario = try Scenario.load(url)
        let runner = ScenarioRunner()
        var virtual = 0.0
        var jobs = 0
        var exchanges = 0
        let timedRun = {
            let outcome = try runner.run(scenario, seed: scenario.seed)
            precondition(outcome.passed, "\(name) failed: \(outcome.failures)")
            virtual = outcome.virtualDuration.timeInterval
            jobs = outcome.jobs
            exchanges = outcome.requests.reduce(0) { $0 + $1.attempts }
        }
        let unpinned = try medianSeconds(repetitions: 21, timedRun)
        CPUPinning.pinProcess()
        let wall = try medianSeconds(repetitions: 21, timedRun)
        let withLoad = try medianSeconds(repetitions: 11) {
            _ = try runner.run(try Scenario.load(url), seed: scenario.seed)
        }
        CPUPinning.releaseProcess()
        var process = Double.nan
        if FileManager.default.isExecutableFile(atPath: cli.path) {
            process = try medianSeconds(repetitions: 5) {
                let child = Process()
                child.executableURL = cli
                child.arguments = ["run", url.path]
                child.standardOutput = FileHandle.nullDevice
                try child.run()
                child.waitUntilExit()
            }
        }
        report("scenarios", [
            "name": name, "virtual_s": fixed(virtual, 3), "jobs": String(jobs),
            "run_ms": fixed(wall * 1_000, 3), "load_and_run_ms": fixed(withLoad * 1_000, 3),
            "compression": String(Int((virtual / wall).rounded())),
            "compression_unpinned": String(Int((virtual / unpinned).rounded())), "pinned_cpu": cpu.map(String.init) ?? "none",
            "exchanges": String(exchanges), "us_per_exchange": fixed(wall / Double(max(exchanges, 1)) * 1e6, 1),
            "floor_us_per_exchange": fixed(floorPerExchange * 1e6, 1), "floor_unpinned_us": fixed(floorUnpinned * 1e6, 1),
            "ceiling": String(Int((virtual / (floorPerExchange * Double(max(exchanges, 1)))).rounded())),
            "process_ms": process.isNaN ? "n/a" : fixed(process * 1_000, 1),
            "goal_compression": "1000", "met": virtual / wall >= 1_000 ? "yes" : "no",
        ])
    }
    try runExploreBenchmark(directory: directory, cli: cli)
    try runShrinkBenchmark()
}
