public import Foundation

// Alamofire's names for the error type and its results, and the helpers of `AFError` that
// ClientError.swift does not already have: code written against Alamofire keeps its spelling.

/// Alamofire's name for ``ClientError``: `case let .requestRetryFailed(retryError, _)`,
/// `error.isResponseValidationError`, `error.responseCode` read the same.
public typealias AFError = ClientError

/// A `Result` whose failure is a ``ClientError`` (Alamofire's `AFResult`).
public typealias AFResult<Success> = Result<Success, ClientError>

/// A ``DataResponse`` whose failure is a ``ClientError`` (Alamofire's `AFDataResponse`).
public typealias AFDataResponse<Success> = DataResponse<Success, ClientError>

extension ClientError {
    /// True for `.sessionInvalidated`.
    public var isSessionInvalidatedError: Bool {
        if case .sessionInvalidated = self { return true }
        return false
    }

    /// True for `.invalidURL`.
    public var isInvalidURLError: Bool {
        if case .invalidURL = self { return true }
        return false
    }

    /// True for `.parameterEncodingFailed` (a ``ParameterEncoding`` failed).
    public var isParameterEncodingError: Bool {
        if case .parameterEncodingFailed = self { return true }
        return false
    }

    /// True for `.parameterEncoderFailed` (a ``ParameterEncoder`` failed).
    public var isParameterEncoderError: Bool {
        if case .parameterEncoderFailed = self { return true }
        return false
    }

    /// The value an `.invalidURL` error could not turn into a URL.
    public var urlConvertible: (any URLConvertible)? {
        if case let .invalidURL(url) = self { return url }
        return nil
    }

    /// The encoding a `stringSerializationFailed` error tried.
    public var failedStringEncoding: String.Encoding? {
        if case let .responseSerializationFailed(.stringSerializationFailed(encoding)) = self { return encoding }
        return nil
    }
}

extension ClientError: LocalizedError {
    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}

extension Error {
    /// This error as a ``ClientError``, if it is one (Alamofire's name for ``asClientError``).
    public var asAFError: ClientError? {
        self as? ClientError
    }

    /// This error as a ``ClientError``; traps with `message` (at the caller's line) when it is not one.
    public func asAFError(orFailWith message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> ClientError {
        guard let error = self as? ClientError else { fatalError(message(), file: file, line: line) }
        return error
    }
}
