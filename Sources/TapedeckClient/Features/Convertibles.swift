public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Something a URL can be made from.
public protocol URLConvertible: Sendable {
    /// The URL, or an error (``ClientError/invalidURL(url:)``) when there is none.
    func asURL() throws -> URL
}

extension String: URLConvertible {
    /// The URL this string spells; throws ``ClientError/invalidURL(url:)`` when it is not one.
    public func asURL() throws -> URL {
        guard let url = URL(string: self) else { throw ClientError.invalidURL(url: self) }
        return url
    }
}

extension URL: URLConvertible {
    /// The URL itself.
    public func asURL() throws -> URL { self }
}

extension URLComponents: URLConvertible {
    /// The URL the components make; throws ``ClientError/invalidURL(url:)`` when they make none.
    public func asURL() throws -> URL {
        guard let url else { throw ClientError.invalidURL(url: self) }
        return url
    }
}

/// Something a URLRequest can be made from. The Session asks for a fresh one on every attempt.
public protocol URLRequestConvertible: Sendable {
    /// A fresh URLRequest (called once per attempt), or the error that stops the request.
    func asURLRequest() throws -> URLRequest
}

extension URLRequest: URLRequestConvertible {
    /// The request itself.
    public func asURLRequest() throws -> URLRequest { self }
}

extension URLRequest {
    /// A request for `url` with `method` and `headers`.
    public init(url: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders? = nil) throws {
        self.init(url: try url.asURL())
        httpMethod = method.rawValue
        if let headers { self.headers = headers }
    }
}

/// Modifies a URLRequest while it is built (timeout, cache policy, ...).
public typealias RequestModifier = @Sendable (inout URLRequest) throws -> Void

/// The convertible a Session builds from `session.request(url, method:, parameters:, ...)`.
struct RequestEncodableConvertible<Parameters: Encodable & Sendable>: URLRequestConvertible {
    let url: any URLConvertible
    let method: HTTPMethod
    let parameters: Parameters?
    let encoder: any ParameterEncoder
    let headers: HTTPHeaders?
    let requestModifier: RequestModifier?

    func asURLRequest() throws -> URLRequest {
        var request = try URLRequest(url: url, method: method, headers: headers)
        try requestModifier?(&request)
        return try parameters.map { try encoder.encode($0, into: request) } ?? request
    }
}
