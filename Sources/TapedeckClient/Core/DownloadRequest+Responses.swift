public import Dispatch
public import Foundation
public import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A download's response handlers (Alamofire's): the file's URL, or its bytes serialized as a data
// request's body would be. Each also takes a `DispatchQueue` (the session's queue standing for it).

extension DownloadRequest {
    /// Hands over the raw result (the request's error or the file's URL), never consulting the retrier.
    @preconcurrency
    @discardableResult
    public func response(queue: (any SchedulerQueue)? = nil, completionHandler: @escaping @Sendable (AFDownloadResponse<URL?>) -> Void) -> Self {
        appendRawStage(
            queue: queue,
            make: { self.downloadResponse(self.error.map { .failure($0) } ?? .success(self.fileURL), duration: .zero) },
            announce: { self.eventMonitor.request(self, didParseResponse: $0) },
            completionHandler: completionHandler)
        return self
    }

    /// Serializes with `serializer` on the serializationQueue; a failure is shown to the retrier
    /// once before the handler gets it (as for data requests).
    @preconcurrency
    @discardableResult
    public func response<Serializer: DownloadResponseSerializerProtocol>(
        queue: (any SchedulerQueue)? = nil, responseSerializer serializer: Serializer,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        appendSerializingStage(
            queue: queue,
            serialize: { try serializer.serializeDownload(request: self.request, response: self.response, fileURL: self.fileURL, error: self.error) },
            make: { result, duration in self.downloadResponse(result, duration: duration) },
            announce: { self.eventMonitor.request(self, didParseResponse: $0) },
            completionHandler: completionHandler)
        return self
    }

    /// Serializes the file's bytes with a data serializer (Alamofire's serializers serve both).
    @preconcurrency
    @discardableResult
    public func response<Serializer: ResponseSerializer>(
        queue: (any SchedulerQueue)? = nil, responseSerializer serializer: Serializer,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DownloadedFileSerializer(serializer), completionHandler: completionHandler)
    }

    /// Hands over the file's URL.
    @preconcurrency
    @discardableResult
    public func responseURL(queue: (any SchedulerQueue)? = nil, completionHandler: @escaping @Sendable (AFDownloadResponse<URL>) -> Void) -> Self {
        response(queue: queue, responseSerializer: URLResponseSerializer(), completionHandler: completionHandler)
    }

    /// Hands over the file's bytes (an empty file is an error, except for the empty-response codes and methods).
    @preconcurrency
    @discardableResult
    public func responseData(
        queue: (any SchedulerQueue)? = nil, dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Data>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods),
                 completionHandler: completionHandler)
    }

    /// Hands over the file's text (`encoding`, else the response's charset, else UTF-8).
    @preconcurrency
    @discardableResult
    public func responseString(
        queue: (any SchedulerQueue)? = nil, dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil, emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<String>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods), completionHandler: completionHandler)
    }

    /// Hands over the file decoded as `T` by `decoder` (a `JSONDecoder` by default).
    @preconcurrency
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, queue: (any SchedulerQueue)? = nil,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<T>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods), completionHandler: completionHandler)
    }

    /// A download response for this request's state and `result`.
    func downloadResponse<Value>(_ result: Result<Value, ClientError>, duration: Duration) -> AFDownloadResponse<Value> {
        DownloadResponse(request: request, response: response, fileURL: fileURL, resumeData: resumeData, metrics: metrics,
                         serializationDuration: duration, result: result)
    }
}

extension DownloadRequest {
    /// `response(queue:completionHandler:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func response(queue: DispatchQueue, completionHandler: @escaping @Sendable (AFDownloadResponse<URL?>) -> Void) -> Self {
        response(queue: self.queue(standingFor: queue), completionHandler: completionHandler)
    }

    /// `responseURL(queue:completionHandler:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseURL(queue: DispatchQueue, completionHandler: @escaping @Sendable (AFDownloadResponse<URL>) -> Void) -> Self {
        responseURL(queue: self.queue(standingFor: queue), completionHandler: completionHandler)
    }

    /// `response(queue:responseSerializer:completionHandler:)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func response<Serializer: DownloadResponseSerializerProtocol>(
        queue: DispatchQueue, responseSerializer serializer: Serializer,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        response(queue: self.queue(standingFor: queue), responseSerializer: serializer, completionHandler: completionHandler)
    }

    /// `response(queue:responseSerializer:completionHandler:)` with a data serializer, on the queue
    /// standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func response<Serializer: ResponseSerializer>(
        queue: DispatchQueue, responseSerializer serializer: Serializer,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        response(queue: self.queue(standingFor: queue), responseSerializer: serializer, completionHandler: completionHandler)
    }

    /// `responseData(queue:…)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseData(
        queue: DispatchQueue, dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Data>) -> Void
    ) -> Self {
        responseData(queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes,
                     emptyRequestMethods: emptyRequestMethods, completionHandler: completionHandler)
    }

    /// `responseString(queue:…)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseString(
        queue: DispatchQueue, dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil, emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<String>) -> Void
    ) -> Self {
        responseString(queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, encoding: encoding,
                       emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods, completionHandler: completionHandler)
    }

    /// `responseDecodable(of:queue:…)` on the queue standing for a `DispatchQueue`.
    @preconcurrency
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, queue: DispatchQueue,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<T>) -> Void
    ) -> Self {
        responseDecodable(of: type, queue: self.queue(standingFor: queue), dataPreprocessor: dataPreprocessor, decoder: decoder,
                          emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods,
                          completionHandler: completionHandler)
    }
}
