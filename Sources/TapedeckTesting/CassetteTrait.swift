public import Testing
public import TapedeckCassettes
import TapedeckClient

/// Runs a Swift Testing test with a ``Tape`` bound to a cassette: the tape is ``Tape/current``
/// inside the test (and TapedeckClient's default transport, so `Session()` and `AF` use it), and is
/// finished afterwards — recordings merged into the cassette, and every
/// request the cassette could not answer reported as an issue naming the closest entries.
///
/// ```swift
/// @Test(.cassette("login"))
/// func login() async throws {
///     let tape = try #require(Tape.current)
///     let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
///     #expect(response.statusCode == 200)
/// }
/// ```
public struct CassetteTrait: TestTrait, TestScoping {
    /// The cassette's name: a file in `Cassettes/` beside the test file (or in `TAPEDECK_CASSETTES`),
    /// or an absolute path (`/…`) used as it is; `.har.gz` added unless the name ends in `.har`
    /// or `.har.gz`.
    public let name: String
    /// The record mode (by default from the environment).
    public let mode: TapeMode
    /// What a miss does when not recording.
    public let playback: CassetteRecorder.Playback
    /// How requests are matched.
    public let rules: MatchRules
    /// How secrets are redacted.
    public let redactor: Redactor
    /// How recorded timings are replayed.
    public let timing: Tape.Timing
    /// The simulation's seed.
    public let seed: UInt64
    /// The test file's path (`#filePath`), which locates the cassette.
    public let filePath: String
    /// Where the trait was written, for the issues it reports.
    public let sourceLocation: SourceLocation

    /// Builds the tape, runs the test with it as ``Tape/current``, then finishes it and reports
    /// unanswered requests as issues (without hiding the test's own error).
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let tape = try Tape(
            cassette: RecordSettings.cassetteURL(named: name, filePath: filePath), mode: mode, playback: playback,
            matching: rules, redactor: redactor, timing: timing, seed: seed)
        var bodyError: (any Error)?
        do {
            // The tape is `Tape.current`, and the default transport of TapedeckClient, so that
            // Alamofire-style `Session()` and `AF` in the test talk to the cassette.
            try await Tape.$current.withValue(tape) {
                try await DefaultTransport.$current.withValue(tape.makeClientTransport()) { try await function() }
            }
        } catch {
            bodyError = error
        }
        // Finish even when the body failed: what was recorded is kept (a failed re-recording is
        // added to the cassette, not put in its place). The body's own error stays the one thrown.
        do {
            try tape.finish(succeeded: bodyError == nil)
        } catch let TapeError.unansweredRequests(misses) {
            for miss in misses { Issue.record(Comment(rawValue: miss), sourceLocation: sourceLocation) }
        } catch where bodyError != nil {
            Issue.record(error, sourceLocation: sourceLocation)
        }
        if let bodyError { throw bodyError }
    }
}

extension Trait where Self == CassetteTrait {
    /// Binds the test to cassette `name` (`Cassettes/<name>.har.gz` beside the test file, or in
    /// `TAPEDECK_CASSETTES`; an absolute path is used as it is). `mode` by default:
    /// `TAPEDECK_RECORD`, else replay-only in CI and `once` elsewhere. Thrown errors count as failure (then a re-recording does not replace the
    /// cassette); failed expectations that do not throw are not seen by the trait.
    public static func cassette(
        _ name: String, mode: TapeMode = .fromEnvironment, playback: CassetteRecorder.Playback = .strict,
        matching rules: MatchRules = MatchRules(), redactor: Redactor = Redactor(), timing: Tape.Timing = .asRecorded,
        seed: UInt64 = 1, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        CassetteTrait(name: name, mode: mode, playback: playback, rules: rules, redactor: redactor, timing: timing,
                      seed: seed, filePath: filePath, sourceLocation: sourceLocation)
    }
}
