import Foundation
import Testing
import TapedeckScenarios

@Suite("Explore: the JSON-lines record (format version 1)")
struct ExploreRecordTests {
    static let fields: Set<String> = ["v", "scenario", "file", "seed", "passed", "failures", "traceHash", "virtualNanoseconds",
                                      "jobs", "attempts", "faultCounts", "faults", "reproduction"]

    @Test("a failing seed's line is one line of JSON with v=1 and every documented field, filled from the outcome, and reads back equal")
    func failingSeedLine() throws {
        let scenario = try retryStorm { $0.replacingOccurrences(of: "finishedBy: 4.5s", with: "finishedBy: 3s") }
        let outcome = try ScenarioRunner().run(scenario, seed: 5)
        let record = SeedRecord(outcome)
        let line = try record.jsonLine()
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Self.fields)
        #expect(object["v"] as? Int == 1)
        #expect(object["seed"] as? Int == 5 && object["passed"] as? Bool == false)
        #expect(object["scenario"] as? String == "retry-storm")
        #expect(object["traceHash"] as? String == outcome.traceHash && outcome.traceHash.count == 16)
        #expect((object["virtualNanoseconds"] as? Int).map(Int64.init) == outcome.virtualNanoseconds)
        #expect(object["attempts"] as? Int == 19, "6 items x 3 attempts + me")
        #expect(object["faultCounts"] as? [String: Int] == ["busy": 12])
        let faults = try #require(object["faults"] as? [[String: Any]])
        #expect(faults.count == 12 && faults.allSatisfy { $0["site"] as? String == "busy" && $0["what"] is String })
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 6 && failures.allSatisfy { $0["kind"] as? String == "expectation" && $0["check"] as? String == "finishedBy" })
        let reproduction = try #require(object["reproduction"] as? String)
        #expect(reproduction.hasPrefix("tapedeck run ") && reproduction.hasSuffix("retry-storm.yaml --seed 5"), "\(reproduction)")
        #expect(try SeedRecord(jsonLine: line) == record)
    }

    @Test("another version, a line without a version and a record missing a field are rejected, saying which")
    func rejectsOtherVersions() throws {
        let line = try SeedRecord(ScenarioRunner().run(try retryStorm(), seed: 1)).jsonLine()
        #expect(throws: ExploreError("format version 2, this tapedeck reads version 1")) {
            try SeedRecord(jsonLine: line.replacingOccurrences(of: #""v":1"#, with: #""v":2"#))
        }
        #expect(throws: ExploreError("no format version (\"v\"): not a tapedeck explore record")) {
            try SeedRecord(jsonLine: #"{"seed":1}"#)
        }
        #expect(throws: ExploreError("not a JSON object")) { try SeedRecord(jsonLine: "seed 1 passed") }
        #expect(throws: ExploreError("not a version 1 record: missing field 'traceHash'")) {
            try SeedRecord(jsonLine: line.replacingOccurrences(of: #""traceHash""#, with: #""hash""#))
        }
    }

    @Test("fields a later minor addition brings are ignored by this reader")
    func ignoresUnknownFields() throws {
        let line = try SeedRecord(ScenarioRunner().run(try retryStorm(), seed: 2)).jsonLine()
        let extended = "{\"addedLater\":[1,2]," + line.dropFirst()
        #expect(try SeedRecord(jsonLine: extended) == SeedRecord(jsonLine: line))
    }
}
