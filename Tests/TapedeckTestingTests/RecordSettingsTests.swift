import Foundation
import Testing
import TapedeckTesting
import TapedeckTestSupport

@Suite("Testing integration: choosing the record mode and the cassette file")
struct RecordSettingsTests {
    @Test("TAPEDECK_RECORD and CI choose the mode; a bad value is a clear error; names map to files")
    func settings() throws {
        #expect(try RecordSettings.mode(environment: [:]) == .once)
        #expect(try RecordSettings.mode(environment: ["CI": "true"]) == .replayOnly)
        #expect(try RecordSettings.mode(environment: ["CI": "false"]) == .once)
        #expect(try RecordSettings.mode(environment: ["CI": "1", "TAPEDECK_RECORD": "new_episodes"]) == .newEpisodes)
        #expect(try RecordSettings.mode(environment: ["TAPEDECK_RECORD": "All"]) == .all)
        #expect(throws: TapeError.self) { try RecordSettings.mode(environment: ["TAPEDECK_RECORD": "sometimes"]) }
        let error = TapeError.invalidRecordMode("sometimes")
        #expect(error.description.contains("none, once, new_episodes or all"))
        let url = RecordSettings.cassetteURL(named: "login", filePath: "/src/Tests/AppTests/LoginTests.swift", environment: [:])
        #expect(url.path == "/src/Tests/AppTests/Cassettes/login.har.gz")
        let plain = RecordSettings.cassetteURL(named: "login.har", filePath: "/x/T.swift", environment: ["TAPEDECK_CASSETTES": "/tapes"])
        #expect(plain.path == "/tapes/login.har")
        // Another tool's cassette that is there keeps its name (it replays as it is); any other name gets .har.gz
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let tapes = ["TAPEDECK_CASSETTES": directory.url.path]
        for name in ["test_login.yaml", "login.YML", "login.json", "login.zz"] {
            #expect(RecordSettings.cassetteURL(named: name, filePath: "/x/T.swift", environment: tapes).lastPathComponent == name + ".har.gz",
                    "not there: a Tapedeck cassette of that name, as before")
            try Data().write(to: directory.file(name))
            #expect(RecordSettings.cassetteURL(named: name, filePath: "/x/T.swift", environment: tapes).lastPathComponent == name)
        }
        #expect(RecordSettings.cassetteURL(named: "api.v2", filePath: "/x/T.swift", environment: [:]).lastPathComponent == "api.v2.har.gz")
    }

    @Test("an absolute cassette name is that file, not a path under Cassettes/ or TAPEDECK_CASSETTES")
    func absoluteName() {
        // Given an absolute name, with and without a directory from the environment
        let beside = RecordSettings.cassetteURL(named: "/tmp/run/login", filePath: "/src/Tests/AppTests/LoginTests.swift", environment: [:])
        let configured = RecordSettings.cassetteURL(named: "/tmp/run/login.har", filePath: "/x/T.swift", environment: ["TAPEDECK_CASSETTES": "/tapes"])
        // Then each is the file named (an extension added when missing)
        #expect(beside.path == "/tmp/run/login.har.gz")
        #expect(configured.path == "/tmp/run/login.har")
    }
}
