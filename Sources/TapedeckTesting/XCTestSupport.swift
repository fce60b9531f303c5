#if canImport(XCTest)
public import XCTest
public import TapedeckCassettes

extension XCTestCase {
    /// A ``Tape`` bound to cassette `name` (`Cassettes/<name>.har.gz` beside the test file, or in
    /// `TAPEDECK_CASSETTES`), finished when the test ends: recordings merged into the cassette, and
    /// each request the cassette could not answer reported as a failure naming the closest entries.
    /// A test that failed does not replace its cassette when re-recording (`all`).
    ///
    /// ```swift
    /// func testLogin() throws {
    ///     let tape = try useCassette("login")
    ///     let (_, response) = try tape.perform(URL(string: "https://api.example/login")!)
    ///     XCTAssertEqual(response.statusCode, 200)
    /// }
    /// ```
    public func useCassette(
        _ name: String, mode: TapeMode = .fromEnvironment, playback: CassetteRecorder.Playback = .strict,
        matching rules: MatchRules = MatchRules(), redactor: Redactor = Redactor(), timing: Tape.Timing = .asRecorded,
        seed: UInt64 = 1, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Tape {
        let tape = try Tape(
            cassette: RecordSettings.cassetteURL(named: name, filePath: "\(file)"), mode: mode, playback: playback,
            matching: rules, redactor: redactor, timing: timing, seed: seed)
        addTeardownBlock { [weak self] in
            do {
                try tape.finish(succeeded: self?.testRun?.hasSucceeded ?? true)
            } catch let TapeError.unansweredRequests(misses) {
                for miss in misses { XCTFail(miss, file: file, line: line) }
            } catch {
                XCTFail("\(error)", file: file, line: line)
            }
        }
        return tape
    }
}
#endif
