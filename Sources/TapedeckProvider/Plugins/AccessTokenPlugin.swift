#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// How a target wants to be authorized (the scheme written before the token).
public enum AuthorizationType: Hashable, Sendable {
    /// `Basic <token>`.
    case basic
    /// `Bearer <token>`.
    case bearer
    /// `<scheme> <token>`.
    case custom(String)

    /// The scheme: `Basic`, `Bearer` or the custom one.
    public var value: String {
        switch self {
        case .basic: "Basic"
        case .bearer: "Bearer"
        case let .custom(scheme): scheme
        }
    }
}

/// A target that may need an `Authorization` header (nil: this one does not).
public protocol AccessTokenAuthorizable {
    /// The scheme to use, or nil for no header.
    var authorizationType: AuthorizationType? { get }
}

/// Sets `Authorization: <scheme> <token>` on requests whose target is ``AccessTokenAuthorizable``
/// with a non-nil ``AccessTokenAuthorizable/authorizationType`` (for a ``MultiTarget``, the
/// wrapped target decides and is what the token closure receives).
///
/// Unlike Moya, which appends to an `Authorization` field already there, the header is replaced.
///
/// ```swift
/// let plugin = AccessTokenPlugin { _ in tokenStore.current }
/// let fixed = AccessTokenPlugin(token: "t0")
/// ```
public struct AccessTokenPlugin: PluginType {
    /// Gives the token for a target.
    public typealias TokenClosure = @Sendable (any TargetType) -> String

    /// Gives the token for a target (called in `prepare`, on the session's requestQueue).
    public let tokenClosure: TokenClosure

    /// A plugin asking `tokenClosure` for each request's token.
    @preconcurrency
    public init(tokenClosure: @escaping TokenClosure) {
        self.tokenClosure = tokenClosure
    }

    /// A plugin with one fixed token (what a scenario file can say).
    public init(token: String) {
        self.init { _ in token }
    }

    /// The request with its `Authorization` field set, when the target asks for one.
    public func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        let target = (target as? MultiTarget)?.target ?? target
        guard let type = (target as? any AccessTokenAuthorizable)?.authorizationType else { return request }
        var request = request
        request.setValue("\(type.value) \(tokenClosure(target))", forHTTPHeaderField: "Authorization")
        return request
    }
}
