public import Foundation

/// A download's response, to `await` (Alamofire's `DownloadTask`): what
/// `serializingDownloadedFileURL()`, `serializingData()`, `serializingDecodable(_:)` and
/// `serializingDownload(using:)` return. Awaited as a ``DataTask`` is.
///
/// ```swift
/// let file = try await session.download(url, to: destination).validate().serializingDownloadedFileURL().value
/// ```
public struct DownloadTask<Value: Sendable>: Sendable {
    private let awaited: AwaitedResponse<DownloadResponse<Value, ClientError>>

    init(request: DownloadRequest, box: ResponseBox<DownloadResponse<Value, ClientError>>, shouldAutomaticallyCancel: Bool) {
        awaited = AwaitedResponse(request: request, box: box, shouldAutomaticallyCancel: shouldAutomaticallyCancel) { error in
            request.downloadResponse(.failure(error), duration: .zero)
        }
    }

    /// The response, once the download finished.
    public var response: DownloadResponse<Value, ClientError> {
        get async { await awaited.response }
    }

    /// The response's result.
    public var result: Result<Value, ClientError> {
        get async { await response.result }
    }

    /// The response's value; throws its error.
    public var value: Value {
        get async throws { try await result.get() }
    }

    /// Cancels the download.
    public func cancel() {
        awaited.request.cancel()
    }

    /// Resumes the download.
    public func resume() {
        awaited.request.resume()
    }

    /// Suspends the download.
    public func suspend() {
        awaited.request.suspend()
    }
}

extension DownloadRequest {
    /// A ``DownloadTask`` for the response serialized by `serializer` (the handler is added now).
    public func serializingDownload<Serializer: DownloadResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true
    ) -> DownloadTask<Serializer.SerializedObject> {
        let box = ResponseBox<DownloadResponse<Serializer.SerializedObject, ClientError>>()
        response(queue: underlyingQueue, responseSerializer: serializer) { box.fill($0) }
        return DownloadTask(request: self, box: box, shouldAutomaticallyCancel: shouldAutomaticallyCancel)
    }

    /// A ``DownloadTask`` for the file's URL.
    public func serializingDownloadedFileURL(automaticallyCancelling shouldAutomaticallyCancel: Bool = true) -> DownloadTask<URL> {
        serializingDownload(using: URLResponseSerializer(), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// A ``DownloadTask`` for the file's bytes.
    public func serializingData(automaticallyCancelling shouldAutomaticallyCancel: Bool = true) -> DownloadTask<Data> {
        serializingDownload(using: DownloadedFileSerializer(DataResponseSerializer()), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// A ``DownloadTask`` for the file's text (`encoding` nil: from the response, else UTF-8).
    public func serializingString(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true, encoding: String.Encoding? = nil
    ) -> DownloadTask<String> {
        serializingDownload(using: DownloadedFileSerializer(StringResponseSerializer(encoding: encoding)),
                            automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// A ``DownloadTask`` for the file decoded as `Value` by `decoder`.
    public func serializingDecodable<Value: Decodable & Sendable>(
        _ type: Value.Type = Value.self, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        decoder: any DataDecoder = JSONDecoder()
    ) -> DownloadTask<Value> {
        serializingDownload(using: DownloadedFileSerializer(DecodableResponseSerializer<Value>(decoder: decoder)),
                            automaticallyCancelling: shouldAutomaticallyCancel)
    }
}
