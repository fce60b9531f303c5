// docs/scenarios.md's "Running a scenario from Swift" snippet, with the page's import lines and no
// others. Its path is resolved against the repository rather than the working directory (marked
// `// (test: relativeTo)`); ScenariosDocSnippets.swift runs it.

import Foundation
import TapedeckScenarios

/// docs/scenarios.md, "Running a scenario from Swift".
func scenarios_runningFromSwift() throws -> Outcome {
    let scenario = try Scenario.load(URL(fileURLWithPath: "docs/examples/scenarios/first.yaml", relativeTo: repositoryRoot))   // (test: relativeTo)
    let outcome = try ScenarioRunner().run(scenario, seed: 7)
    if !outcome.passed {
        for failure in outcome.failures { print(failure) }   // expectation items attempts: ...
        print(outcome.reproduction)                           // tapedeck run ... --seed 7
    }
    print(outcome.traceHash, outcome.virtualDuration)
    return outcome
}
