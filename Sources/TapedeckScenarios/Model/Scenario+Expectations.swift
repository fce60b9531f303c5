/// What must come out of a run. Besides these, every run checks the invariants: every request
/// completes exactly once, nothing stalls, no queue rule is broken, no URLProtocol instance leaks,
/// no lifecycle transition is illegal, and no ledger anomaly happens unless allowed here.
public struct Expectations: Hashable, Sendable {
    /// Per request name (`items`: every repeat; `items#2`: one), in file order.
    public var requests: [RequestExpectation]
    /// Ledger anomalies the scenario provokes on purpose (`metricsMissing`, `duplicateMetrics`,
    /// `duplicateCompletion`).
    public var allowedAnomalies: Set<String>
    /// How many exchanges reached the network per route (`POST http://api.test/token: 1` pins a
    /// single token refresh however many requests were rejected), in file order.
    public var exchanges: [ExchangeCount]

    /// No expectations beyond the invariants.
    public init(requests: [RequestExpectation] = [], allowedAnomalies: Set<String> = [], exchanges: [ExchangeCount] = []) {
        self.requests = requests
        self.allowedAnomalies = allowedAnomalies
        self.exchanges = exchanges
    }
}

/// The number of exchanges a route must have seen over the whole run (every attempt, retry and
/// token request counts; a cancelled attempt that reached the network counts too).
public struct ExchangeCount: Hashable, Sendable {
    /// The route, as written in the file (`POST http://api.test/token`, `http://api.test/items/*`).
    public var route: RequestPattern
    /// The count must be in this set.
    public var count: IntegerSet

    /// A count expectation.
    public init(route: RequestPattern, count: IntegerSet) {
        self.route = route
        self.count = count
    }
}

/// What one request (or every repeat of one) must end with.
public struct RequestExpectation: Hashable, Sendable {
    /// The request name it applies to.
    public var target: String
    /// The final status must be in this set.
    public var status: IntegerSet?
    /// The request must fail with this kind of error (see ``ErrorKind``).
    public var error: ErrorKind?
    /// The number of attempts (1 + retries) must be in this set.
    public var attempts: IntegerSet?
    /// It must have finished by this virtual instant.
    public var finishedBy: Duration?
    /// The body must contain this text.
    public var bodyContains: String?
    /// JSON fields of the body must equal these values (`items[0].id` → `1`).
    public var json: [JSONExpectation]
    /// The number of body bytes the client ended with must be in this set — for a failed request,
    /// the bytes delivered before the failure (a reset after 4 KiB leaves `4096`).
    public var bodyBytes: IntegerSet?
    /// The number of body pieces a stream request's handler got must be in this set (stream
    /// requests only).
    public var pieces: IntegerSet?

    /// An expectation on `target` (fill in what it checks).
    public init(target: String, status: IntegerSet? = nil, error: ErrorKind? = nil, attempts: IntegerSet? = nil,
                finishedBy: Duration? = nil, bodyContains: String? = nil, json: [JSONExpectation] = [], bodyBytes: IntegerSet? = nil) {
        self.target = target
        self.status = status
        self.error = error
        self.attempts = attempts
        self.finishedBy = finishedBy
        self.bodyContains = bodyContains
        self.json = json
        self.bodyBytes = bodyBytes
    }
}

/// A JSON field of a response body and the value it must have.
public struct JSONExpectation: Hashable, Sendable {
    /// A path: keys separated by dots, array indices in brackets (`items[0].id`).
    public var path: String
    /// The expected value, as JSON text (`1`, `"ada"`, `true`, `null`).
    public var equals: String

    /// A field expectation.
    public init(path: String, equals: String) {
        self.path = path
        self.equals = equals
    }
}

/// How a request can end, as outcomes and expectations name it.
public enum ErrorKind: String, Hashable, Sendable, CaseIterable, Codable {
    /// No error: a response was delivered.
    case none
    /// The request was cancelled (`explicitlyCancelled`, or a cancelled task).
    case cancelled
    /// The request timed out (`URLError.timedOut`).
    case timedOut
    /// The connection dropped (`URLError.networkConnectionLost`).
    case connectionLost
    /// The host refused the connection (`URLError.cannotConnectToHost`).
    case cannotConnect
    /// DNS found no host (`URLError.cannotFindHost`).
    case hostNotFound
    /// The device is offline (`URLError.notConnectedToInternet`).
    case notConnected
    /// Another transport error (a cut body, corrupt gzip: `URLError.unknown` on Linux; others).
    case transport
    /// Validation failed (an unacceptable status or content type).
    case validation
    /// The body could not be serialized or decoded.
    case serialization
    /// Setting up or adapting the request failed (a refresh before sending, say).
    case adaptation
    /// The retrier itself failed (a token refresh after a 401, a custom retrier's error).
    case retry
    /// The session went away.
    case session
}
