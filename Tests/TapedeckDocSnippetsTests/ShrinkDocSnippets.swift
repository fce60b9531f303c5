// The Swift snippet of docs/shrink.md ("From Swift"), as written plus the least scaffolding:
// `flaky.yaml` (Scaffolding.swift's `flakyScenario`) is written to a scratch directory, and the
// snippet's relative paths are resolved against it (marked `// (test: relativeTo)`).

import Foundation
import Testing
import TapedeckScenarios

/// docs/shrink.md, "From Swift" (`flaky.yaml` is written to a scratch directory by the test).
private func shrink_fromSwift(directory: URL) throws -> String {
    let input = URL(fileURLWithPath: "flaky.yaml", relativeTo: directory)   // (test: relativeTo)
    let result = try Shrinker().shrink(try Scenario.load(input), seed: 17) { print($0) }
    let yaml = try ShrunkScenarioWriter.yaml(result, original: input, output: URL(fileURLWithPath: "min.yaml", relativeTo: directory))   // (test: relativeTo)
    return yaml
}

@Suite("docs/shrink.md: the snippet compiles and does what the page says")
struct ShrinkDocSnippetTests {
    @Test("Shrinking from Swift: a failing seed of flaky.yaml shrinks to a file with an exact schedule")
    func shrinking() throws {
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try flakyScenario.write(to: directory.file("flaky.yaml"), atomically: true, encoding: .utf8)
        let yaml = try shrink_fromSwift(directory: directory.url)
        #expect(yaml.contains("exact: true"), "\(yaml)")
        let shrunk = try Scenario.parse(yaml, file: directory.file("min.yaml").path, source: directory.file("min.yaml"))
        #expect(try !ScenarioRunner().run(shrunk, seed: 1).passed, "the shrunk file fails whatever the seed")
    }
}
