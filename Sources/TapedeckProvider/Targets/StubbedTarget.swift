public import Foundation
public import TapedeckClient

/// A target made from plain values rather than an enum — what a scenario file (or a quick test)
/// describes: method, URL, task, header fields, what its stub answers and how it is stubbed.
///
/// With `MoyaProvider<StubbedTarget>(session:plugins:...)` each target's own ``stubBehavior``
/// decides whether it is stubbed (see ``MoyaProvider/init(session:callbackQueue:plugins:trackInflights:)``).
///
/// ```swift
/// let zen = StubbedTarget(.get, "http://api.test/zen", sample: .networkResponse(200, Data("ok".utf8)),
///                         stubBehavior: .delayed(seconds: 5))
/// let down = StubbedTarget(.get, "http://api.test/down", sample: .networkError(URLError(.notConnectedToInternet)),
///                          stubBehavior: .immediate)
/// ```
public struct StubbedTarget: TargetType, AccessTokenAuthorizable, CustomStringConvertible {
    /// A short name for logs and descriptions (default: `METHOD path`).
    public var name: String?
    /// The base URL.
    public var baseURL: URL
    /// The path below it.
    public var path: String
    /// The method.
    public var method: HTTPMethod
    /// The task.
    public var task: TargetTask
    /// The header fields.
    public var headers: [String: String]?
    /// What a stub answers.
    public var sampleResponse: EndpointSampleResponse
    /// Which status codes are accepted.
    public var validationType: ValidationType
    /// Whether (and how) this target is stubbed.
    public var stubBehavior: StubBehavior
    /// The `Authorization` scheme the access-token plugin uses (nil: none).
    public var authorizationType: AuthorizationType?

    /// A target from its parts.
    public init(
        name: String? = nil, baseURL: URL, path: String = "", method: HTTPMethod = .get, task: TargetTask = .requestPlain,
        headers: [String: String]? = nil, sample: EndpointSampleResponse = .networkResponse(200, Data()),
        validationType: ValidationType = .none, stubBehavior: StubBehavior = .never, authorizationType: AuthorizationType? = nil
    ) {
        self.name = name
        self.baseURL = baseURL
        self.path = path
        self.method = method
        self.task = task
        self.headers = headers
        self.sampleResponse = sample
        self.validationType = validationType
        self.stubBehavior = stubBehavior
        self.authorizationType = authorizationType
    }

    /// A target for a full URL string (base URL and path split at the path); traps when `url` is
    /// not an absolute URL or has a query (query parameters belong in the task: `.requestParameters(…,
    /// encoding: .queryString)`) — use ``init(name:baseURL:path:method:task:headers:sample:validationType:stubBehavior:authorizationType:)``
    /// for values read from a file.
    public init(
        _ method: HTTPMethod, _ url: String, task: TargetTask = .requestPlain, headers: [String: String]? = nil,
        sample: EndpointSampleResponse = .networkResponse(200, Data()), validationType: ValidationType = .none,
        stubBehavior: StubBehavior = .never, authorizationType: AuthorizationType? = nil
    ) {
        guard let components = URLComponents(string: url), components.scheme != nil, components.host != nil,
              components.query == nil else {
            preconditionFailure("tapedeck: \(url) is not an absolute URL without a query")
        }
        var base = components
        base.path = ""
        base.query = nil
        base.fragment = nil
        self.init(baseURL: base.url!, path: components.path, method: method, task: task, headers: headers, sample: sample,
                  validationType: validationType, stubBehavior: stubBehavior, authorizationType: authorizationType)
    }

    /// The body of a `networkResponse` or `response` sample (empty for an error).
    public var sampleData: Data {
        switch sampleResponse {
        case let .networkResponse(_, data), let .response(_, data): data
        case .networkError: Data()
        }
    }

    /// ``name``, or `METHOD path`.
    public var description: String { name ?? "\(method.rawValue) \(path.isEmpty ? "/" : path)" }
}
