public import Foundation
public import TapedeckClient

/// One endpoint of an API, described as a value: where it is, how to call it, and what a stub answers.
///
/// A Moya `TargetType` moves over with its import line changed: its `task` is a `Task` (or
/// `Moya.Task`, ``TargetTask``) and its method a `Method` (TapedeckClient's `HTTPMethod`). As in
/// Moya, `Task` here is the target's, so a file importing this module spells Swift's concurrency
/// task `_Concurrency.Task`. Targets are `Sendable`, as what crosses queues must be; the protocol is
/// `@preconcurrency`, so a target that is not (an enum case holding a `[String: Any]`, as Moya code
/// has) compiles silently in the Swift 5 language mode and with a warning in Swift 6's. Upload,
/// download and multipart tasks do not exist (docs/provider.md).
///
/// ```swift
/// enum GitHub: TargetType {
///     case zen
///     case user(String)
///
///     var baseURL: URL { URL(string: "https://api.github.com")! }
///     var path: String {
///         switch self {
///         case .zen: "/zen"
///         case let .user(name): "/users/\(name)"
///         }
///     }
///     var method: HTTPMethod { .get }
///     var task: TargetTask { .requestPlain }
///     var headers: [String: String]? { ["Accept": "application/json"] }
///     var sampleData: Data { Data("Half measures are as bad as nothing at all.".utf8) }
///     var validationType: ValidationType { .successCodes }
/// }
/// ```
@preconcurrency
public protocol TargetType: Sendable {
    /// The API's base URL; ``path`` is appended to it.
    var baseURL: URL { get }
    /// The path below ``baseURL`` (empty: the base URL itself).
    var path: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// What the request carries: nothing, a body, parameters (see ``TargetTask``).
    var task: TargetTask { get }
    /// Header fields of the request (nil: none of the target's own).
    var headers: [String: String]? { get }
    /// What a stub answers with, as a 200 response, unless ``sampleResponse`` says otherwise (default: empty).
    var sampleData: Data { get }
    /// What a stub answers (default: `.networkResponse(200, sampleData)`). A Tapedeck addition: a
    /// target can stub a failure or another status without a custom endpoint closure.
    var sampleResponse: EndpointSampleResponse { get }
    /// Which status codes count as success (default: `.none`, no validation).
    var validationType: ValidationType { get }
}

extension TargetType {
    /// No sample body.
    public var sampleData: Data { Data() }

    /// A 200 response with ``sampleData``.
    public var sampleResponse: EndpointSampleResponse { .networkResponse(200, sampleData) }

    /// No validation.
    public var validationType: ValidationType { .none }
}

/// Which status codes a target accepts; anything else fails with
/// `ClientError.responseValidationFailed(reason: .unacceptableStatusCode(code:))`, on the network
/// and in stubs alike.
public enum ValidationType: Hashable, Sendable {
    /// Every status is accepted (no validation is added).
    case none
    /// 200–299.
    case successCodes
    /// 200–399.
    case successAndRedirectCodes
    /// Exactly these codes.
    case customCodes([Int])

    /// The accepted codes (empty for ``none``).
    public var statusCodes: [Int] {
        switch self {
        case .none: []
        case .successCodes: Array(200..<300)
        case .successAndRedirectCodes: Array(200..<400)
        case let .customCodes(codes): codes
        }
    }
}

extension URL {
    /// The target's full URL: ``TargetType/baseURL`` with ``TargetType/path`` appended as a path
    /// component (an empty path leaves the base URL as it is).
    public init(target: some TargetType) {
        let base = target.baseURL
        self = target.path.isEmpty ? base : base.appendingPathComponent(target.path)
    }
}
