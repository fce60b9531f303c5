#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Gives requests the `URLCredential` a closure picks for their target (Moya's `CredentialsPlugin`).
///
/// Moya hands the credential to Alamofire, which answers the server's authentication challenge
/// with it. TapedeckClient answers no challenges, so here a credential with a user and a password
/// is sent with the request itself, as `Authorization: Basic base64(user:password)` (RFC 7617) —
/// what a server asking for Basic authentication accepts, one round trip sooner. A request that
/// already has an `Authorization` field keeps it; a credential without a password (a client
/// certificate, a server trust) is not supported and leaves the request unchanged.
///
/// ```swift
/// let credentials = CredentialsPlugin { target in
///     URLCredential(user: "ada", password: "secret", persistence: .none)
/// }
/// ```
public struct CredentialsPlugin: PluginType {
    /// Picks the credential for a target (nil: none).
    public typealias CredentialClosure = @Sendable (any TargetType) -> URLCredential?

    /// Picks each request's credential (called in `prepare`, on the session's requestQueue).
    public let credentialsClosure: CredentialClosure

    /// A plugin asking `credentialsClosure` for each request's credential.
    @preconcurrency
    public init(credentialsClosure: @escaping CredentialClosure) {
        self.credentialsClosure = credentialsClosure
    }

    /// The request with `Authorization: Basic …` for the target's credential, if it has a user and
    /// a password and the request no `Authorization` field.
    public func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        guard request.value(forHTTPHeaderField: "Authorization") == nil,
              let credential = credentialsClosure(target), let user = credential.user, let password = credential.password else {
            return request
        }
        var request = request
        let token = Data("\(user):\(password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        return request
    }
}
