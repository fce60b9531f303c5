import Foundation
import TapedeckScheduling

// Response serializers: appended by the response handlers, run once per attempt in order on the
// serializationQueue, their completions delivered together once all have run.

extension Request {
    /// Appends a serializer closure (run on the serializationQueue) and resumes the request when it
    /// should start automatically.
    func appendResponseSerializer(_ closure: @escaping @Sendable () -> Void) {
        let action = mutableState.write { state -> RequestLifecycle.Action in
            state.responseSerializers.append(closure)
            return state.lifecycle.handle(.serializerAppended)
        }
        guard case let .appended(processNow, mayResume) = action else { return }
        if processNow {
            underlyingQueue.async(named: "processNextResponseSerializer") { self.processNextResponseSerializer() }
        }
        if mayResume {
            underlyingQueue.async(named: "autoResume") {
                if self.delegate == nil, self.mutableState.read({ $0.tasks.isEmpty }) {
                    // No session to set it up (nothing held the Session): it can never start, so
                    // it ends now as the session's release ends requests, not never.
                    self.finish(error: .sessionDeinitialized)
                } else if self.shouldAutomaticallyResume {
                    self.resume()
                }
            }
        }
    }

    var shouldAutomaticallyResume: Bool {
        mutableState.read { $0.shouldAutomaticallyResume } ?? delegate?.startRequestsImmediately ?? false
    }

    /// The next serializer to run, or nil when every one has completed.
    private func nextResponseSerializer() -> (@Sendable () -> Void)? {
        mutableState.read { state in
            let index = state.responseSerializerCompletions.count
            return index < state.responseSerializers.count ? state.responseSerializers[index] : nil
        }
    }

    func processNextResponseSerializer() {
        guard let serializer = nextResponseSerializer() else {
            let (completions, finishHandlers) = mutableState.write { state -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
                let completions = state.responseSerializerCompletions
                state.responseSerializers.removeAll()
                state.responseSerializerCompletions.removeAll()
                _ = state.lifecycle.handle(.serializersCompleted)
                let handlers = state.finishHandlers
                state.finishHandlers.removeAll()
                return (completions, handlers)
            }
            completions.forEach { $0() }
            finishHandlers.forEach { $0() }
            releaseResources()
            delegate?.cleanup(after: self)
            return
        }
        serializationQueue.async(named: "serialize") { serializer() }
    }

    /// An unserialized stage (`response(queue:completionHandler:)` of any kind of request): the
    /// response `make` builds from the request's state, told to the monitors by `announce`, never
    /// shown to the retrier.
    func appendRawStage<Response: Sendable>(
        queue: (any SchedulerQueue)?, make: @escaping @Sendable () -> Response,
        announce: @escaping @Sendable (Response) -> Void, completionHandler: @escaping @Sendable (Response) -> Void
    ) {
        let queue = queue ?? delegate?.defaultResponseQueue ?? underlyingQueue
        appendResponseSerializer {
            self.underlyingQueue.async(named: "response") {
                let response = make()
                announce(response)
                self.responseSerializerDidComplete { queue.async(named: "completion") { completionHandler(response) } }
            }
        }
    }

    /// A serializer stage any kind of request uses: `serialize` runs on the serializationQueue;
    /// `make` builds the handler's response from its result and duration; `announce` tells the
    /// monitors. A failure is shown to the retrier once (a serializer-stage retry, docs/client.md)
    /// before the handler gets it.
    func appendSerializingStage<Value: Sendable, Response: Sendable>(
        queue: (any SchedulerQueue)?, serialize: @escaping @Sendable () throws -> Value,
        make: @escaping @Sendable (Result<Value, ClientError>, Duration) -> Response,
        announce: @escaping @Sendable (Response) -> Void, completionHandler: @escaping @Sendable (Response) -> Void
    ) {
        let queue = queue ?? delegate?.defaultResponseQueue ?? underlyingQueue
        appendResponseSerializer {
            let start = self.serializationQueue.now
            let result: Result<Value, ClientError> = Result { try serialize() }
                .mapError { $0.asClientError(orFailWith: { .responseSerializationFailed(reason: .customSerializationFailed(error: $0)) }) }
            let duration = start.duration(to: self.serializationQueue.now)
            self.underlyingQueue.async(named: "response") {
                let response = make(result, duration)
                announce(response)
                guard case let .failure(serializerError) = result, !self.isCancelled, let delegate = self.delegate else {
                    self.responseSerializerDidComplete { queue.async(named: "completion") { completionHandler(response) } }
                    return
                }
                delegate.retryResult(for: self, dueTo: serializerError) { retryResult in
                    switch retryResult {
                    case .doNotRetry:
                        self.responseSerializerDidComplete { queue.async(named: "completion") { completionHandler(response) } }
                    case let .doNotRetryWithError(retryError):
                        let failed = make(.failure(retryError.asClientError(orFailWith: {
                            .requestRetryFailed(retryError: $0, originalError: serializerError)
                        })), duration)
                        self.responseSerializerDidComplete { queue.async(named: "completion") { completionHandler(failed) } }
                    case .retry, .retryWithDelay:
                        self.setSerializerRetryAbandonment {
                            let cancelled = make(.failure(.explicitlyCancelled), duration)
                            self.responseSerializerDidComplete { queue.async(named: "completion") { completionHandler(cancelled) } }
                        }
                        delegate.retryRequest(self, withDelay: retryResult.delay)
                    }
                }
            }
        }
    }

    /// Records a serializer's completion (delivered with the others once all have run).
    func responseSerializerDidComplete(with completion: @escaping @Sendable () -> Void) {
        mutableState.write { $0.responseSerializerCompletions.append(completion) }
        processNextResponseSerializer()
    }

    /// Runs `handler` on the underlyingQueue once the request finished (after its completion handlers).
    @preconcurrency
    @discardableResult
    public func onFinish(_ handler: @escaping @Sendable () -> Void) -> Self {
        let finishedAlready = mutableState.write { state -> Bool in
            if state.lifecycle.isFullyFinished { return true }
            state.finishHandlers.append(handler)
            return false
        }
        if finishedAlready { underlyingQueue.async(named: "onFinish", handler) }
        return self
    }
}
