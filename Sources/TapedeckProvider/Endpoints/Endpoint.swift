public import Foundation
public import TapedeckClient
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What a stub answers for an endpoint.
public enum EndpointSampleResponse: @unchecked Sendable {
    // @unchecked Sendable: HTTPURLResponse is an immutable object once made (not marked Sendable on Linux).

    /// A response with this status and body (its `HTTPURLResponse` is made for the request's URL,
    /// with no header fields).
    case networkResponse(Int, Data)
    /// This exact response and body (the ``Response/response`` is this object).
    case response(HTTPURLResponse, Data)
    /// The request fails with this error, without a response (e.g. `URLError(.notConnectedToInternet)`).
    case networkError(any Error)
}

/// A target made concrete: a URL string, a method, a task, header fields and a sample response.
///
/// The provider's endpoint closure makes one from each target (``MoyaProvider/defaultEndpointMapping(for:)``);
/// yours can change it before it becomes a URLRequest. Two endpoints are equal when the URLRequests
/// they build are (URL with query, method, header fields, body) — that is how in-flight requests
/// are matched — or, when neither builds, when their URL, method and header fields are.
///
/// ```swift
/// let provider = MoyaProvider<GitHub>(session: session, endpointClosure: { target in
///     MoyaProvider.defaultEndpointMapping(for: target)
///         .adding(newHTTPHeaderFields: ["X-App-Version": "1.2"])
/// })
/// ```
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// Makes the sample response when a stub answers (called then, not before).
    public typealias SampleResponseClosure = @Sendable () -> EndpointSampleResponse

    /// The full URL, as a string (a ``ProviderError/requestMapping(_:)`` when it is not a URL).
    public let url: String
    /// Makes what a stub answers.
    public let sampleResponseClosure: SampleResponseClosure
    /// The HTTP method.
    public let method: HTTPMethod
    /// What the request carries.
    public let task: TargetTask
    /// The request's header fields.
    public let httpHeaderFields: [String: String]?

    /// An endpoint from its parts.
    @preconcurrency
    public init(
        url: String, sampleResponseClosure: @escaping SampleResponseClosure, method: HTTPMethod, task: TargetTask,
        httpHeaderFields: [String: String]?
    ) {
        self.url = url
        self.sampleResponseClosure = sampleResponseClosure
        self.method = method
        self.task = task
        self.httpHeaderFields = httpHeaderFields
    }

    /// The same endpoint with `newHTTPHeaderFields` added; a field already there takes the new value
    /// (none given: the same header fields, nil staying nil, as in Moya).
    public func adding(newHTTPHeaderFields: [String: String]) -> Endpoint {
        guard !newHTTPHeaderFields.isEmpty else { return self }
        return Endpoint(url: url, sampleResponseClosure: sampleResponseClosure, method: method, task: task,
                        httpHeaderFields: (httpHeaderFields ?? [:]).merging(newHTTPHeaderFields) { _, new in new })
    }

    /// The same endpoint with another task.
    public func replacing(task: TargetTask) -> Endpoint {
        Endpoint(url: url, sampleResponseClosure: sampleResponseClosure, method: method, task: task, httpHeaderFields: httpHeaderFields)
    }

    /// `GET http://api.test/zen`.
    public var description: String { "\(method.rawValue) \(url)" }

    // MARK: Hashable (by the URLRequest built)

    /// What identifies the request this endpoint builds (the in-flight key).
    var identity: Identity {
        guard let request = try? urlRequest() else {
            return .unbuildable(url: url, method: method.rawValue, headers: httpHeaderFields ?? [:])
        }
        return .built(url: request.url?.absoluteString ?? url, method: request.httpMethod ?? method.rawValue,
                      headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody, upload: UploadBody(task))
    }

    enum Identity: Hashable, Sendable {
        case built(url: String, method: String, headers: [String: String], body: Data?, upload: UploadBody?)
        case unbuildable(url: String, method: String, headers: [String: String])
    }

    /// An upload's body, which its URLRequest does not carry: two uploads to one URL are equal
    /// only with the same file or the same parts (so `trackInflights` never merges different ones).
    enum UploadBody: Hashable, @unchecked Sendable {
        // @unchecked Sendable: parts are only compared (a stream part by identity).
        case file(URL)
        case parts([MultipartFormData])

        init?(_ task: TargetTask) {
            switch task {
            case let .uploadFile(url): self = .file(url)
            case let .uploadMultipart(parts), let .uploadCompositeMultipart(parts, _): self = .parts(parts)
            case let .uploadMultipartFormData(form), let .uploadCompositeMultipartFormData(form, _): self = .parts([form])
            default: return nil
            }
        }
    }

    /// Equal when the requests they build are equal (the sample response is not compared).
    public static func == (lhs: Endpoint, rhs: Endpoint) -> Bool {
        lhs.identity == rhs.identity
    }

    /// Hashes the request the endpoint builds.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }
}
