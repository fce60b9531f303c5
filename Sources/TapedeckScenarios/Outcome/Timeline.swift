/// What happened on the virtual time axis, one lane per request: its attempts (each a span with
/// how it ended), the waits between them (backoffs and token refresh waits), and marks for faults, cancels and the end.
/// The text, SVG and HTML renderers draw this value.
public struct Timeline: Codable, Hashable, Sendable {
    /// The end of the axis (the run's virtual duration, in nanoseconds).
    public var durationNanoseconds: Int64
    /// The lanes, top to bottom: the script's requests in order, then the support lanes.
    public var lanes: [Lane]

    /// A timeline with these lanes.
    public init(durationNanoseconds: Int64, lanes: [Lane]) {
        self.durationNanoseconds = durationNanoseconds
        self.lanes = lanes
    }

    /// One request's lane.
    public struct Lane: Codable, Hashable, Sendable {
        /// The request's name.
        public var name: String
        /// How it ended, in a few words (`200`, `timedOut`, `cancelled`).
        public var result: String
        /// Whether it met its expectations and invariants.
        public var passed: Bool
        /// False for a lane that is not one of the script's requests (token refreshes, the token
        /// server's expiries): reports draw it apart and do not count it as a request.
        public var isRequest: Bool
        /// The attempts and the waits between them, in time order.
        public var spans: [Span]
        /// Faults, cancels and the end, in time order.
        public var marks: [Mark]

        /// A lane (a request's unless `isRequest` is false).
        public init(name: String, result: String, passed: Bool, isRequest: Bool = true, spans: [Span] = [], marks: [Mark] = []) {
            self.name = name
            self.result = result
            self.passed = passed
            self.isRequest = isRequest
            self.spans = spans
            self.marks = marks
        }
    }

    /// A stretch of time on a lane.
    public struct Span: Codable, Hashable, Sendable {
        /// An attempt (its exchange) or a wait between attempts.
        public enum Kind: String, Codable, Hashable, Sendable {
            /// One exchange: from the task's start to its end.
            case attempt
            /// The wait between the end of one attempt and the start of the next, when the client
            /// put the retry off by a delay (its retry policy's backoff, an honoured `Retry-After`):
            /// what a `during: backoff` cancel strikes.
            case backoff
            /// A wait between attempts that is no backoff: the client held the retry until its
            /// retrier answered — with `client.auth`, the authentication interceptor waiting for a
            /// token refresh (with a client of your own, whatever its retrier waited for). A
            /// `during: backoff` cancel never strikes it.
            case refreshWait
        }

        /// An attempt or a wait.
        public var kind: Kind
        /// Where it starts (virtual nanoseconds).
        public var startNanoseconds: Int64
        /// Where it ends (virtual nanoseconds, at least the start).
        public var endNanoseconds: Int64
        /// For an attempt: how it ended (`200`, `503`, `timedOut`, `cancelled`); for a wait: empty.
        public var label: String
        /// Whether the attempt failed as the client saw it: it was retried, or it was the last and
        /// the request ended in an error (on a support lane: a transport failure or an error status).
        public var failed: Bool

        /// A span.
        public init(kind: Kind, startNanoseconds: Int64, endNanoseconds: Int64, label: String, failed: Bool) {
            self.kind = kind
            self.startNanoseconds = startNanoseconds
            self.endNanoseconds = endNanoseconds
            self.label = label
            self.failed = failed
        }
    }

    /// An instant on a lane.
    public struct Mark: Codable, Hashable, Sendable {
        /// What kind of instant.
        public enum Kind: String, Codable, Hashable, Sendable {
            /// A fault fired on one of the lane's exchanges.
            case fault
            /// The script cancelled the request.
            case cancel
            /// The request's completion handler ran.
            case finish
        }

        /// What kind of instant.
        public var kind: Kind
        /// When (virtual nanoseconds).
        public var timeNanoseconds: Int64
        /// The fault's site and action, the cancel, the final result.
        public var label: String

        /// A mark.
        public init(kind: Kind, timeNanoseconds: Int64, label: String) {
            self.kind = kind
            self.timeNanoseconds = timeNanoseconds
            self.label = label
        }
    }
}
