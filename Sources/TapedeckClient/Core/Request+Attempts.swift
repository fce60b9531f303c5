import Foundation
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// An attempt's events from the Session (all on the underlyingQueue): its URLRequests, its task,
// its completion, then a retry or the end of the request.

extension Request {
    /// Hands `event` to the lifecycle under the lock and returns its action (an illegal event is
    /// a bug in Tapedeck: it traps in debug builds and is ignored in release builds).
    @discardableResult
    func handle(_ event: RequestLifecycle.Event) -> RequestLifecycle.Action {
        let action = mutableState.write { $0.lifecycle.handle(event) }
        if case let .illegal(what) = action {
            assertionFailure("tapedeck: request \(id): \(what)")
            return .ignore
        }
        return action
    }

    func didCreateInitialURLRequest(_ request: URLRequest) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.requests.append(request) }
        eventMonitor.request(self, didCreateInitialURLRequest: request)
    }

    func didFailToCreateURLRequest(with error: ClientError) {
        underlyingQueue.preconditionCurrent()
        self.error = error
        eventMonitor.request(self, didFailToCreateURLRequestWithError: error)
        retryOrFinish(error: error)
    }

    func didAdaptInitialRequest(_ initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.requests.append(adaptedRequest) }
        eventMonitor.request(self, didAdaptInitialRequest: initialRequest, to: adaptedRequest)
    }

    func didFailToAdaptURLRequest(_ request: URLRequest, withError error: ClientError) {
        underlyingQueue.preconditionCurrent()
        self.error = error
        eventMonitor.request(self, didFailToAdaptURLRequest: request, withError: error)
        retryOrFinish(error: error)
    }

    func didCreateURLRequest(_ request: URLRequest) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didCreateURLRequest: request)
    }

    /// Records the attempt's task and aligns it with the request's state (resumed → resume,
    /// suspended → suspend, cancelled → resume then cancel, so that metrics are still produced).
    func didCreateTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        let action = mutableState.write { state -> RequestLifecycle.Action in
            state.tasks.append(task)
            return state.lifecycle.handle(.taskCreated)
        }
        eventMonitor.request(self, didCreateTask: task)
        guard case let .alignTask(step) = action else { return }
        let boxed = UncheckedSendable(task)
        switch step {
        case .resume:
            task.resume()
            underlyingQueue.async(named: "didResumeTask") { self.didResumeTask(boxed.value) }
        case .suspend:
            task.suspend()
            underlyingQueue.async(named: "didSuspendTask") { self.didSuspendTask(boxed.value) }
        case .cancel:
            task.resume()
            delegate?.cancelTask(task)
            underlyingQueue.async(named: "didCancelTask") { self.didCancelTask(boxed.value) }
        case .nothing, .setUp:
            break
        }
    }

    func didResume() {
        underlyingQueue.preconditionCurrent()
        eventMonitor.requestDidResume(self)
    }

    func didResumeTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didResumeTask: task)
    }

    func didSuspend() {
        underlyingQueue.preconditionCurrent()
        eventMonitor.requestDidSuspend(self)
    }

    func didSuspendTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didSuspendTask: task)
    }

    func didCancel() {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.error = $0.error ?? .explicitlyCancelled }
        eventMonitor.requestDidCancel(self)
    }

    func didCancelTask(_ task: URLSessionTask) {
        underlyingQueue.preconditionCurrent()
        eventMonitor.request(self, didCancelTask: task)
    }

    func didGatherMetrics(_ metrics: TransferMetrics) {
        underlyingQueue.preconditionCurrent()
        mutableState.write { $0.metrics.append(metrics) }
        eventMonitor.request(self, didGatherMetrics: metrics)
    }

    /// The attempt's task completed: record its error, run validators, then retry or finish.
    func didCompleteTask(_ task: URLSessionTask, with error: ClientError?) {
        underlyingQueue.preconditionCurrent()
        let boxed = UncheckedSendable(task)
        afterResponseAnswered(isBody: false) { self.taskDidEnd(boxed.value, with: error) }
    }

    /// The completion, once an `onHTTPResponse` handler answered (or at once without one).
    private func taskDidEnd(_ task: URLSessionTask, with error: ClientError?) {
        mutableState.write { $0.error = $0.error ?? error }
        transferDidEnd(task: task)
        runValidators()
        eventMonitor.request(self, didCompleteTask: task, with: error)
        retryOrFinish(error: self.error)
    }

    // MARK: retry

    /// Asks the retriers about a failed attempt (a cancelled or successful one just finishes).
    func retryOrFinish(error: ClientError?) {
        underlyingQueue.preconditionCurrent()
        switch handle(.attemptEnded(retryable: error != nil && delegate != nil)) {
        case .askRetrier:
            guard let delegate, let error else { return }
            delegate.retryResult(for: self, dueTo: error) { retryResult in
                switch (self.handle(.retryDecided(retry: retryResult.isRetry)), retryResult) {
                case (.retry, _):
                    delegate.retryRequest(self, withDelay: retryResult.delay)
                case let (.finish, .doNotRetryWithError(retryError)):
                    self.finishAttempt(error: retryError.asClientError(orFailWith: { .requestRetryFailed(retryError: $0, originalError: error) }))
                case (.finish, _):
                    self.finishAttempt(error: nil)
                default:
                    break
                }
            }
        case .finish:
            finishAttempt(error: nil)
        default:
            break
        }
    }

    /// Remembers the armed retry so that a cancel can end it. Returns false (and disarms it) when a
    /// cancel came first: the caller then ends the retry at once.
    func setPendingRetry(_ work: ScheduledWork) -> Bool {
        mutableState.write { state in
            guard state.lifecycle.handle(.retryArmed) == .keepRetry else {
                work.cancel()
                return false
            }
            state.pendingRetry = work
            return true
        }
    }

    /// Records what to deliver if a cancel ends the serializer-stage retry about to be asked for.
    func setSerializerRetryAbandonment(_ abandon: @escaping @Sendable () -> Void) {
        mutableState.write { state in
            state.abandonSerializerRetry = abandon
            _ = state.lifecycle.handle(.serializerRetryRequested)
        }
    }

    /// Counts the retry, forgets the failed attempt's error and data, and says so.
    func prepareForRetry() {
        underlyingQueue.preconditionCurrent()
        mutableState.write { state in
            state.retryCount += 1
            _ = state.lifecycle.handle(.retryStarting)
        }
        reset()
        eventMonitor.requestIsRetrying(self)
    }

    /// A cancel ended a retry before its attempt started. A retry asked for by a failing serializer
    /// hands that serializer's handler an `explicitlyCancelled` response and lets the remaining
    /// serializers run; any other retry finishes the request as cancelled. (Alamofire 5.12.0 does
    /// neither, and the request never completes.)
    func abandonRetry() {
        underlyingQueue.preconditionCurrent()
        let (action, abandon) = mutableState.write { state -> (RequestLifecycle.Action, (@Sendable () -> Void)?) in
            state.pendingRetry = nil
            let action = state.lifecycle.handle(.retryAbandoned)
            defer { state.abandonSerializerRetry = nil }
            guard action == .abandonSerializerRetry else { return (action, nil) }
            state.error = .explicitlyCancelled
            return (action, state.abandonSerializerRetry)
        }
        if action == .finishCancelled {
            finish(error: .explicitlyCancelled)
        } else {
            abandon?()
        }
    }

    // MARK: the end of an attempt

    /// Ends the attempt: runs the response serializers (once per attempt), then `requestDidFinish`.
    /// `error`, when given, replaces the request's.
    func finish(error: ClientError? = nil) {
        underlyingQueue.preconditionCurrent()
        guard case .finish = handle(.finishRequested) else { return }
        finishAttempt(error: error)
    }

    /// Runs the serializers of an attempt the lifecycle moved to `finishing` (dropping a retry
    /// that was waiting), then says the request did finish.
    private func finishAttempt(error: ClientError?) {
        let retry = mutableState.write { state -> ScheduledWork? in
            if let error { state.error = error }
            defer { state.pendingRetry = nil }
            return state.pendingRetry
        }
        retry?.cancel()
        processNextResponseSerializer()
        eventMonitor.requestDidFinish(self)
    }
}

extension RetryResult {
    /// True for `.retry` and `.retryWithDelay`.
    var isRetry: Bool {
        switch self {
        case .retry, .retryWithDelay: return true
        case .doNotRetry, .doNotRetryWithError: return false
        }
    }
}
