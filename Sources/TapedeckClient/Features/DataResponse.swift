public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Everything a data request produced, with the serializer's result.
public struct DataResponse<Success, Failure: Error>: @unchecked Sendable {
    // @unchecked Sendable: URLRequest, HTTPURLResponse and Data are immutable values here, and the
    // value is a serializer's Sendable result, or `responseJSON`'s `Any`: JSONSerialization-style
    // dictionaries, arrays, strings, numbers and nulls built for that handler and never mutated.
    /// The last URLRequest sent (adapted), if one was made.
    public let request: URLRequest?
    /// The last response head, if one came.
    public let response: HTTPURLResponse?
    /// The body received, if any.
    public let data: Data?
    /// The last task's metrics (nil on a transport without metrics).
    public let metrics: TransferMetrics?
    /// Time the serializer took, on the scheduler's clock.
    public let serializationDuration: Duration
    /// What the serializer produced, or the request's error.
    public let result: Result<Success, Failure>

    /// A response from its parts.
    public init(request: URLRequest?, response: HTTPURLResponse?, data: Data?, metrics: TransferMetrics?,
                serializationDuration: Duration, result: Result<Success, Failure>) {
        self.request = request
        self.response = response
        self.data = data
        self.metrics = metrics
        self.serializationDuration = serializationDuration
        self.result = result
    }

    /// The value, if the result is a success.
    public var value: Success? { try? result.get() }

    /// The error, if the result is a failure.
    public var error: Failure? {
        if case let .failure(error) = result { return error }
        return nil
    }
}

/// A ``DataResponse`` whose failure is a ``ClientError`` (Alamofire's `AFDataResponse`).
public typealias ClientDataResponse<Success> = DataResponse<Success, ClientError>
