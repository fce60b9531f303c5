public import Foundation
public import TapedeckBridge
public import TapedeckCassettes
public import TapedeckNetwork
public import TapedeckScheduling
import Synchronization
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A test's simulated world bound to one cassette: a seeded scheduler, a simulated network whose
/// answers come from the cassette (recording what it lacks, per the record mode), a harness that
/// hands out URLSessions, and a root queue for the client.
///
/// ```swift
/// let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"))
/// let (data, response) = try await tape.perform(URL(string: "https://api.example/login")!)
/// try tape.finish()       // merges anything recorded; throws if a request had no answer
/// ```
///
/// In Swift Testing, the `.cassette("name")` trait (``CassetteTrait``) builds it, publishes it as
/// ``current`` for the test body and finishes it afterwards; in XCTest, `useCassette(_:)` does the
/// same around a test method.
public final class Tape: Sendable {
    /// How recorded timings are replayed on the virtual clock.
    public enum Timing: Hashable, Sendable {
        /// Every answer at once.
        case instant
        /// Each phase as long as it was when recorded (free: the clock is virtual).
        case asRecorded
        /// Recorded durations multiplied by a factor.
        case scaled(Double)

        var scale: Double {
            switch self {
            case .instant: 0
            case .asRecorded: 1
            case let .scaled(factor): factor
            }
        }
    }

    /// The tape bound to the running test by the `.cassette` trait (nil outside such a test).
    @TaskLocal public static var current: Tape?

    /// The cassette file (it may not exist yet when recording).
    public let cassetteURL: URL
    /// The record mode in force (resolved from the environment when not fixed).
    public let mode: CassetteRecorder.Mode
    /// The tape's seeded scheduler.
    public let scheduler: SimulatedScheduler
    /// The simulated network, answered by ``recorder``.
    public let network: SimulatedNetwork
    /// The harness that hands out URLSessions on ``network``.
    public let harness: Harness
    /// The queue URLSession callbacks and completion handlers run on (the client's root queue).
    public let rootQueue: SimulatedQueue
    /// The cassette's recorder (also the network's fallback responder).
    public let recorder: CassetteRecorder
    private let defaultSession = Mutex<URLSession?>(nil)
    /// Where async callers' simulation runs.
    private let driver = DispatchQueue(label: "tapedeck.tape.driver")

    /// Opens `cassette` (a `.har.gz` or `.har` path) in `mode` (by default from the environment:
    /// `TAPEDECK_RECORD`, else replay-only in CI and `once` elsewhere). `externalWaitLimit` bounds,
    /// in real time, how long the simulation waits for the client's own threads to answer what it
    /// asked them (a redirect's delegate, a body they must read), before it fails saying what never came.
    public init(
        cassette: URL, mode: TapeMode = .fromEnvironment, playback: CassetteRecorder.Playback = .strict,
        matching rules: MatchRules = MatchRules(), afterLast: CassettePlayer.AfterLast = .repeatLast,
        redactor: Redactor = Redactor(), live: LiveForwarder.Options = LiveForwarder.Options(),
        timing: Timing = .asRecorded, seed: UInt64 = 1, strictLoading: Bool = false, externalWaitLimit: Duration = .seconds(10)
    ) throws {
        let mode = try mode.resolved()
        cassetteURL = cassette
        self.mode = mode
        recorder = try CassetteRecorder(cassette: cassette, options: CassetteRecorder.Options(
            mode: mode, playback: playback, rules: rules, afterLast: afterLast, redactor: redactor, live: live,
            strictLoading: strictLoading))
        if let recovery = recorder.recovery {
            // The cassette file changed on opening: said, in any mode (replay-only too).
            try? FileHandle.standardError.write(contentsOf: Data((recovery.summary(by: "tapedeck: \(cassette.lastPathComponent)") + "\n").utf8))
        }
        for skipped in recorder.base.skipped {
            // Entries another tool wrote that cannot be replayed (strictLoading makes them an error).
            try? FileHandle.standardError.write(contentsOf: Data("tapedeck: \(cassette.lastPathComponent): \(skipped)\n".utf8))
        }
        scheduler = SimulatedScheduler(seed: seed, externalWaitLimit: externalWaitLimit)
        network = SimulatedNetwork(scheduler: scheduler)
        network.add(Route(.any, responder: recorder, options: RouteOptions(latency: .recorded(scale: timing.scale))))
        harness = Harness(network: network)
        rootQueue = scheduler.makeSimulatedQueue(label: "tape.rootQueue", target: nil)
    }

    /// A URLSession bound to the cassette; its delegate and completion handlers run on ``rootQueue``,
    /// a queue of the tape's simulation, so `run()` (or `perform`) answers its tasks. Its async
    /// methods (`data(for:)`) wait for a run nobody starts: for async/await code, make the session
    /// from ``configuration(base:)`` and await inside `serving { … }`.
    public func makeURLSession(configuration: URLSessionConfiguration = .ephemeral, delegate: (any URLSessionDelegate)? = nil) -> URLSession {
        harness.makeSession(configuration: configuration, delegate: delegate, delegateQueue: rootQueue)
    }

    /// The session the `perform` methods use (as ``makeURLSession(configuration:delegate:)``
    /// makes them: not for async/await code, which takes a session from ``configuration(base:)``).
    public var session: URLSession {
        defaultSession.withLock { session in
            if let session { return session }
            let made = makeURLSession()
            session = made
            return made
        }
    }

    /// Sends `request`, runs the simulation until nothing is left to do, and returns the answer
    /// (throws the `URLError` the client got, or a ``TapeError``).
    public func perform(_ request: URLRequest) throws -> (data: Data, response: HTTPURLResponse) {
        let answer = Mutex<(Data?, URLResponse?, (any Error)?)?>(nil)
        let session = session
        rootQueue.async {
            session.dataTask(with: request) { data, response, error in
                answer.withLock { $0 = (data, response, error) }
            }.resume()
        }
        try scheduler.runUntilIdle()
        guard let (data, response, error) = answer.withLock({ $0 }) else {
            throw TapeError.noAnswer(request.url?.absoluteString ?? "?")
        }
        if let error { throw error }
        guard let http = response as? HTTPURLResponse else { throw TapeError.noAnswer(request.url?.absoluteString ?? "?") }
        return (data ?? Data(), http)
    }

    /// `perform` for a URL (GET).
    public func perform(_ url: URL) throws -> (data: Data, response: HTTPURLResponse) {
        try perform(URLRequest(url: url))
    }

    /// Runs the simulation until nothing is left to do (for tests that start their own tasks),
    /// taking in first what clients on their own threads started (see ``configuration(base:)``).
    @discardableResult
    public func run() throws -> RunSummary {
        try harness.runUntilIdle()
    }

    // Clients that build their own URLSession: real Alamofire, Moya, hand-written code.

    /// A configuration answered by this tape (cassette, recording, stubs and faults on
    /// ``network``) for a client that builds its own URLSession with its own delegate and queues.
    ///
    /// ```swift
    /// let session = Alamofire.Session(configuration: tape.configuration())
    /// let user = try await tape.serving {
    ///     try await session.request("https://api.example/user").serializingDecodable(User.self).value
    /// }
    /// ```
    ///
    /// The client's callbacks run on its own queues; ``serving(pacing:timeout:isolation:_:)``,
    /// ``serve(pacing:timeout:_:)`` or ``waitUntilIdle(timeout:)`` run the simulation meanwhile.
    /// Recorded timings follow the tape's ``Timing`` on the virtual clock; `Pacing` decides how
    /// that clock relates to the wall clock the client's own timers use.
    public func configuration(base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        harness.configuration(base: base)
    }

    /// Runs `body` while the tape serves clients on their own threads, then waits until every
    /// request they started is answered (see `Harness.serve(pacing:timeout:_:)`).
    public func serve<R>(pacing: Pacing = .instant, timeout: Duration = .seconds(10), _ body: () throws -> R) throws -> R {
        try harness.serve(pacing: pacing, timeout: timeout, body)
    }

    /// ``serve(pacing:timeout:_:)`` for async code; `body` runs in the caller's isolation (a
    /// `@MainActor` test's closure needs no `@Sendable`).
    ///
    /// ```swift
    /// let (data, _) = try await tape.serving { try await mySession.data(from: url) }
    /// ```
    public func serving<R: Sendable>(
        pacing: Pacing = .instant, timeout: Duration = .seconds(10), isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async throws -> R {
        try await harness.serving(pacing: pacing, timeout: timeout, isolation: isolation, body)
    }

    /// Blocks until every request clients on their own threads started is answered (serving
    /// meanwhile); throws a `ServeError` naming each request never answered or still in flight
    /// after `timeout` of real time.
    public func waitUntilIdle(timeout: Duration = .seconds(10)) throws {
        try harness.waitUntilIdle(timeout: timeout)
    }

    /// Whether a rerun with the same seed would do the same for clients on their own threads:
    /// sequential requests do, concurrent ones may not (see `ReproducibilityReport`).
    public var determinism: ReproducibilityReport {
        harness.determinism
    }

    // Async callers: the simulation runs on the tape's own thread, never blocking a thread of
    // Swift's cooperative pool (where an in-process server being recorded may need to run).

    /// ``perform(_:)-(URLRequest)`` from async code.
    public func perform(_ request: URLRequest) async throws -> (data: Data, response: HTTPURLResponse) {
        try await onDriver { try self.perform(request) }
    }

    /// ``perform(_:)-(URL)`` from async code.
    public func perform(_ url: URL) async throws -> (data: Data, response: HTTPURLResponse) {
        try await onDriver { try self.perform(URLRequest(url: url)) }
    }

    /// ``run()`` from async code.
    @discardableResult
    public func run() async throws -> RunSummary {
        try await onDriver { try self.scheduler.runUntilIdle() }
    }

    private func onDriver<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            driver.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Writes what was recorded into the cassette and checks that every request was answered:
    /// throws ``TapeError/unansweredRequests(_:)`` listing each miss with the closest recorded
    /// entries. Recordings are kept even when it throws. `succeeded` false (the test failed):
    /// a re-recording (`all`) is added to the cassette instead of replacing it.
    /// Transport failures that were recorded (a server that was down) are printed to standard
    /// error, since they will be replayed from now on. The tape's simulation ends here
    /// (`Harness.endSimulation()`): a request of a client on its own threads still in flight ends
    /// with `URLError.cancelled` naming it, and the tape cannot be used afterwards.
    @discardableResult
    public func finish(succeeded: Bool = true) throws -> CassetteRecorder.Summary {
        // From now on a client on its own threads gets a clear error instead of a request that
        // nobody will ever serve.
        harness.close()
        defaultSession.withLock { $0?.finishTasksAndInvalidate() }
        // Frees the sessions and the simulation (see Harness.endSimulation()).
        defer { harness.endSimulation() }
        let summary = try recorder.finish(succeeded: succeeded)
        for failure in summary.recordedFailures {
            try? FileHandle.standardError.write(contentsOf: Data(
                "tapedeck: recorded a transport failure into \(cassetteURL.lastPathComponent): \(failure) — it will be replayed; re-record to change it\n".utf8))
        }
        if !summary.misses.isEmpty { throw TapeError.unansweredRequests(summary.misses) }
        return summary
    }
}

/// What went wrong around a tape.
public enum TapeError: Error, CustomStringConvertible, Sendable {
    /// `TAPEDECK_RECORD` holds something that is not a record mode.
    case invalidRecordMode(String)
    /// The simulation ended without answering a request (it stalled).
    case noAnswer(String)
    /// Requests the cassette did not answer, each explained.
    case unansweredRequests([String])
    /// A request of a Session made under a tape that has finished (the cassette's file name): a
    /// client kept across tests.
    case finished(String)

    /// What went wrong, and how to fix it.
    public var description: String {
        switch self {
        case let .invalidRecordMode(value):
            "TAPEDECK_RECORD=\(value) is not a record mode — use none, once, new_episodes or all"
        case let .noAnswer(url):
            "the simulation ended without answering \(url)"
        case let .unansweredRequests(misses):
            "\(misses.count) request(s) had no recorded answer (replay only; record with TAPEDECK_RECORD=new_episodes):\n"
                + misses.joined(separator: "\n")
        case let .finished(cassette):
            "this request's Session was made under the tape of \(cassette), which has finished (its test is over): a client kept "
                + "across tests (a singleton, a static let) keeps the tape it was made under — make the client, or its Session, in each test"
        }
    }
}

/// Which record mode a tape uses: a fixed one, or the environment's (the default).
///
/// A type of its own (not an optional mode) so that `mode: .none` cannot silently mean "nil";
/// vcr's `none` is spelled `.replayOnly`.
public struct TapeMode: Hashable, Sendable {
    let fixed: CassetteRecorder.Mode?

    /// `TAPEDECK_RECORD` when set; else replay-only when `CI` is set, `once` elsewhere.
    public static let fromEnvironment = TapeMode(fixed: nil)
    /// Replay only: a request the cassette does not answer fails, naming the closest entries.
    public static let replayOnly = TapeMode(fixed: .replayOnly)
    /// Record everything when the cassette does not exist; otherwise replay only.
    public static let once = TapeMode(fixed: .once)
    /// Replay what matches, record what does not.
    public static let newEpisodes = TapeMode(fixed: .newEpisodes)
    /// Re-record everything, replacing the cassette when the test succeeds.
    public static let all = TapeMode(fixed: .all)

    /// A fixed mode, given as the recorder's.
    public static func fixed(_ mode: CassetteRecorder.Mode) -> TapeMode {
        TapeMode(fixed: mode)
    }

    /// The mode to use now (reads the environment for ``fromEnvironment``).
    public func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CassetteRecorder.Mode {
        try fixed ?? RecordSettings.mode(environment: environment)
    }
}

/// Where cassettes live and which record mode applies, from the environment.
package enum RecordSettings {
    /// `TAPEDECK_RECORD` when set; otherwise `none` when the `CI` variable is set (a CI run never
    /// goes live by surprise) and `once` elsewhere.
    package static func mode(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CassetteRecorder.Mode {
        if let value = environment["TAPEDECK_RECORD"], !value.isEmpty {
            guard let mode = CassetteRecorder.Mode(parsing: value) else { throw TapeError.invalidRecordMode(value) }
            return mode
        }
        let ci = environment["CI"]?.lowercased() ?? ""
        return ci.isEmpty || ci == "false" || ci == "0" ? .once : .replayOnly
    }

    /// The file for cassette `name`: in `TAPEDECK_CASSETTES` when set, else in a `Cassettes`
    /// directory beside the test file; an absolute path (`/…`) is that file. A name without an
    /// extension gets `.har.gz`, as does any other name unless it names another tool's cassette
    /// that is there (`.yaml`, `.yml`, `.json`, VCR's `.zz`), which replays as it is.
    package static func cassetteURL(
        named name: String, filePath: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let directory: URL
        if let configured = environment["TAPEDECK_CASSETTES"], !configured.isEmpty {
            directory = URL(fileURLWithPath: configured, isDirectory: true)
        } else {
            directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Cassettes", isDirectory: true)
        }
        // An absolute path was put under the directory (`Cassettes/tmp/x.har.gz` for `/tmp/x`).
        let place = { (file: String) in file.hasPrefix("/") ? URL(fileURLWithPath: file) : directory.appendingPathComponent(file) }
        let lowered = name.lowercased()
        if lowered.hasSuffix(".har") || lowered.hasSuffix(".har.gz") { return place(name) }
        // `users.json` named `users.json.har.gz` before other tools' files were read: only a file
        // that exists under the name itself is taken as another tool's.
        if [".yaml", ".yml", ".json", ".zz"].contains(where: lowered.hasSuffix), FileManager.default.fileExists(atPath: place(name).path) {
            return place(name)
        }
        return place(name + ".har.gz")
    }
}
