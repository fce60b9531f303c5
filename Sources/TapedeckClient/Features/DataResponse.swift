public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Everything a data request produced, with the serializer's result.
public struct DataResponse<Success: Sendable, Failure: Error>: @unchecked Sendable {
    // @unchecked Sendable: URLRequest, HTTPURLResponse and Data are immutable values here.
    public let request: URLRequest?
    public let response: HTTPURLResponse?
    public let data: Data?
    /// The last task's metrics (nil on a transport without metrics).
    public let metrics: TransferMetrics?
    /// Time the serializer took, on the scheduler's clock.
    public let serializationDuration: Duration
    public let result: Result<Success, Failure>

    public init(request: URLRequest?, response: HTTPURLResponse?, data: Data?, metrics: TransferMetrics?,
                serializationDuration: Duration, result: Result<Success, Failure>) {
        self.request = request
        self.response = response
        self.data = data
        self.metrics = metrics
        self.serializationDuration = serializationDuration
        self.result = result
    }

    public var value: Success? { try? result.get() }

    public var error: Failure? {
        if case let .failure(error) = result { return error }
        return nil
    }
}

public typealias ClientDataResponse<Success: Sendable> = DataResponse<Success, ClientError>
