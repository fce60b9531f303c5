public import TapedeckScheduling

extension TargetProvider {
    /// Sends `target` and returns at once with a handle whose result can be awaited later (see
    /// ``PendingResponse``).
    public func start(_ target: Target, callbackQueue: (any SchedulerQueue)? = nil) -> PendingResponse {
        let pending = PendingResponse()
        let token = request(target, callbackQueue: callbackQueue) { result in pending.complete(with: result) }
        pending.attach(token)
        return pending
    }

    /// Sends `target` and waits for its response. Cancelling the Swift task cancels the request (as
    /// its token would). Deterministic under simulation when results are awaited one at a time;
    /// tasks racing each other are ordered by the Swift runtime, not the simulator (to drive a
    /// simulation from the same task, use ``start(_:callbackQueue:)``, run the scheduler, then await).
    ///
    /// ```swift
    /// let user = try await provider.request(.user("octocat")).map(User.self)
    /// ```
    public func request(_ target: Target, callbackQueue: (any SchedulerQueue)? = nil) async throws(ProviderError) -> Response {
        let pending = start(target, callbackQueue: callbackQueue)
        let result = await withTaskCancellationHandler {
            await pending.result
        } onCancel: {
            pending.cancel()
        }
        return try result.get()
    }
}
