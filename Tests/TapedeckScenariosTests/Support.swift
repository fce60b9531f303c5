import Foundation
import TapedeckScenarios
import TapedeckTestSupport

/// Files/ beside these tests: scenario files used as test data (excluded from the target, read by path).
let filesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Files")
/// The parsing tests' files (another branch owns Files/bad/).
let parsingDirectory = filesDirectory.appendingPathComponent("parsing")
/// The shop API cassette the fixture scenarios replay.
let apiCassette = fixturesDirectory.appendingPathComponent("cassettes/api.har.gz")
/// Every fixture scenario, by file name.
let fixtureScenarios: [URL] = {
    let directory = fixturesDirectory.appendingPathComponent("scenarios")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".yaml") }.sorted().map { directory.appendingPathComponent($0) }
}()

/// Parses inline scenario text as if it were `Files/parsing/<file>` (relative paths resolve there).
func parse(_ yaml: String, file: String = "inline.yaml") throws(ScenarioError) -> Scenario {
    try Scenario.parse(yaml, file: file, source: parsingDirectory.appendingPathComponent(file))
}

/// Parses inline scenario text and runs it from `seed`.
func run(_ yaml: String, seed: UInt64 = 1, options: ScenarioRunner.Options = .init()) throws -> Outcome {
    try ScenarioRunner(options: options).run(try parse(yaml), seed: seed)
}

/// The error parsing `yaml` throws (nil when it parses).
func parseError(_ yaml: String, file: String = "bad.yaml") -> ScenarioError? {
    do {
        _ = try parse(yaml, file: file)
        return nil
    } catch {
        return error
    }
}

extension Outcome {
    /// The outcome of the request named `name` (crashes the test when there is none: a typo in it).
    func request(_ name: String) -> RequestOutcome {
        guard let found = requests.first(where: { $0.name == name }) else {
            preconditionFailure("no request named \(name) in \(requests.map(\.name))")
        }
        return found
    }

    /// The lane of the request named `name`.
    func lane(_ name: String) -> Timeline.Lane? {
        timeline.lanes.first { $0.name == name }
    }

    /// Failures of `check` (`status`, `completesOnce`, ...).
    func failures(_ check: String) -> [Failure] {
        failures.filter { $0.check == check }
    }

    /// Whether the timeline shows a fault mark of `site` on the lane `name`, and the text timeline
    /// draws it (a `!` on that lane's line).
    func timelineShowsFault(_ site: String, on name: String) -> Bool {
        guard let lane = lane(name), lane.marks.contains(where: { $0.kind == .fault && $0.label.hasPrefix(site + ":") }) else { return false }
        let text = TextTimeline(timeline, width: 120).render()
        return text.split(separator: "\n").contains { $0.hasPrefix(name + " ") && $0.contains("!") }
    }
}

/// Virtual time in milliseconds (for readable expectations on ends).
func ms(_ nanoseconds: Int64?) -> Double? {
    nanoseconds.map { Double($0) / 1e6 }
}

/// `count` bytes of readable text (a body long enough to cut).
func textBody(_ count: Int) -> String {
    String(repeating: "abcdefghij", count: count / 10 + 1).prefix(count).description
}
