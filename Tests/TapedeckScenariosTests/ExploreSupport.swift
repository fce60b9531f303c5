import Foundation
import TapedeckScenarios
import TapedeckTestSupport

/// retry-storm, the exploration tests' scenario: 19 requests a seed, every seed passes.
let retryStormFile = fixturesDirectory.appendingPathComponent("scenarios/retry-storm.yaml")

/// retry-storm with `edit` applied to its text, parsed as if it were the fixture (its cassette resolves).
func retryStorm(_ edit: (String) -> String = { $0 }) throws -> Scenario {
    let text = try String(contentsOf: retryStormFile, encoding: .utf8)
    return try Scenario.parse(edit(text), file: retryStormFile.path, source: retryStormFile)
}

/// retry-storm with its 503 site enabled for about half the seeds: on the others every item
/// request succeeds at once, so its `attempts: 3` expectation fails — some seeds pass, some fail.
func halfFailingRetryStorm() throws -> Scenario {
    try retryStorm { $0.replacingOccurrences(of: "    attempts: 1-2\n", with: "    attempts: 1-2\n    enabled: 500\n") }
}

/// The records of `seeds` explored with `jobs` worker threads.
func explore(_ scenario: Scenario, seeds: [UInt64], jobs: Int = 2, stopAfter: Int? = nil) throws -> (records: [SeedRecord], result: Explorer.Result) {
    var records: [SeedRecord] = []
    let result = try Explorer(jobs: jobs, stopAfter: stopAfter).explore(seeds: seeds, makeWorker: { _ in InProcessSeedWorker(scenario: scenario) }) {
        records.append($0)
    }
    return (records, result)
}
