public import Foundation
public import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose response body is collected in memory.
public class DataRequest: Request, @unchecked Sendable {
    // @unchecked Sendable: as Request; `dataState` is a lock too.

    private struct DataState {
        var data: Data?
        var validators: [Validation] = []
    }

    private let dataState = Protected(DataState())

    /// The body received by the current attempt.
    public var data: Data? { dataState.read { $0.data } }

    override func task(for request: URLRequest, using session: URLSession) -> URLSessionTask {
        session.dataTask(with: request)
    }

    override func reset() {
        super.reset()
        dataState.write { $0.data = nil }
    }

    func didReceive(data: Data) {
        dataState.write { state in
            if state.data == nil { state.data = data } else { state.data!.append(data) }
        }
        updateDownloadProgress(bytesReceived: Int64(data.count), totalBytesExpected: response?.expectedContentLength ?? -1)
    }

    func appendValidator(_ validation: @escaping Validation) {
        dataState.write { $0.validators.append(validation) }
    }

    /// Runs each validator in order while no error is recorded and a response exists.
    override func runValidators() {
        let data = self.data
        runValidators(dataState.read { $0.validators }, validate: { $0($1, $2, data) }) { request, response, result in
            eventMonitor.request(self, didValidateRequest: request, response: response, data: data, withResult: result)
        }
    }

    // MARK: response handlers

    /// Hands over the raw result (the request's error or its data) without serializing, and without
    /// ever consulting the retrier.
    @preconcurrency
    @discardableResult
    public func response(queue: (any SchedulerQueue)? = nil, completionHandler: @escaping @Sendable (ClientDataResponse<Data?>) -> Void) -> Self {
        appendRawStage(
            queue: queue,
            make: {
                DataResponse(request: self.request, response: self.response, data: self.data, metrics: self.metrics, serializationDuration: .zero,
                             result: self.error.map { .failure($0) } ?? .success(self.data))
            },
            announce: { self.eventMonitor.request(self, didParseResponse: $0) },
            completionHandler: completionHandler)
        return self
    }

    /// Serializes with `serializer` on the serializationQueue; a failure is shown to the retrier
    /// once (a serializer-stage retry; docs/client.md) before the handler gets it.
    @preconcurrency
    @discardableResult
    public func response<Serializer: DataResponseSerializerProtocol>(
        queue: (any SchedulerQueue)? = nil, responseSerializer serializer: Serializer,
        completionHandler: @escaping @Sendable (ClientDataResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        appendSerializingStage(
            queue: queue,
            serialize: { try serializer.serialize(request: self.request, response: self.response, data: self.data, error: self.error) },
            make: { result, duration in
                DataResponse(request: self.request, response: self.response, data: self.data, metrics: self.metrics,
                             serializationDuration: duration, result: result)
            },
            announce: { self.eventMonitor.request(self, didParseResponse: $0) },
            completionHandler: completionHandler)
        return self
    }

    /// Hands over the body as `Data` (an empty body is an error, except for the empty-response codes and methods).
    @preconcurrency
    @discardableResult
    public func responseData(
        queue: (any SchedulerQueue)? = nil, dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (ClientDataResponse<Data>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods),
            completionHandler: completionHandler)
    }

    /// Hands over the body as a `String`, in `encoding` or the response's charset (UTF-8 by default).
    @preconcurrency
    @discardableResult
    public func responseString(
        queue: (any SchedulerQueue)? = nil, dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil, emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (ClientDataResponse<String>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods), completionHandler: completionHandler)
    }

    /// Hands over the body parsed as JSON, as Alamofire does: `[String: Any]`, `[Any]`, `String`,
    /// `NSNumber` or `NSNull` (an allowed empty body is `NSNull`). `options` is accepted for
    /// Alamofire's signature; the parser always allows fragments, and containers are Swift values.
    /// For a Sendable, comparable value use `responseDecodable(of: JSON.self)`.
    @preconcurrency
    @discardableResult
    public func responseJSON(
        queue: (any SchedulerQueue)? = nil, dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        options: JSONSerialization.ReadingOptions = .allowFragments,
        completionHandler: @escaping @Sendable (ClientDataResponse<Any>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: JSONResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods, options: options)
        ) { response in
            // Built here, on the handler's queue, so the non-Sendable value never crosses queues.
            completionHandler(response.map(\.foundationValue))
        }
    }

    /// Hands over the body decoded as `T` by `decoder` (a `JSONDecoder` by default).
    @preconcurrency
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, queue: (any SchedulerQueue)? = nil,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (ClientDataResponse<T>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods), completionHandler: completionHandler)
    }
}
