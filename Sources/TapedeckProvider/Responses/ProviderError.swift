public import Foundation
public import TapedeckClient

/// Everything that can go wrong between a target and its ``Response`` (Moya's `MoyaError`, same cases
/// except image mapping). The error that caused it is kept: ``underlyingError`` gives it back, and
/// for a transport, validation or cancellation failure it is the `ClientError` the session reported.
///
/// ```swift
/// do {
///     let user = try await provider.request(.user("octocat")).map(User.self)
/// } catch {   // a ProviderError: both calls throw only that
///     if error.isExplicitlyCancelled { return }
///     print(error.response?.statusCode as Any, error.clientError?.urlError as Any)
/// }
/// ```
public enum ProviderError: Error, Sendable {
    /// The body could not be mapped to JSON.
    case jsonMapping(Response)
    /// The body could not be mapped to a string (or the key path held no string).
    case stringMapping(Response)
    /// Decoding the body failed with this error.
    case objectMapping(any Error, Response)
    /// An `Encodable` task body failed to encode.
    case encodableMapping(any Error)
    /// The status code was outside the range a `filter` asked for.
    case statusCode(Response)
    /// The request failed with this error (the session's `ClientError` on the network path, the
    /// stub's error for a `networkError` sample), with the response when one came.
    case underlying(any Error, Response?)
    /// The endpoint's URL string is not a URL.
    case requestMapping(String)
    /// Task parameters could not be encoded.
    case parameterEncoding(any Error)

    /// The response the error came with, if any.
    public var response: Response? {
        switch self {
        case let .jsonMapping(response), let .stringMapping(response), let .objectMapping(_, response), let .statusCode(response):
            return response
        case let .underlying(_, response):
            return response
        case .encodableMapping, .requestMapping, .parameterEncoding:
            return nil
        }
    }

    /// The error this one wraps, if any (public here; internal in Moya).
    public var underlyingError: (any Error)? {
        switch self {
        case let .objectMapping(error, _), let .encodableMapping(error), let .underlying(error, _), let .parameterEncoding(error):
            return error
        case .jsonMapping, .stringMapping, .statusCode, .requestMapping:
            return nil
        }
    }

    /// The session's error, when the failure came from the client pipeline (or a stub validation).
    public var clientError: ClientError? {
        underlyingError as? ClientError
    }

    /// The `URLError` at the bottom of the failure, if any: the transport's error on the network
    /// path (inside the `ClientError`), or a stub's `networkError` when it is one.
    public var urlError: URLError? {
        underlyingError as? URLError ?? clientError?.urlError
    }

    /// True when the caller cancelled (through its token or its Swift task).
    public var isExplicitlyCancelled: Bool {
        clientError?.isExplicitlyCancelledError == true
    }

    /// The failure a cancelled caller receives.
    static let cancelled = ProviderError.underlying(ClientError.explicitlyCancelled, nil)
}

extension ProviderError: LocalizedError, CustomStringConvertible {
    /// What failed, in a sentence.
    public var errorDescription: String? { description }

    /// What failed, in a sentence (an `NSError` inside described with its `userInfo` keys sorted,
    /// `StableErrorText` (TapedeckClient), so the logger plugin logs the same line in every run).
    public var description: String {
        switch self {
        case .jsonMapping: "the response body is not JSON"
        case .stringMapping: "the response body (or the value at the key path) is not a string"
        case let .objectMapping(error, _): "the response body could not be decoded: \(StableErrorText.describe(error))"
        case let .encodableMapping(error): "the request body could not be encoded: \(StableErrorText.describe(error))"
        case let .statusCode(response): "status code \(response.statusCode) is outside the accepted range"
        case let .underlying(error, _): StableErrorText.describe(error)
        case let .requestMapping(url): "\(url) is not a URL: the endpoint cannot become a URLRequest"
        case let .parameterEncoding(error): "the parameters could not be encoded: \(StableErrorText.describe(error))"
        }
    }
}

extension ProviderError: CustomNSError {
    /// The case's position in Moya's `MoyaError`, which Swift gives as an `NSError`'s code: Moya
    /// counts `imageMapping` (0), which this enum lacks, so `jsonMapping` is 1 and `statusCode` 5.
    ///
    /// ```swift
    /// (ProviderError.statusCode(response) as NSError).code   // 5, as with Moya
    /// ```
    public var errorCode: Int {
        switch self {
        case .jsonMapping: 1
        case .stringMapping: 2
        case .objectMapping: 3
        case .encodableMapping: 4
        case .statusCode: 5
        case .underlying: 6
        case .requestMapping: 7
        case .parameterEncoding: 8
        }
    }

    /// The description and the underlying error, under Foundation's keys (as Moya gives them).
    ///
    /// ```swift
    /// let nsError = error as NSError   // nsError.localizedDescription, nsError.userInfo[NSUnderlyingErrorKey]
    /// ```
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlyingError { userInfo[NSUnderlyingErrorKey] = underlyingError }
        return userInfo
    }
}
