/// How the scenario's client (a TapedeckClient `Session`) is set up.
public struct ClientSetup: Hashable, Sendable {
    /// The queue layout.
    public enum Queues: String, Hashable, Sendable, CaseIterable {
        /// Alamofire's default: the session makes a rootQueue; requestQueue and
        /// serializationQueue target it.
        case alamofire
        /// The app supplies its own root queue (which the session wraps, as Alamofire does).
        case suppliedRoot
        /// A separate serialization queue with its own root (serializers off the rootQueue).
        case separateSerialization
    }

    /// When requests are set up: on `resume()` (lazy) or when created (eager).
    public enum Setup: String, Hashable, Sendable, CaseIterable {
        /// On `resume()`, as Alamofire does by default.
        case lazy
        /// As soon as the request is created, before `resume()`.
        case eager
    }

    /// Which queues the session runs on.
    public var queues: Queues
    /// When requests are set up.
    public var setup: Setup
    /// Retry with Alamofire's RetryPolicy (nil: no retry).
    public var retry: RetrySetup?
    /// Validate responses (nil: no validation unless a request asks).
    public var validation: ValidationSetup?
    /// Authenticate with the token server (AuthenticationInterceptor; needs `traffic.auth`).
    public var authenticates: Bool
    /// `URLSessionConfiguration.timeoutIntervalForRequest`: the longest a task may wait for the
    /// next data (nil: URLSession's 60 s).
    public var requestTimeout: Duration?
    /// `URLSessionConfiguration.timeoutIntervalForResource`: the longest a whole task may take
    /// (nil: URLSession's 7 days).
    public var resourceTimeout: Duration?
    /// Follow redirects (false: the 3xx is the response).
    public var followsRedirects: Bool
    /// How long a completion waits for promised metrics.
    public var metricsGracePeriod: Duration
    /// Header fields every request carries.
    public var headers: [Header]
    /// A Moya-style provider over the session, for the script's `target:` steps (nil: none).
    public var provider: ProviderSetup?

    /// Alamofire's defaults: its queue layout, lazy setup, no retry, no validation, URLSession's
    /// timeouts, redirects followed, a 1 s metrics grace period.
    public init(queues: Queues = .alamofire, setup: Setup = .lazy, retry: RetrySetup? = nil, validation: ValidationSetup? = nil,
                authenticates: Bool = false, requestTimeout: Duration? = nil, resourceTimeout: Duration? = nil,
                followsRedirects: Bool = true, metricsGracePeriod: Duration = .seconds(1), headers: [Header] = [],
                provider: ProviderSetup? = nil) {
        self.queues = queues
        self.setup = setup
        self.retry = retry
        self.validation = validation
        self.authenticates = authenticates
        self.requestTimeout = requestTimeout
        self.resourceTimeout = resourceTimeout
        self.followsRedirects = followsRedirects
        self.metricsGracePeriod = metricsGracePeriod
        self.headers = headers
        self.provider = provider
    }
}

/// RetryPolicy's parameters (Alamofire's defaults unless the file says).
public struct RetrySetup: Hashable, Sendable {
    /// Retries at most (Alamofire's default: 2), so a request makes at most `limit + 1` attempts.
    public var limit: Int
    /// The exponential backoff's base (at least 2): delay = base^retry × scale.
    public var base: Int
    /// The exponential backoff's scale in seconds (Alamofire's default: 0.5).
    public var scale: Double
    /// Methods that may be retried (nil: the idempotent ones).
    public var methods: [String]?
    /// Statuses that call for a retry (nil: 408, 500, 502, 503, 504).
    public var statuses: IntegerSet?
    /// URLError codes that call for a retry (nil: Alamofire's transient ones).
    public var errorCodes: [Int]?
    /// Wait what `Retry-After` says when a response carries it (Alamofire ignores it).
    public var honoursRetryAfter: Bool
    /// The longest `Retry-After` wait honoured; a response asking for longer is not retried
    /// (default: an hour, `RetryPolicy.defaultRetryAfterLimit`).
    public var retryAfterLimit: Duration

    /// Alamofire's defaults: 2 retries, base 2, scale 0.5 s.
    public init(limit: Int = 2, base: Int = 2, scale: Double = 0.5, methods: [String]? = nil, statuses: IntegerSet? = nil,
                errorCodes: [Int]? = nil, honoursRetryAfter: Bool = false, retryAfterLimit: Duration = .seconds(3_600)) {
        self.retryAfterLimit = retryAfterLimit
        self.limit = limit
        self.base = base
        self.scale = scale
        self.methods = methods
        self.statuses = statuses
        self.errorCodes = errorCodes
        self.honoursRetryAfter = honoursRetryAfter
    }
}

/// What validation accepts.
public struct ValidationSetup: Hashable, Sendable {
    /// Acceptable statuses (default 200-299).
    public var statuses: IntegerSet
    /// Acceptable content types; `accept` derives them from the request's Accept header
    /// (Alamofire's `validate()`); nil: any.
    public var contentTypes: ContentTypes?

    /// Where acceptable content types come from.
    public enum ContentTypes: Hashable, Sendable {
        /// From the request's Accept header (Alamofire's `validate()`).
        case fromAccept
        /// These MIME types (wildcards allowed, `application/*`).
        case list([String])
    }

    /// Validation of statuses 200-299 and the Accept header's types (Alamofire's `validate()`).
    public init(statuses: IntegerSet = IntegerSet([200...299]), contentTypes: ContentTypes? = .fromAccept) {
        self.statuses = statuses
        self.contentTypes = contentTypes
    }
}
