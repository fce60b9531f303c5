public import TapedeckScheduling
import TapedeckClient

extension MoyaProvider {
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
    /// its token would). On a session that runs its own simulation (a tape's: `MoyaProvider<API>()`
    /// inside a `.cassette` test) with no callback queue given, the simulation is run until idle
    /// first, as an awaited TapedeckClient request runs it, and a target nothing answered by then
    /// fails with `UnansweredRequestError` instead of waiting forever. Otherwise it waits; tasks
    /// racing each other are then ordered by the Swift runtime, not the simulator (to drive a
    /// simulation from the same task, use ``start(_:callbackQueue:)``, run the scheduler, then await).
    ///
    /// ```swift
    /// let user = try await provider.request(.user("octocat")).map(User.self)
    /// ```
    ///
    /// An app's own `func request(_ target: Target) async throws -> Response` (the bridge Moya 15
    /// apps write) takes precedence where it is visible: it has no defaulted parameter.
    public func request(_ target: Target, callbackQueue: (any SchedulerQueue)? = nil) async throws -> Response {
        let pending = start(target, callbackQueue: callbackQueue)
        // Only where every completion stays on the session's simulation: a callback queue of
        // another scheduler would answer after the run went idle.
        if callbackQueue == nil, self.callbackQueue == nil, let drive = session.drive {
            do {
                try await drive()
            } catch {
                guard let result = pending.finished else { throw ProviderError.underlying(error, nil) }
                return try result.get()
            }
            guard let result = pending.finished else {
                throw ProviderError.underlying(UnansweredRequestError(request: "\(target.method.rawValue) \(target.baseURL.appendingPathComponent(target.path))"), nil)
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
