public import TapedeckScheduling
import TapedeckClient

extension TargetProvider {
    /// Sends `target` and returns at once with a handle whose result can be awaited later (see
    /// ``PendingResponse``). Without a `callbackQueue` it goes through
    /// `request(_:callbackQueue:progress:completion:)`, so a subclass's override answers it.
    public func start(_ target: Target, callbackQueue: (any SchedulerQueue)? = nil) -> PendingResponse {
        let pending = PendingResponse()
        let completion: Completion = { result in pending.complete(with: result) }
        let token: any Cancellable = if let callbackQueue {
            request(target, callbackQueue: callbackQueue, completion: completion)
        } else {
            request(target, completion: completion)
        }
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
    ///
    /// An app's own `func request(_ target: Target) async throws -> Response` (the bridge Moya 15
    /// apps write) takes precedence where it is visible: it has no defaulted parameter.
    public func request(_ target: Target, callbackQueue: (any SchedulerQueue)? = nil) async throws(ProviderError) -> Response {
        let pending = start(target, callbackQueue: callbackQueue)
        if let drive = session.drive {
            // A session that can run its own simulation (a tape's, in a `.cassette` test): run it
            // until idle, as an awaited DataTask does; then the answer is there, or never comes.
            do {
                try await drive()
            } catch {
                guard let result = pending.finished else { throw .underlying(error, nil) }
                return try result.get()
            }
            guard let result = pending.finished else {
                pending.cancel()
                throw .underlying(UnansweredRequestError(request: "\(target.method.rawValue) \(target.baseURL.appendingPathComponent(target.path))"), nil)
            }
            return try result.get()
        }
        let result = await withTaskCancellationHandler {
            await pending.result
        } onCancel: {
            pending.cancel()
        }
        return try result.get()
    }
}
