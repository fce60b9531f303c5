public import Foundation

/// A data request's response, to `await`: what `serializingData()`, `serializingDecodable(_:)`,
/// `serializingString()` and `serializingResponse(using:)` return, as in Alamofire.
///
/// ```swift
/// let repos = try await session.request("http://api.test/repos").validate()
///     .serializingDecodable([Repo].self).value          // throws the ClientError
/// let response = await session.request("http://api.test/repos").serializingData().response
/// ```
///
/// The response handler is added when the task is made (not later, from a Swift `Task`, as in
/// Alamofire), so the request starts at a deterministic point. Awaiting on a Session made by a
/// ``DefaultTransport`` that can drive its simulation (a cassette tape's) runs that simulation until
/// the answer is there; on other simulated sessions, drive the scheduler yourself
/// (`runUntilIdle()`) before awaiting. Deterministic while a test awaits one result at a time.
public struct DataTask<Value: Sendable>: Sendable {
    private let awaited: AwaitedResponse<DataResponse<Value, ClientError>>

    init(request: DataRequest, box: ResponseBox<DataResponse<Value, ClientError>>, shouldAutomaticallyCancel: Bool) {
        awaited = AwaitedResponse(request: request, box: box, shouldAutomaticallyCancel: shouldAutomaticallyCancel) { error in
            DataResponse(request: request.request, response: request.response, data: request.data, metrics: request.metrics,
                         serializationDuration: .zero, result: .failure(error))
        }
    }

    /// The response, once the request finished (cancelling the awaiting Swift task cancels the
    /// request, unless the task was made with `automaticallyCancelling: false`).
    public var response: DataResponse<Value, ClientError> {
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

    /// Cancels the request.
    public func cancel() {
        awaited.request.cancel()
    }

    /// Resumes the request.
    public func resume() {
        awaited.request.resume()
    }

    /// Suspends the request.
    public func suspend() {
        awaited.request.suspend()
    }
}

/// What a ``DataTask`` or a ``DownloadTask`` waits on: its request's response, filled by a handler.
struct AwaitedResponse<Response: Sendable>: Sendable {
    let request: Request
    let box: ResponseBox<Response>
    let shouldAutomaticallyCancel: Bool
    /// The response to give when the request never answers (or driving its simulation failed).
    let failure: @Sendable (ClientError) -> Response

    var response: Response {
        get async {
            guard shouldAutomaticallyCancel else { return await awaitResponse() }
            let request = request
            return await withTaskCancellationHandler {
                await awaitResponse()
            } onCancel: {
                request.cancel()
            }
        }
    }

    private func awaitResponse() async -> Response {
        if let response = box.value { return response }
        // The session's drive, or the one the request kept (its session may be gone already).
        guard let drive = request.delegate?.drive ?? request.drive else { return await box.wait() }
        // A simulated transport that can run its own simulation: run it until idle (everything
        // this request needs is on its scheduler), then the answer is there — or will never come.
        do {
            try await drive()
        } catch {
            return box.value ?? failure(.sessionTaskFailed(error: error))
        }
        return box.value ?? failure(.sessionTaskFailed(error: UnansweredRequestError(request: request.description)))
    }
}

/// A simulated session ran until idle and the awaited request had not answered: it was never
/// resumed (`startRequestsImmediately: false` or `shouldAutomaticallyResume(false)` need a
/// `resume()`), or it waits for something outside the simulation. Delivered inside
/// ``ClientError/sessionTaskFailed(error:)``; Alamofire would wait forever.
public struct UnansweredRequestError: Error, Sendable, CustomStringConvertible {
    /// The request, as `Request.description` spells it.
    public let request: String

    /// The error for `request` (its method and URL).
    package init(request: String) {
        self.request = request
    }

    /// What happened, and what to check.
    public var description: String {
        // Before its URLRequest exists, a request describes itself as "No request created yet.".
        let what = request.hasPrefix("No request") ? "the request (its URLRequest was never made)" : request
        return "tapedeck: the simulation went idle before \(what) answered — resume the request, or drive its scheduler"
    }
}

/// The one response of a ``DataTask``, filled by its handler, awaited by any number of callers.
final class ResponseBox<Response: Sendable>: Sendable {
    private struct State {
        var response: Response?
        var waiters: [CheckedContinuation<Response, Never>] = []
    }

    private let state = Protected(State())

    var value: Response? { state.read { $0.response } }

    func fill(_ response: Response) {
        let waiters = state.write { state -> [CheckedContinuation<Response, Never>] in
            guard state.response == nil else { return [] }
            state.response = response
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume(returning: response) }
    }

    func wait() async -> Response {
        await withCheckedContinuation { continuation in
            let ready = state.write { state -> Response? in
                if let response = state.response { return response }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

extension DataRequest {
    /// A ``DataTask`` for the response serialized by `serializer` (the handler is added now).
    public func serializingResponse<Serializer: DataResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true
    ) -> DataTask<Serializer.SerializedObject> {
        let box = ResponseBox<DataResponse<Serializer.SerializedObject, ClientError>>()
        response(queue: underlyingQueue, responseSerializer: serializer) { box.fill($0) }
        return DataTask(request: self, box: box, shouldAutomaticallyCancel: shouldAutomaticallyCancel)
    }

    /// A ``DataTask`` for the body as `Data`.
    public func serializingData(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<Data> {
        serializingResponse(using: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods),
            automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// A ``DataTask`` for the body as a `String` (`encoding` nil: from the response, else UTF-8).
    public func serializingString(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor, encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<String> {
        serializingResponse(using: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// A ``DataTask`` for the body decoded as `Value` by `decoder`.
    public func serializingDecodable<Value: Decodable & Sendable>(
        _ type: Value.Type = Value.self, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<Value>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<Value>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<Value>.defaultEmptyRequestMethods
    ) -> DataTask<Value> {
        serializingResponse(using: DecodableResponseSerializer<Value>(
            dataPreprocessor: dataPreprocessor, decoder: decoder, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods), automaticallyCancelling: shouldAutomaticallyCancel)
    }
}
