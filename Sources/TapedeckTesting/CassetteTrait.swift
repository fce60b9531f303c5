package import Foundation
public import Testing
public import TapedeckCassettes
import Synchronization
import TapedeckClient
import TapedeckScenarios

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
    /// A fault plan file struck into the tape's traffic (``Tape/injectFaults(from:seed:)``): a path
    /// relative to the test file's folder, or absolute; nil for none.
    public let faults: String?
    /// The test file's path (`#filePath`), which locates the cassette.
    public let filePath: String
    /// Where the trait was written, for the issues it reports.
    public let sourceLocation: SourceLocation

    /// Builds the tape, runs the test with it as ``Tape/current``, then finishes it and reports
    /// unanswered requests as issues (without hiding the test's own error).
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let cassette = RecordSettings.cassetteURL(named: name, filePath: filePath)
        // The plan first: a bad file fails the test before a tape holds the cassette.
        let plan = try faults.map { faults in
            let folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
            return try FaultPlan.load(faults.hasPrefix("/") ? URL(fileURLWithPath: faults) : folder.appendingPathComponent(faults))
        }
        let tape = try Tape(
            cassette: cassette, mode: Self.mode(mode, for: test, cassette: cassette), playback: playback,
            matching: rules, redactor: redactor, timing: timing, seed: seed)
        if let plan { tape.injectFaults(plan) }
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

extension CassetteTrait {
    /// Parameterized tests whose first case began recording their cassette in `once` mode, by
    /// test and cassette.
    private static let firstRecordings = Mutex<Set<String>>([])

    /// `mode`, except for a parameterized test in `once` whose cassette an earlier case of this
    /// run created: its cases share the one cassette, so each records what it adds
    /// (`newEpisodes`) instead of the second finding the first's file and replaying only. The next
    /// run finds the file and replays.
    package static func mode(_ mode: TapeMode, for test: Test, cassette: URL) -> TapeMode {
        guard test.isParameterized, (try? mode.resolved()) == .once else { return mode }
        let key = "\(test.id)\u{1F}\(cassette.standardizedFileURL.path)"
        if !FileManager.default.fileExists(atPath: cassette.path) {
            firstRecordings.withLock { _ = $0.insert(key) }
            return mode
        }
        return firstRecordings.withLock { $0.contains(key) } ? .newEpisodes : mode
    }
}

extension Trait where Self == CassetteTrait {
    /// Binds the test to cassette `name` (`Cassettes/<name>.har.gz` beside the test file, or in
    /// `TAPEDECK_CASSETTES`; an absolute path is used as it is). `mode` by default:
    /// `TAPEDECK_RECORD`, else replay-only in CI and `once` elsewhere. Thrown errors count as failure (then a re-recording does not replace the
    /// cassette); failed expectations that do not throw are not seen by the trait. `faults` names a
    /// fault plan file (relative to the test file's folder) whose faults strike the tape's traffic,
    /// drawn from its `seed:` or else `seed` (``Tape/injectFaults(from:seed:)``; `Tape.current?.faults` reads what fired).
    public static func cassette(
        _ name: String, mode: TapeMode = .fromEnvironment, playback: CassetteRecorder.Playback = .strict,
        matching rules: MatchRules = MatchRules(), redactor: Redactor = Redactor(), timing: Tape.Timing = .asRecorded,
        seed: UInt64 = 1, faults: String? = nil, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        CassetteTrait(name: name, mode: mode, playback: playback, rules: rules, redactor: redactor, timing: timing,
                      seed: seed, faults: faults, filePath: filePath, sourceLocation: sourceLocation)
    }
}
