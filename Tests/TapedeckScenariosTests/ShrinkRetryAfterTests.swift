import Foundation
import Testing
import TapedeckScenarios

/// A status fault's `retryAfter` as the shrink simplifies it: dropped when the failure does not
/// need it, else kept; logged and written as durations read everywhere else (`2s`).
@Suite("Shrinking a Retry-After")
struct ShrinkRetryAfterTests {
    /// A 503 with `Retry-After: 2` on the first attempt of a request expected to end 200.
    private func shrink(client: String) throws -> (result: Shrinker.Result, text: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-retry-after-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("busy.yaml")
        try """
            traffic: {stubs: [{match: GET http://api.test/items, json: {ok: true}}]}
            client:
              validate: true
              \(client)
            script: [{request: GET http://api.test/items}]
            faults:
              - {kind: status, name: busy, status: 503, retryAfter: 2s, attempts: 1}
            expect: {requests: {items: {status: 200}}}
            """.write(to: input, atomically: true, encoding: .utf8)
        let result = try Shrinker().shrink(try Scenario.load(input), seed: 1)
        let output = directory.appendingPathComponent("min.yaml")
        let text = try ShrunkScenarioWriter.yaml(result, original: input, output: output)
        try text.write(to: output, atomically: true, encoding: .utf8)
        _ = try Scenario.load(output)   // the written file loads
        return (result, text)
    }

    @Test("a Retry-After the failure does not need is dropped: the log says '2s → no retryAfter', the file has no retryAfter key")
    func droppedWhenItMeansNothing() throws {
        // Given a client that does not retry, so the 503 fails the request whatever its Retry-After
        let (result, text) = try shrink(client: "retry: false")
        // Then the value goes, said in the run's duration style, and the file does not carry it
        #expect(result.steps.contains { $0.detail == "site busy: retryAfter 2s → no retryAfter" }, "\(result.steps)")
        #expect(!text.contains("retryAfter") && !text.contains("ns\n"), "\(text)")
    }

    @Test("a Retry-After the failure needs is kept as written (2s), never as a count of nanoseconds")
    func keptWhenTheFailureNeedsIt() throws {
        // Given a client that honours Retry-After up to 1 s: 2 s is past it, so the 503 is not retried
        let (result, text) = try shrink(client: "retry: {limit: 1, statuses: [503], honourRetryAfter: true, retryAfterLimit: 1s}")
        // Then neither dropping it, 0 nor 1 s (each retried, then 200) keeps the failure: 2 s stays
        #expect(!result.steps.contains { $0.detail.hasPrefix("site busy: retryAfter") }, "\(result.steps)")
        #expect(text.contains("retryAfter: 2s"), "\(text)")
    }
}
