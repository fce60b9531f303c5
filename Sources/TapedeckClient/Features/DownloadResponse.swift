public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What a download's response handler receives (Alamofire's `DownloadResponse`): the request, the
/// response head, the file the body was written to, and the serializer's result.
///
/// ```swift
/// session.download("https://example.com/report.pdf", to: destination).responseURL { response in
///     if let file = response.fileURL { open(file) }
/// }
/// ```
public struct DownloadResponse<Success, Failure: Error>: @unchecked Sendable {
    // @unchecked Sendable: as DataResponse (immutable values, a serializer's Sendable result or
    // `responseJSON`'s Foundation value built for its handler).
    /// The last URLRequest sent (adapted), if one was made.
    public let request: URLRequest?
    /// The last response head, if one came.
    public let response: HTTPURLResponse?
    /// Where the body was written (the destination's URL), once the transfer finished.
    public let fileURL: URL?
    /// Data to resume a cancelled download with: always nil here (no transport keeps any).
    public let resumeData: Data?
    /// The last task's metrics (nil on a transport without metrics).
    public let metrics: TransferMetrics?
    /// Time the serializer took, on the scheduler's clock.
    public let serializationDuration: Duration
    /// What the serializer produced, or the request's error.
    public let result: Result<Success, Failure>

    /// A response from its parts.
    public init(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, resumeData: Data?, metrics: TransferMetrics?,
                serializationDuration: Duration, result: Result<Success, Failure>) {
        self.request = request
        self.response = response
        self.fileURL = fileURL
        self.resumeData = resumeData
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

    /// The same response with its value transformed (a failure stays as it is).
    public func map<NewSuccess>(_ transform: (Success) -> NewSuccess) -> DownloadResponse<NewSuccess, Failure> {
        DownloadResponse<NewSuccess, Failure>(request: request, response: response, fileURL: fileURL, resumeData: resumeData,
                                              metrics: metrics, serializationDuration: serializationDuration, result: result.map(transform))
    }

    /// The same response with its error transformed (a success stays as it is).
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> DownloadResponse<Success, NewFailure> {
        DownloadResponse<Success, NewFailure>(request: request, response: response, fileURL: fileURL, resumeData: resumeData,
                                              metrics: metrics, serializationDuration: serializationDuration,
                                              result: result.mapError(transform))
    }
}

/// A ``DownloadResponse`` whose failure is a ``ClientError`` (Alamofire's `AFDownloadResponse`).
public typealias AFDownloadResponse<Success> = DownloadResponse<Success, ClientError>

/// Turns a finished download's response and file into a value.
public protocol DownloadResponseSerializerProtocol<SerializedObject>: Sendable {
    /// The value the serializer produces.
    associatedtype SerializedObject: Sendable

    /// The value for this download, or the error that fails it.
    func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: (any Error)?) throws -> SerializedObject
}

/// Any data serializer (``ResponseSerializer``) serializing a download: the file is read and its
/// bytes serialized as a data request's body would be.
public struct DownloadedFileSerializer<Base: ResponseSerializer>: DownloadResponseSerializerProtocol {
    /// The data serializer.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// The request's error first; then ``ClientError/ResponseSerializationFailureReason/inputFileNil``
    /// without a file, ``ClientError/ResponseSerializationFailureReason/inputFileReadFailed(at:)``
    /// when it cannot be read; else what `base` makes of its bytes.
    public func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: (any Error)?) throws -> Base.SerializedObject {
        if let error { throw error }
        guard let fileURL else { throw ClientError.responseSerializationFailed(reason: .inputFileNil) }
        let data: Data
        do { data = try Data(contentsOf: fileURL) } catch {
            throw ClientError.responseSerializationFailed(reason: .inputFileReadFailed(at: fileURL))
        }
        return try base.serialize(request: request, response: response, data: data, error: nil)
    }
}

/// The downloaded file's URL as the value (what `responseURL` uses).
public struct URLResponseSerializer: DownloadResponseSerializerProtocol {
    /// The serializer.
    public init() {}

    /// The file's URL; the request's error, or `inputFileNil` when there is no file.
    public func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: (any Error)?) throws -> URL {
        if let error { throw error }
        guard let fileURL else { throw ClientError.responseSerializationFailed(reason: .inputFileNil) }
        return fileURL
    }
}

extension DownloadResponse: CustomStringConvertible {
    /// The result as Swift prints it, as Alamofire 5 writes it: `success(<value>)` or
    /// `failure(<error>)`.
    public var description: String {
        "\(result)"
    }
}
