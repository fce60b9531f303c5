public import Foundation

/// One step of a scenario's script.
public enum ScriptStep: Hashable, Sendable {
    /// Send a request (possibly several times).
    case request(RequestStep)
    /// Cancel a request, at an instant or on an event.
    case cancel(CancelStep)
    /// Cancel every running request at an instant (`Session.cancelAllRequests`).
    case cancelAll(at: Duration)
}

/// A request the script sends, `repeat` times, the first at `at`, the next ones `every` apart
/// (0: all at once, concurrently).
public struct RequestStep: Hashable, Sendable {
    /// Its name in expectations, outcomes and the timeline (repeats are `name#2`, `name#3`...).
    public var name: String
    /// The HTTP method (`GET`, `POST`...).
    public var method: String
    /// Where it goes (a cassette's or a stub's URL, or a path on the token server).
    public var url: URL
    /// Header fields it carries, besides the client's.
    public var headers: [Header]
    /// The request body, if any.
    public var body: Data?
    /// Validate this request (overrides the client's validation; nil: the client's).
    public var validation: ValidationSetup??
    /// How many times it is sent (each one its own request: `name#1`, `name#2`...).
    public var repetitions: Int
    /// When the first one is sent (virtual time from the start).
    public var at: Duration
    /// The virtual time between one send and the next (0: all at once).
    public var every: Duration
    /// The provider target it sends (a `target:` step; nil: a plain request). Its method and URL
    /// are the target's; the target's task, headers and validation apply.
    public var target: String?

    /// A request step sending `method url` once at time zero.
    public init(name: String, method: String = "GET", url: URL, headers: [Header] = [], body: Data? = nil,
                validation: ValidationSetup?? = nil, repetitions: Int = 1, at: Duration = .zero, every: Duration = .zero,
                target: String? = nil) {
        self.name = name
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.validation = validation
        self.repetitions = repetitions
        self.at = at
        self.every = every
        self.target = target
    }

    /// Each repetition as its own request.
    public func expanded() -> [ScriptRequest] {
        (0..<repetitions).map { index in
            ScriptRequest(name: repetitions == 1 ? name : "\(name)#\(index + 1)", step: self,
                          start: at + every * index)
        }
    }
}

/// One request the script sends.
public struct ScriptRequest: Hashable, Sendable {
    /// `items`, or `items#2` for a repeat.
    public var name: String
    /// The step it comes from.
    public var step: RequestStep
    /// When it is sent.
    public var start: Duration

    /// Whether this request is what `target` names: its own name, or its step's name (every repeat).
    public func isNamed(_ target: String) -> Bool {
        target == name || target == step.name
    }
}

/// A cancel of the request(s) `target` names.
public struct CancelStep: Hashable, Sendable {
    /// When the cancel happens.
    public enum Trigger: Hashable, Sendable {
        /// At this virtual instant.
        case at(Duration)
        /// While the request waits for its n-th retry (1: the first backoff), as soon as it starts.
        case duringBackoff(Int)
        /// When its n-th attempt's task is created.
        case atAttempt(Int)
    }

    /// A request name (`items`: every repeat; `items#2`: one).
    public var target: String
    /// When the cancel happens.
    public var trigger: Trigger

    /// A cancel of `target` when `trigger` happens.
    public init(target: String, trigger: Trigger) {
        self.target = target
        self.trigger = trigger
    }
}
