public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What came back for a target: status code, body, the request that was sent (after the plugins'
/// `prepare`) and the HTTP response.
///
/// Mapping helpers (``filterSuccessfulStatusCodes()``, ``mapJSON(failsOnEmptyData:)``,
/// ``map(_:atKeyPath:using:failsOnEmptyData:)``, ``mapString(atKeyPath:)``) throw ``ProviderError``.
public final class Response: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    // @unchecked Sendable: every property is a constant; URLRequest, HTTPURLResponse and Data are
    // not mutated after the response is made (HTTPURLResponse is not marked Sendable on Linux).

    /// The HTTP status code.
    public let statusCode: Int
    /// The body (empty when there was none).
    public let data: Data
    /// The request sent, as the plugins prepared it (nil when none was made).
    public let request: URLRequest?
    /// The HTTP response.
    public let response: HTTPURLResponse?

    /// A response from its parts.
    public init(statusCode: Int, data: Data, request: URLRequest? = nil, response: HTTPURLResponse? = nil) {
        self.statusCode = statusCode
        self.data = data
        self.request = request
        self.response = response
    }

    /// `Status Code: 200, Data Length: 42`.
    public var description: String { "Status Code: \(statusCode), Data Length: \(data.count)" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Equal status codes, bodies and HTTP responses (the request is not compared, as in Moya).
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.data == rhs.data && lhs.response == rhs.response
    }
}
