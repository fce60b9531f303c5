public import Foundation

/// What one run of a scenario produced: each request's fate, the failed expectations and
/// invariants, the trace hash, the virtual duration, the faults that fired, and the line that
/// reproduces it. Codable: `tapedeck run --format json` prints it.
///
/// ```swift
/// let outcome = try ScenarioRunner().run(scenario, seed: 7)
/// if !outcome.passed { print(outcome.failures.map(\.message), outcome.reproduction) }
/// ```
public struct Outcome: Codable, Hashable, Sendable {
    /// The scenario's name.
    public var scenario: String
    /// The file it came from (empty for a scenario built in code).
    public var file: String
    /// The seed the run used (the same seed reproduces it).
    public var seed: UInt64
    /// True when every expectation and invariant held.
    public var passed: Bool { failures.isEmpty }
    /// Per request, in script order.
    public var requests: [RequestOutcome]
    /// What did not hold (empty when passed).
    public var failures: [Failure]
    /// The trace hash (sixteen hex digits): equal seeds give equal hashes.
    public var traceHash: String
    /// Virtual time from start to the end of the run.
    public var virtualNanoseconds: Int64
    /// Jobs the simulation ran.
    public var jobs: Int
    /// Every fault that fired, in order.
    public var faults: [FiredFaultRecord]
    /// Fault sites enabled for this seed (BUGGIFY: a site is on or off per seed).
    public var enabledSites: [String]
    /// What reproduces this run: `tapedeck run FILE --seed N`.
    public var reproduction: String
    /// A note on determinism (e.g. a client on its own threads), empty when the run is deterministic.
    public var determinismNote: String
    /// The lanes of the timeline, one per request.
    public var timeline: Timeline
    /// What a recording run did to its cassette (nil when the run did not record).
    public var recording: RecordingReport? = nil

    /// The virtual duration.
    public var virtualDuration: Duration { .nanoseconds(virtualNanoseconds) }
}

/// One request's fate.
public struct RequestOutcome: Codable, Hashable, Sendable {
    /// Its name in the script (`items`, or `items#2` for a repeat).
    public var name: String
    /// The HTTP method it was sent with.
    public var method: String
    /// The URL it was sent to.
    public var url: String
    /// The final status, if a response came.
    public var status: Int?
    /// How it failed (``ErrorKind/none`` when it did not).
    public var error: ErrorKind
    /// The error's description, when it failed.
    public var errorDetail: String?
    /// Attempts made: the tasks the client created (1 + retries; 0 when the request was cancelled
    /// before it had a task).
    public var attempts: Int
    /// When it was sent (virtual nanoseconds).
    public var startNanoseconds: Int64
    /// When its completion handler ran (virtual nanoseconds; nil if it never finished).
    public var endNanoseconds: Int64?
    /// How many times its completion handler ran (must be 1).
    public var handlerCalls: Int
    /// The faults that hit its exchanges.
    public var faults: [String]
    /// The body's length (for a failed request, what arrived before the failure).
    public var bodyBytes: Int
    /// The body's first bytes as text (for reports).
    public var bodyPreview: String
    /// The whole body, kept for expectations (not encoded).
    public var body: Data?
    /// How many body pieces a stream request's handler got (nil: not a stream request).
    public var pieces: Int? = nil
    /// Why the client gave a failed request up when neither its error kind nor its error say: a
    /// response whose `Retry-After` asked for longer than `client.retry.retryAfterLimit` is not
    /// retried and ends with its own error (`validation after 503`). Nil otherwise.
    public var whyNotRetried: String? = nil

    enum CodingKeys: String, CodingKey {
        case name, method, url, status, error, errorDetail, attempts, startNanoseconds, endNanoseconds, handlerCalls, faults, bodyBytes, bodyPreview,
             pieces, whyNotRetried
    }

    /// Start and end as durations.
    public var start: Duration { .nanoseconds(startNanoseconds) }
    /// When its completion handler ran, if it did.
    public var end: Duration? { endNanoseconds.map { .nanoseconds($0) } }

    /// How it ended, in a word or two: the error kind when it failed (with the status of a
    /// response that had arrived: `connectionLost after 200`, `cancelled after 503`), else the status.
    public var result: String {
        if error != .none { return error.rawValue + (status.map { " after \($0)" } ?? "") }
        return status.map(String.init) ?? "no answer"
    }
}

/// An expectation or invariant that did not hold.
public struct Failure: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Expectation (per request) or invariant (every run).
    public enum Kind: String, Codable, Hashable, Sendable {
        /// A request's expectation from the file (`status`, `attempts`, `bodyBytes`...).
        case expectation
        /// A property every run must have (`completesOnce`, `noStall`...).
        case invariant
    }

    /// Expectation or invariant.
    public var kind: Kind
    /// The request it concerns (nil for a run-wide invariant).
    public var request: String?
    /// Which check: `status`, `attempts`, `completesOnce`, `noStall`, ...
    public var check: String
    /// What was expected and what happened (`expected 200, got 503`).
    public var message: String

    /// `expectation items#2 status: expected 200, got 503`.
    public var description: String {
        "\(kind.rawValue) \(request.map { $0 + " " } ?? "")\(check): \(message)"
    }
}

/// A fault that fired, for outcomes and timelines.
public struct FiredFaultRecord: Codable, Hashable, Sendable {
    /// The site's name.
    public var site: String
    /// The request (its name), if it was one of the script's.
    public var request: String?
    /// The request's attempt it struck (1: the first; 0 when not an attempt's).
    public var attempt: Int
    /// The exchange it struck, numbered in the order tasks started (0 when none).
    public var exchange: Int
    /// Where and what: `responseHead: status 503`, and for a fault on the response head that
    /// came later than the fault was decided (a delay at that point), when it came:
    /// `responseHead: status 503 (the head arrived at 2s)`.
    public var what: String
    /// When it fired: the instant it was decided (virtual nanoseconds) — for a fault on the
    /// response head, when the head was due, before the delays decided with it.
    public var timeNanoseconds: Int64
}

extension Outcome {
    /// The path `text` quoted for a POSIX shell when it needs to be (reproduction lines are pasted
    /// into one); a relative path that begins with `-` gets `./` first, so that no command takes
    /// it for an option.
    ///
    /// ```swift
    /// Outcome.shellQuoted("my scenario.yaml")   // 'my scenario.yaml'
    /// Outcome.shellQuoted("-dash.yaml")         // ./-dash.yaml
    /// ```
    public static func shellQuoted(_ text: String) -> String {
        let text = text.hasPrefix("-") ? "./" + text : text
        let plain = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:=,@%".contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
