import Foundation
public import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A request whose body is handed to its handlers piece by piece, as it arrives (Alamofire's
/// `DataStreamRequest`): server-sent events, a model's tokens, a log tail. Made by ``Session``'s
/// `streamRequest` methods.
///
/// Each handler gets every piece as a ``Stream`` event — raw, as text, decoded, or through a
/// ``DataStreamSerializer`` — then one `.complete` event, always last, once the request finished.
/// As in Alamofire, validation runs when the body has ended, so the pieces of a 500's body are
/// streamed too and the completion carries the validation error (to stop at the head, answer
/// `.cancel` from `onHTTPResponse`). A failed attempt the retrier retries streams again: the
/// handlers see the new attempt's pieces after the old one's.
///
/// ```swift
/// session.streamRequest("http://api.test/events").validate().responseStreamString { stream in
///     switch stream.event {
///     case let .stream(result): print("piece:", try result.get())
///     case let .complete(completion): print("done:", completion.error.map { "\($0)" } ?? "ok")
///     }
/// }
/// ```
public final class DataStreamRequest: Request, @unchecked Sendable {
    // @unchecked Sendable: as Request; `streamState` is a lock too.

    /// A stream handler: called with every event; throwing from a `.stream` event cancels the
    /// request, and its error becomes the request's (`responseSerializationFailed(.customSerializationFailed)`).
    public typealias Handler<Success: Sendable, Failure: Error & Sendable> = @Sendable (Stream<Success, Failure>) throws -> Void

    /// One event of a stream, with a token that cancels the request.
    public struct Stream<Success: Sendable, Failure: Error & Sendable>: Sendable {
        /// A piece's value, or the completion.
        public let event: Event<Success, Failure>
        /// Cancels the request.
        public let token: CancellationToken

        /// Cancels the request (as `token.cancel()`).
        public func cancel() {
            token.cancel()
        }

        /// The piece's result (nil for the completion).
        public var result: Result<Success, Failure>? {
            guard case let .stream(result) = event else { return nil }
            return result
        }

        /// The piece's value (nil for a failure or the completion).
        public var value: Success? {
            guard case let .success(value)? = result else { return nil }
            return value
        }

        /// The piece's failure (nil for a value or the completion).
        public var error: Failure? {
            guard case let .failure(error)? = result else { return nil }
            return error
        }

        /// The completion (nil for a piece).
        public var completion: Completion? {
            guard case let .complete(completion) = event else { return nil }
            return completion
        }
    }

    /// What a stream handler is told.
    public enum Event<Success: Sendable, Failure: Error & Sendable>: Sendable {
        /// A piece of the body, serialized (a raw or text stream never fails).
        case stream(Result<Success, Failure>)
        /// The request finished (the last event).
        case complete(Completion)
    }

    /// How the request ended.
    public struct Completion: Sendable {
        /// The last URLRequest sent.
        public let request: URLRequest?
        /// The last response.
        public let response: HTTPURLResponse?
        /// The last attempt's metrics.
        public let metrics: TransferMetrics?
        /// The request's error (nil: it succeeded).
        public let error: ClientError?
    }

    /// Cancels the request it came from (holding it weakly).
    public struct CancellationToken: Sendable {
        weak var request: DataStreamRequest?

        init(_ request: DataStreamRequest) {
            self.request = request
        }

        /// Cancels the request (nothing once it is gone).
        public func cancel() {
            request?.cancel()
        }
    }

    /// A validator of a stream: sees the request and the response (no body: it streamed already).
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse) -> ValidationResult

    private struct StreamState {
        /// What each handler does with a piece (in the order the handlers were added).
        var parsers: [@Sendable (Data) -> Void] = []
        /// Pieces handed to a handler that it has not finished with yet.
        var executing = 0
        /// Completion events waiting for those pieces.
        var waitingCompletions: [@Sendable () -> Void] = []
        var validators: [Validation] = []
    }

    /// Whether a piece that fails to serialize cancels the request.
    public let automaticallyCancelOnStreamError: Bool
    private let streamState = Protected(StreamState())

    init(id: UUID, convertible: any URLRequestConvertible, automaticallyCancelOnStreamError: Bool, underlyingQueue: any SchedulerQueue,
         serializationQueue: any SchedulerQueue, eventMonitor: CompositeEventMonitor, interceptor: (any RequestInterceptor)?,
         delegate: Session) {
        self.automaticallyCancelOnStreamError = automaticallyCancelOnStreamError
        super.init(id: id, convertible: convertible, underlyingQueue: underlyingQueue, serializationQueue: serializationQueue,
                   eventMonitor: eventMonitor, interceptor: interceptor, delegate: delegate)
    }

    override func task(for request: URLRequest, using session: URLSession) -> URLSessionTask {
        session.dataTask(with: request)
    }

    /// A piece arrived (on the rootQueue): every handler added so far gets it.
    func didReceive(data: Data) {
        let parsers = streamState.write { state in
            state.executing += state.parsers.count
            return state.parsers
        }
        parsers.forEach { $0(data) }
        updateDownloadProgress(bytesReceived: Int64(data.count), totalBytesExpected: response?.expectedContentLength ?? -1)
    }

    // MARK: handlers (called by the response methods)

    /// Adds a handler of raw pieces: each piece goes to `stream` on `queue` as it arrives (no
    /// serializing, no monitor event, as in Alamofire).
    func appendRawStream(on queue: (any SchedulerQueue)?, stream: @escaping Handler<Data, Never>) {
        let queue = queue ?? delegate?.defaultResponseQueue ?? underlyingQueue
        let deliver = delivery(on: queue, to: stream)
        streamState.write { $0.parsers.append { data in deliver(.success(data)) } }
        appendStreamCompletion(on: queue, stream: stream)
    }

    /// Adds a handler whose pieces `serialize` turns into results on the serializationQueue; the
    /// monitors are told (`announce`: the result as `Result<_, ClientError>`), a failure cancels the
    /// request when ``automaticallyCancelOnStreamError``, then the result goes to `stream` on `queue`.
    func appendParsedStream<Success: Sendable, Failure: Error & Sendable>(
        on queue: (any SchedulerQueue)?, serialize: @escaping @Sendable (Data) -> Result<Success, Failure>,
        announce: @escaping @Sendable (DataStreamRequest, Result<Success, Failure>) -> Void, stream: @escaping Handler<Success, Failure>
    ) {
        let queue = queue ?? delegate?.defaultResponseQueue ?? underlyingQueue
        let deliver = delivery(on: queue, to: stream)
        // Weak: the request keeps its parsers; a strong capture would keep it alive for good.
        let parser: @Sendable (Data) -> Void = { [weak self] data in
            guard let self else { return }
            serializationQueue.async(named: "serializeStream") {
                let result = serialize(data)
                self.underlyingQueue.async(named: "parsedStream") {
                    announce(self, result)
                    if case .failure = result, self.automaticallyCancelOnStreamError { self.cancel() }
                    deliver(result)
                }
            }
        }
        streamState.write { $0.parsers.append(parser) }
        appendStreamCompletion(on: queue, stream: stream)
    }

    /// Adds a handler of the pieces as `serializer` makes them (see ``appendParsedStream(on:serialize:announce:stream:)``).
    func appendSerializedStream<Serializer: DataStreamSerializer>(
        on queue: (any SchedulerQueue)?, serializer: Serializer, stream: @escaping Handler<Serializer.SerializedObject, ClientError>
    ) {
        appendParsedStream(on: queue, serialize: { data in
            Result { try serializer.serialize(data) }.mapError {
                $0.asClientError(orFailWith: { .responseSerializationFailed(reason: .customSerializationFailed(error: $0)) })
            }
        }, announce: { request, result in request.eventMonitor.request(request, didParseStream: result) }, stream: stream)
    }

    /// Adds a handler of the pieces as UTF-8 text, made on the serializationQueue and told to the
    /// monitors, as Alamofire's string streams are.
    func appendStringStream(on queue: (any SchedulerQueue)?, stream: @escaping Handler<String, Never>) {
        appendParsedStream(on: queue, serialize: { .success(String(decoding: $0, as: UTF8.self)) }, announce: { request, result in
            if case let .success(text) = result { request.eventMonitor.request(request, didParseStream: Result<String, ClientError>.success(text)) }
        }, stream: stream)
    }

    /// Hands a piece's result to `stream` on `queue`, then counts the piece delivered.
    private func delivery<Success: Sendable, Failure: Error & Sendable>(
        on queue: any SchedulerQueue, to stream: @escaping Handler<Success, Failure>
    ) -> @Sendable (Result<Success, Failure>) -> Void {
        // Weak, as the parsers that hold it (a piece in flight keeps the request in its job).
        { [weak self] result in
            guard let self else { return }
            queue.async(named: "stream") {
                self.capturingError { try stream(Stream(event: .stream(result), token: CancellationToken(self))) }
                self.pieceDelivered()
            }
        }
    }

    /// The completion of one handler, run as the request's serializer stage: delivered once every
    /// piece handed out so far reached its handler.
    private func appendStreamCompletion<Success: Sendable, Failure: Error & Sendable>(on queue: any SchedulerQueue, stream: @escaping Handler<Success, Failure>) {
        appendResponseSerializer {
            self.underlyingQueue.async(named: "streamComplete") {
                self.responseSerializerDidComplete {
                    let complete: @Sendable () -> Void = {
                        queue.async(named: "streamCompletion") {
                            let completion = Completion(request: self.request, response: self.response, metrics: self.metrics, error: self.error)
                            // A throw at the completion has nothing left to cancel: ignored, as in Alamofire.
                            try? stream(Stream(event: .complete(completion), token: CancellationToken(self)))
                        }
                    }
                    let now = self.streamState.write { state -> Bool in
                        if state.executing == 0 { return true }
                        state.waitingCompletions.append(complete)
                        return false
                    }
                    if now { complete() }
                }
            }
        }
    }

    /// A piece reached its handler: when none is left, the waiting completions go.
    private func pieceDelivered() {
        let completions = streamState.write { state -> [@Sendable () -> Void] in
            state.executing -= 1
            guard state.executing == 0 else { return [] }
            defer { state.waitingCompletions = [] }
            return state.waitingCompletions
        }
        guard !completions.isEmpty else { return }
        underlyingQueue.async(named: "streamCompletions") { completions.forEach { $0() } }
    }

    /// Runs a handler; a throw becomes the request's error and cancels it.
    private func capturingError(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            self.error = error.asClientError(orFailWith: { .responseSerializationFailed(reason: .customSerializationFailed(error: $0)) })
            cancel()
        }
    }

    // MARK: validation

    /// Adds a custom validator: validators run once the body ended (it streamed already), in the
    /// order added, before the retry decision.
    @preconcurrency
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        streamState.write { $0.validators.append(validation) }
        return self
    }

    /// Fails with `unacceptableStatusCode` unless the status is in `acceptableStatusCodes`.
    @preconcurrency
    @discardableResult
    public func validate<S: Sequence & Sendable>(statusCode acceptableStatusCodes: S) -> Self where S.Iterator.Element == Int {
        validate { _, response in StatusCodeValidation.validate(acceptable: acceptableStatusCodes, response: response) }
    }

    /// Fails unless the response's MIME type matches one of `acceptableContentTypes`.
    @preconcurrency
    @discardableResult
    public func validate<S: Sequence & Sendable>(contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S) -> Self
    where S.Iterator.Element == String {
        validate { _, response in ContentTypeValidation.validate(acceptable: Array(acceptableContentTypes()), response: response) }
    }

    /// A 2xx status, and a content type the request's `Accept` header allows.
    @discardableResult
    public func validate() -> Self {
        validate(statusCode: 200..<300)
        return validate { [weak self] _, response in ContentTypeValidation.validate(acceptingAsIn: self?.request, response: response) }
    }

    /// Runs each validator in order while no error is recorded and a response exists.
    override func runValidators() {
        runValidators(streamState.read { $0.validators }, validate: { $0($1, $2) }) { request, response, result in
            eventMonitor.request(self, didValidateRequest: request, response: response, withResult: result)
        }
    }
}
