public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An `AsyncSequence` of a request's events (Alamofire's `StreamOf`): what ``DataStreamTask``'s
/// `streaming…` methods and `httpResponses()` return.
///
/// On a Session whose transport can drive its simulation (a cassette tape's), the first `next()`
/// runs the simulation until idle — every event the request will have is then buffered (as the
/// buffering policy allows) — and the sequence reads them in order. On other simulated sessions,
/// drive the scheduler yourself before iterating. Live, events arrive as they happen.
///
/// ```swift
/// for await piece in session.streamRequest("http://api.test/feed").streamTask().streamingStrings() {
///     print(piece.value ?? "end")
/// }
/// ```
public struct StreamOf<Element: Sendable>: AsyncSequence, Sendable {
    /// How many events the sequence keeps while nobody reads them.
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    private let stream: AsyncStream<Element>
    private let prepare: (@Sendable () async -> Void)?

    /// A sequence fed by `builder`; `onTermination` runs when the reader stops (or the sequence
    /// ends); `prepare` runs before the first event is read.
    init(bufferingPolicy: BufferingPolicy, onTermination: @escaping @Sendable () -> Void, prepare: (@Sendable () async -> Void)?,
         builder: (AsyncStream<Element>.Continuation) -> Void) {
        stream = AsyncStream(Element.self, bufferingPolicy: bufferingPolicy) { continuation in
            continuation.onTermination = { _ in onTermination() }
            builder(continuation)
        }
        self.prepare = prepare
    }

    /// An iterator over the events.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), prepare: prepare)
    }

    /// Reads the events in order.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.AsyncIterator
        var prepare: (@Sendable () async -> Void)?

        /// The next event, or nil once the sequence ended.
        public mutating func next() async -> Element? {
            if let prepare {
                self.prepare = nil
                await prepare()
            }
            return await base.next()
        }
    }
}

/// A ``DataStreamRequest``'s events as async sequences (Alamofire's `DataStreamTask`): made by
/// `streamTask()`. Each `streaming…` call adds a handler (starting the request, as a response
/// handler does) and returns its events, the completion last; when the reader stops early, the
/// request is cancelled unless `automaticallyCancelling` is false.
///
/// ```swift
/// let task = session.streamRequest("http://api.test/events").validate().streamTask()
/// for await event in task.streamingStrings() {
///     if let text = event.value { print(text) }
///     if let error = event.completion?.error { print("failed:", error) }
/// }
/// ```
public struct DataStreamTask: Sendable {
    /// The sequence of a stream's events.
    public typealias Stream<Success: Sendable, Failure: Error & Sendable> = StreamOf<DataStreamRequest.Stream<Success, Failure>>

    private let request: DataStreamRequest

    init(request: DataStreamRequest) {
        self.request = request
    }

    /// Every piece as it arrived, then the completion.
    public func streamingData(automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
                              bufferingPolicy: Stream<Data, Never>.BufferingPolicy = .unbounded) -> Stream<Data, Never> {
        events(shouldAutomaticallyCancel, bufferingPolicy) { request, handler in request.responseStream(on: request.underlyingQueue, stream: handler) }
    }

    /// Every piece as UTF-8 text, then the completion.
    public func streamingStrings(automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
                                 bufferingPolicy: Stream<String, Never>.BufferingPolicy = .unbounded) -> Stream<String, Never> {
        events(shouldAutomaticallyCancel, bufferingPolicy) { request, handler in request.responseStreamString(on: request.underlyingQueue, stream: handler) }
    }

    /// Every piece decoded as a `T` by a `JSONDecoder`, then the completion.
    public func streamingDecodables<T: Decodable & Sendable>(
        _ type: T.Type = T.self, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        bufferingPolicy: Stream<T, ClientError>.BufferingPolicy = .unbounded
    ) -> Stream<T, ClientError> {
        streamingResponses(serializedUsing: DecodableStreamSerializer<T>(), automaticallyCancelling: shouldAutomaticallyCancel,
                           bufferingPolicy: bufferingPolicy)
    }

    /// Every piece as `serializer` makes it, then the completion.
    public func streamingResponses<Serializer: DataStreamSerializer>(
        serializedUsing serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        bufferingPolicy: Stream<Serializer.SerializedObject, ClientError>.BufferingPolicy = .unbounded
    ) -> Stream<Serializer.SerializedObject, ClientError> {
        events(shouldAutomaticallyCancel, bufferingPolicy) { request, handler in
            request.responseStream(using: serializer, on: request.underlyingQueue, stream: handler)
        }
    }

    /// Cancels the request.
    public func cancel() {
        request.cancel()
    }

    /// Resumes the request.
    public func resume() {
        request.resume()
    }

    /// Suspends the request.
    public func suspend() {
        request.suspend()
    }

    /// The events one handler added by `append` sees.
    private func events<Success: Sendable, Failure: Error & Sendable>(
        _ shouldAutomaticallyCancel: Bool, _ bufferingPolicy: Stream<Success, Failure>.BufferingPolicy,
        append: (DataStreamRequest, @escaping DataStreamRequest.Handler<Success, Failure>) -> Void
    ) -> Stream<Success, Failure> {
        typealias Event = DataStreamRequest.Stream<Success, Failure>
        let request = request
        let completed = Protected(false)
        let feed = Protected<AsyncStream<Event>.Continuation?>(nil)
        let onTermination: @Sendable () -> Void = {
            guard shouldAutomaticallyCancel, [.initialized, .resumed, .suspended].contains(request.state) else { return }
            request.cancel()
        }
        var prepare: (@Sendable () async -> Void)?
        if let drive = request.delegate?.drive ?? request.drive {
            prepare = {
                // Everything the request needs is on its scheduler: after running it, the
                // completion is there — or will never come, which ends the sequence with the reason.
                var failure: (any Error)?
                do { try await drive() } catch { failure = error }
                guard !completed.read({ $0 }), let continuation = feed.read({ $0 }) else { return }
                let error = ClientError.sessionTaskFailed(error: failure ?? UnansweredRequestError(request: request.description))
                let completion = DataStreamRequest.Completion(request: request.request, response: request.response, metrics: request.metrics,
                                                              error: error)
                continuation.yield(Event(event: .complete(completion), token: DataStreamRequest.CancellationToken(request)))
                continuation.finish()
            }
        }
        return StreamOf(bufferingPolicy: bufferingPolicy, onTermination: onTermination, prepare: prepare) { continuation in
            feed.write { $0 = continuation }
            let handler: DataStreamRequest.Handler<Success, Failure> = { stream in
                continuation.yield(stream)
                if case .complete = stream.event {
                    completed.write { $0 = true }
                    continuation.finish()
                }
            }
            append(request, handler)
        }
    }
}

extension DataStreamRequest {
    /// The request's events as async sequences.
    public func streamTask() -> DataStreamTask {
        DataStreamTask(request: self)
    }
}

extension Request {
    /// A sequence fed by handlers `register` adds, ended when the request finished; on a session
    /// that drives its simulation, the first read runs it until idle.
    func events<Element: Sendable>(_ bufferingPolicy: StreamOf<Element>.BufferingPolicy,
                                           register: (AsyncStream<Element>.Continuation) -> Void) -> StreamOf<Element> {
        var prepare: (@Sendable () async -> Void)?
        if let drive = delegate?.drive { prepare = { _ = try? await drive() } }
        return StreamOf(bufferingPolicy: bufferingPolicy, onTermination: {}, prepare: prepare) { continuation in
            register(continuation)
            onFinish { continuation.finish() }
        }
    }

    /// Each attempt's response head, as it arrives (this sets the request's `onHTTPResponse`
    /// handler); the sequence ends when the request finished.
    ///
    /// ```swift
    /// for await response in request.httpResponses() { print(response.statusCode) }
    /// ```
    public func httpResponses(bufferingPolicy: StreamOf<HTTPURLResponse>.BufferingPolicy = .unbounded) -> StreamOf<HTTPURLResponse> {
        events(bufferingPolicy) { continuation in
            let yield: @Sendable (HTTPURLResponse) -> Void = { continuation.yield($0) }
            onHTTPResponse(on: underlyingQueue, perform: yield)
        }
    }

    /// Each URLRequest the request sends (one per attempt, the adapted one), as it is made.
    public func urlRequests(bufferingPolicy: StreamOf<URLRequest>.BufferingPolicy = .unbounded) -> StreamOf<URLRequest> {
        events(bufferingPolicy) { continuation in
            let yield: @Sendable (URLRequest) -> Void = { continuation.yield($0) }
            onURLRequestCreation(on: underlyingQueue, perform: yield)
        }
    }

    /// The cURL command of each URLRequest the request sends, as it is made.
    public func cURLDescriptions(bufferingPolicy: StreamOf<String>.BufferingPolicy = .unbounded) -> StreamOf<String> {
        events(bufferingPolicy) { continuation in
            let yield: @Sendable (URLRequest) -> Void = { [weak self] _ in
                if let self { continuation.yield(self.cURLDescription()) }
            }
            onURLRequestCreation(on: underlyingQueue, perform: yield)
        }
    }

    /// The body's download progress, each time it changes (this sets the request's
    /// `downloadProgress` handler).
    public func downloadProgress(bufferingPolicy: StreamOf<Progress>.BufferingPolicy = .unbounded) -> StreamOf<Progress> {
        events(bufferingPolicy) { continuation in
            let yield: ProgressHandler = { continuation.yield($0) }
            downloadProgress(queue: underlyingQueue, closure: yield)
        }
    }

    /// The body's upload progress, each time it changes (this sets the request's `uploadProgress`
    /// handler).
    public func uploadProgress(bufferingPolicy: StreamOf<Progress>.BufferingPolicy = .unbounded) -> StreamOf<Progress> {
        events(bufferingPolicy) { continuation in
            let yield: ProgressHandler = { continuation.yield($0) }
            uploadProgress(queue: underlyingQueue, closure: yield)
        }
    }
}
