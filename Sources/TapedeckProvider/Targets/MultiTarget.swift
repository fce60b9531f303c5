public import Foundation
public import TapedeckClient

/// Any target, so that targets of several types can go through one `MoyaProvider<MultiTarget>`.
/// Every property comes from the wrapped target (``AccessTokenAuthorizable`` too).
///
/// ```swift
/// let provider = MoyaProvider<MultiTarget>(session: session)
/// provider.request(MultiTarget(GitHub.zen)) { result in print(result) }
/// ```
public enum MultiTarget: TargetType, AccessTokenAuthorizable {
    /// The wrapped target.
    case target(any TargetType)

    /// Wraps `target`.
    public init(_ target: any TargetType) {
        self = .target(target)
    }

    /// The wrapped target.
    public var target: any TargetType {
        switch self {
        case let .target(target): target
        }
    }

    /// The wrapped target's base URL.
    public var baseURL: URL { target.baseURL }
    /// The wrapped target's path.
    public var path: String { target.path }
    /// The wrapped target's method.
    public var method: HTTPMethod { target.method }
    /// The wrapped target's task.
    public var task: TargetTask { target.task }
    /// The wrapped target's header fields.
    public var headers: [String: String]? { target.headers }
    /// The wrapped target's sample data.
    public var sampleData: Data { target.sampleData }
    /// The wrapped target's sample response.
    public var sampleResponse: EndpointSampleResponse { target.sampleResponse }
    /// The wrapped target's validation.
    public var validationType: ValidationType { target.validationType }
    /// The wrapped target's authorization type, if it has one.
    public var authorizationType: AuthorizationType? { (target as? any AccessTokenAuthorizable)?.authorizationType }
}
