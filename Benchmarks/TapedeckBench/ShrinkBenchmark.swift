import Foundation
import TapedeckScenarios

/// `tools/bench scenarios` (its shrink line): the wall time `Shrinker` takes to shrink a failing
/// seed of the planted-bug scenario (a 401 and a reset on one request among many harmless faults),
/// median of 5 shrinks, with the decision counts before and after and the scenario runs it made.
func runShrinkBenchmark() throws {
    let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        .appendingPathComponent("Tests/TapedeckScenariosTests/Files/shrink/reset-and-401.yaml")
    let scenario = try Scenario.load(url)
    let seed: UInt64 = 2
    var last: Shrinker.Result?
    let wall = try medianSeconds(repetitions: 5) {
        last = try Shrinker().shrink(scenario, seed: seed)
    }
    guard let result = last else { return }
    report("scenarios shrink", [
        "name": url.lastPathComponent, "seed": String(seed), "shrink_ms": fixed(wall * 1_000, 1),
        "decisions_before": String(result.original.decisions.count), "decisions_after": String(result.shrunk.decisions.count),
        "runs": String(result.runs), "ms_per_run": fixed(wall * 1_000 / Double(max(result.runs, 1)), 2),
    ])
}
