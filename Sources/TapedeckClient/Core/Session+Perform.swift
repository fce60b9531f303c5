import Foundation
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How a request is set up, sent, completed, retried and cleaned up (docs/client.md, "Requests, retry, interceptors").

extension Session {
    /// Lazy setup: called by `resume()` when the request has no task yet.
    func readyToPerform(_ request: Request) {
        perform(request)
    }

    func perform(_ request: Request, forRetry: Bool = false) {
        rootQueue.async(named: "perform") { [self] in
            guard !request.isCancelled else { return }
            let isNew = state.write { $0.activeRequests.updateValue(request, forKey: ObjectIdentifier(request)) == nil }
            guard isNew || forRetry else { return }   // a resume/suspend/resume burst performs once (5.12)
            requestQueue.async(named: "setup") { [self] in
                performSetupOperations(for: request)
            }
        }
    }

    /// A request made on a Session whose simulation has ended never runs (its queues' work is
    /// dropped): said once per Session on standard error — the usual cause is a client kept
    /// across tests, still bound to a finished test's tape.
    func noteIfSimulationEnded() {
        guard let simulation = scheduler as? SimulatedScheduler, simulation.hasEnded else { return }
        guard state.write({ state in
            defer { state.warnedEndedSimulation = true }
            return !state.warnedEndedSimulation
        }) else { return }
        try? FileHandle.standardError.write(contentsOf: Data(("tapedeck: a request was made on a Session whose simulation has ended: it will never run nor "
            + "call its handlers. A Session made under a test's tape (the .cassette trait, useCassette) belongs to that tape; a client "
            + "kept across tests (a singleton, a static let) must be made, or given its Session, in each test.\n").utf8))
    }

    /// On the requestQueue: build the URLRequest, validate it, adapt it; each outcome hops to the rootQueue.
    func performSetupOperations(for request: Request) {
        requestQueue.preconditionCurrent()
        if let upload = request as? UploadRequest {
            guard !upload.isCancelled else { return }
            do {
                let made = try upload.prepareUploadable()
                rootQueue.async(named: "didCreateUploadable") { upload.didCreateUploadable(made) }
            } catch {
                let failure = error.asClientError(orFailWith: { .createUploadableFailed(error: $0) })
                rootQueue.async(named: "didFailToCreateUploadable") { upload.didFailToCreateUploadable(with: failure) }
                return
            }
        }
        let initialRequest: URLRequest
        do {
            initialRequest = try request.convertible.asURLRequest()
            try initialRequest.validate()
        } catch {
            let failure = error.asClientError(orFailWith: { .createURLRequestFailed(error: $0) })
            rootQueue.async(named: "didFailToCreateURLRequest") { request.didFailToCreateURLRequest(with: failure) }
            return
        }
        rootQueue.async(named: "didCreateInitialURLRequest") { request.didCreateInitialURLRequest(initialRequest) }
        guard !request.isCancelled else { return }
        guard let adapter = adapter(for: request) else {
            rootQueue.async(named: "didCreateURLRequest") { [self] in didCreateURLRequest(initialRequest, for: request) }
            return
        }
        let adapterState = RequestAdapterState(requestID: request.id, session: self)
        adapter.adapt(initialRequest, using: adapterState) { [self] result in
            do {
                let adapted = try result.get()
                try adapted.validate()
                rootQueue.async(named: "didAdaptInitialRequest") { request.didAdaptInitialRequest(initialRequest, to: adapted) }
                rootQueue.async(named: "didCreateURLRequest") { [self] in didCreateURLRequest(adapted, for: request) }
            } catch {
                let failure = ClientError.requestAdaptationFailed(error: error)
                rootQueue.async(named: "didFailToAdaptURLRequest") { request.didFailToAdaptURLRequest(initialRequest, withError: failure) }
            }
        }
    }

    /// On the rootQueue: the attempt's task, mapped to its request.
    func didCreateURLRequest(_ urlRequest: URLRequest, for request: Request) {
        rootQueue.preconditionCurrent()
        request.didCreateURLRequest(urlRequest)
        guard !request.isCancelled else { return }
        let task = request.task(for: urlRequest, using: session)
        state.write { state in
            state.requestTaskMap[task.taskIdentifier] = request
            state.ledger.register(task.taskIdentifier)
        }
        request.didCreateTask(task)
    }

    // MARK: interceptors (session first, then the request's — 5.11+)

    func adapter(for request: Request) -> (any RequestAdapter)? {
        switch (interceptor, request.interceptor) {
        case let (session?, request?): return Interceptor(adapters: [session, request])
        case let (session?, nil): return session
        case let (nil, request?): return request
        case (nil, nil): return nil
        }
    }

    func retrier(for request: Request) -> (any RequestRetrier)? {
        switch (interceptor, request.interceptor) {
        case let (session?, request?): return Interceptor(retriers: [session, request])
        case let (session?, nil): return session
        case let (nil, request?): return request
        case (nil, nil): return nil
        }
    }

    // MARK: retry

    /// Asks the retriers; the answer always comes back through a hop onto the rootQueue, and a
    /// retrier's own error is always wrapped in `requestRetryFailed`.
    func retryResult(for request: Request, dueTo error: ClientError, completion: @escaping @Sendable (RetryResult) -> Void) {
        rootQueue.preconditionCurrent()
        guard let retrier = retrier(for: request) else {
            rootQueue.async(named: "retryResult") { completion(.doNotRetry) }
            return
        }
        retrier.retry(request, for: self, dueTo: error) { [self] result in
            rootQueue.async(named: "retryResult") {
                guard let retryError = result.error else {
                    completion(result)
                    return
                }
                completion(.doNotRetryWithError(ClientError.requestRetryFailed(retryError: retryError, originalError: error)))
            }
        }
    }

    /// Starts the next attempt, after `delay` seconds of scheduler time when given.
    func retryRequest(_ request: Request, withDelay delay: TimeInterval?) {
        rootQueue.async(named: "retryRequest") { [self] in
            let retry: @Sendable () -> Void = { [self] in
                guard !request.isCancelled else {
                    // Alamofire 5.12.0 returns here and the request never completes.
                    request.abandonRetry()
                    return
                }
                request.prepareForRetry()
                perform(request, forRetry: true)
            }
            // A cancel that came while the retrier decided ends the retry now, not after the delay.
            if let delay, delay > 0, !request.isCancelled,
               request.setPendingRetry(rootQueue.asyncAfter(delay: .seconds(rounding: delay), named: "retry", retry)) {
                state.read { $0.backoffListener }?(request, .seconds(rounding: delay))
                return
            }
            retry()
        }
    }

    // MARK: completion and metrics (the task ledger; docs/client.md, "Validation, serializers, monitors, the task ledger")

    func request(for task: URLSessionTask) -> Request? {
        state.read { $0.requestTaskMap[task.taskIdentifier] }
    }

    func didCompleteTask(_ task: URLSessionTask, error: ClientError?) {
        rootQueue.preconditionCurrent()
        let id = task.taskIdentifier
        let (request, action) = state.write { state -> (Request?, TaskLedger.CompletionAction) in
            (state.requestTaskMap[id] ?? state.retiredTasks[id]?.request,
             state.ledger.didComplete(id, transportDeliversMetrics: transportProfile.deliversMetrics))
        }
        let boxed = UncheckedSendable(task)
        let completion: @Sendable () -> Void = { request?.didCompleteTask(boxed.value, with: error) }
        switch action {
        case .completeNow:
            disassociate(id)
            completion()
        case .waitForMetrics:
            let grace = rootQueue.asyncAfter(delay: metricsGracePeriod, named: "metricsGracePeriod") { [self] in
                metricsGracePeriodEnded(for: boxed.value)
            }
            state.write { $0.waitingCompletions[id] = WaitingCompletion(completion: completion, graceTimer: grace) }
        case .duplicate:
            if let request { request.eventMonitor.request(request, didObserve: .duplicateCompletion, for: task) }
        }
    }

    func didGatherMetrics(_ metrics: TransferMetrics, for task: URLSessionTask) {
        rootQueue.preconditionCurrent()
        let id = task.taskIdentifier
        let (request, action) = state.write { state -> (Request?, TaskLedger.MetricsAction) in
            (state.requestTaskMap[id] ?? state.retiredTasks[id]?.request, state.ledger.didGatherMetrics(id))
        }
        switch action {
        case .recorded:
            request?.didGatherMetrics(metrics)
        case .releaseWaitingCompletion:
            request?.didGatherMetrics(metrics)
            let waiting = state.write { $0.waitingCompletions.removeValue(forKey: id) }
            waiting?.graceTimer?.cancel()
            disassociate(id)
            waiting?.completion()
        case .duplicate:
            if let request { request.eventMonitor.request(request, didObserve: .duplicateMetrics, for: task) }
        case .unknownTask:
            break
        }
    }

    private func metricsGracePeriodEnded(for task: URLSessionTask) {
        let id = task.taskIdentifier
        let (request, action) = state.write { state -> (Request?, TaskLedger.GraceAction) in
            (state.requestTaskMap[id], state.ledger.gracePeriodEnded(id))
        }
        guard action == .completeWithoutMetrics else { return }
        if let request { request.eventMonitor.request(request, didObserve: .metricsMissing, for: task) }
        let waiting = state.write { $0.waitingCompletions.removeValue(forKey: id) }
        disassociate(id)
        waiting?.completion()
    }

    /// The task is done with (completed and, where promised, metrics gathered): forget the mapping.
    private func disassociate(_ id: Int) {
        state.write { state in
            if let request = state.requestTaskMap.removeValue(forKey: id) {
                state.retiredTasks[id] = WeakRequest(request: request)
            }
        }
    }

    // MARK: other delegate needs

    func cancelTask(_ task: URLSessionTask) {
        if let provider { provider.cancel(task) } else { task.cancel() }
    }

    func cleanup(after request: Request) {
        state.write { state in
            _ = state.activeRequests.removeValue(forKey: ObjectIdentifier(request))
            // Tasks of requests nobody holds any more can have no late callback attributed to
            // them: forget them, and their ledger entries, so a long-lived session does not grow.
            // Pruning looks at every retired task, so it waits until there have been half as many
            // cleanups as there are retired tasks: at most two looks per cleanup in all, even when
            // the app holds on to every request (pruning at each cleanup cost O(n²)), and a burst
            // of requests retired together is still pruned as they go away. A late callback for a
            // task whose request is gone does nothing whether or not the task was forgotten yet.
            state.cleanupsSincePrune += 1
            guard 2 * state.cleanupsSincePrune >= state.retiredTasks.count else { return }
            state.cleanupsSincePrune = 0
            state.retiredTasksVisited += state.retiredTasks.count
            for (id, retired) in state.retiredTasks where retired.request == nil {
                state.retiredTasks[id] = nil
                state.ledger.forget(id)
            }
        }
    }

    func didInvalidate(error: (any Error)?) {
        let active = state.read { Array($0.activeRequests.values) }
        for request in active {
            rootQueue.async(named: "sessionInvalidated") { request.finish(error: .sessionInvalidated(error: error)) }
        }
    }
}

/// A request the session no longer tracks, kept only to attribute late duplicate callbacks.
struct WeakRequest {
    weak var request: Request?
}
