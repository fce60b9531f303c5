public import Foundation

/// A Moya-style provider as the scenario's client (the file's `client.provider`): the script's
/// `target:` steps go through a TapedeckProvider `MoyaProvider` over the session the rest of the
/// `client` section describes (its retry, validation, timeouts and queues stay in force).
///
/// ```yaml
/// client:
///   retry: true
///   provider:
///     baseURL: http://api.test
///     trackInflights: true
///     plugins: [{accessToken: t0k3n}, activity]
///     targets:
///       profile: {path: /me, auth: bearer, validate: successCodes}
///       zen: {path: /zen, stub: {delayed: 5s}, sample: {status: 200, body: "calm"}}
/// script:
///   - target: profile
///   - target: zen
/// ```
public struct ProviderSetup: Hashable, Sendable {
    /// The base URL of targets that do not give their own.
    public var baseURL: URL?
    /// How targets are stubbed unless they say (default: never — they go to the network).
    public var stub: StubMode
    /// Share one request among callers of equal endpoints while it is in flight (Moya's `trackInflights`).
    public var trackInflights: Bool
    /// The plugins, in the order they run.
    public var plugins: [PluginSetup]
    /// The targets, by name, in file order.
    public var targets: [TargetSetup]

    /// A provider with no targets yet, nothing stubbed, no plugins.
    public init(baseURL: URL? = nil, stub: StubMode = .never, trackInflights: Bool = false, plugins: [PluginSetup] = [],
                targets: [TargetSetup] = []) {
        self.baseURL = baseURL
        self.stub = stub
        self.trackInflights = trackInflights
        self.plugins = plugins
        self.targets = targets
    }

    /// The target named `name`.
    public func target(named name: String) -> TargetSetup? {
        targets.first { $0.name == name }
    }
}

/// Whether a target is stubbed, and how (Moya's `StubBehavior`; the delay is virtual time).
public enum StubMode: Hashable, Sendable {
    /// Not stubbed: the request goes through the session to the simulated network.
    case never
    /// The sample response at once.
    case immediate
    /// The sample response this long after the request (on the virtual clock).
    case delayed(Duration)
}

/// A plugin the provider runs.
public enum PluginSetup: Hashable, Sendable {
    /// `AccessTokenPlugin` with this token, for targets that name an `auth` scheme.
    case accessToken(String)
    /// `NetworkActivityPlugin`; its began/ended calls are written into the trace.
    case activity
    /// `NetworkLoggerPlugin` logging to the trace (what it would print becomes trace steps).
    case logger
}

/// One target: what its request is, how it is validated and stubbed, what its stub answers.
public struct TargetSetup: Hashable, Sendable {
    /// Its name (what `target:` steps say).
    public var name: String
    /// Its base URL (nil: the provider's).
    public var baseURL: URL?
    /// The path below the base URL.
    public var path: String
    /// The HTTP method.
    public var method: String
    /// What the request carries.
    public var task: TaskSetup
    /// Its header fields.
    public var headers: [Header]
    /// Which statuses it accepts.
    public var validation: TargetValidation
    /// The `Authorization` scheme the access-token plugin uses (`Bearer`, `Basic`, or a custom
    /// scheme); nil: none.
    public var auth: String?
    /// What a stub answers (status, headers, body; or a failure).
    public var sample: StubResponse
    /// How it is stubbed (nil: the provider's mode).
    public var stub: StubMode?

    /// A plain GET of `path` answered `200` with an empty body when stubbed.
    public init(name: String, baseURL: URL? = nil, path: String, method: String = "GET", task: TaskSetup = .plain,
                headers: [Header] = [], validation: TargetValidation = .none, auth: String? = nil,
                sample: StubResponse = StubResponse(), stub: StubMode? = nil) {
        self.name = name
        self.baseURL = baseURL
        self.path = path
        self.method = method
        self.task = task
        self.headers = headers
        self.validation = validation
        self.auth = auth
        self.sample = sample
        self.stub = stub
    }
}

/// What a target's request carries (the provider's task kinds a file can describe).
public enum TaskSetup: Hashable, Sendable {
    /// No body, no parameters.
    case plain
    /// These bytes as the body.
    case data(Data)
    /// Parameters (a JSON object's text) in the query.
    case query(Data)
    /// Parameters (a JSON object's text) as a form body.
    case form(Data)
    /// Parameters (a JSON object's text) as a JSON body.
    case json(Data)
}

/// Which statuses a target accepts (the provider's `ValidationType`).
public enum TargetValidation: Hashable, Sendable {
    /// Any status.
    case none
    /// 200–299.
    case successCodes
    /// 200–399.
    case successAndRedirectCodes
    /// Exactly these.
    case codes([Int])
}
