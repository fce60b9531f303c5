import Synchronization

/// A request already sent, whose result can be awaited: what ``MoyaProvider/start(_:callbackQueue:)``
/// returns.
///
/// Starting is synchronous, so under simulation a test can start, drive the scheduler, then await —
/// one result at a time, deterministically:
///
/// ```swift
/// let pending = provider.start(.zen)
/// try scheduler.runUntilIdle()
/// let text = try await pending.response.mapString()
/// ```
public final class PendingResponse: Cancellable {
    private enum Stage {
        case waiting([CheckedContinuation<Result<Response, ProviderError>, Never>])
        case done(Result<Response, ProviderError>)
    }

    private let stage = Mutex(Stage.waiting([]))
    private let token = Mutex<(any Cancellable)?>(nil)
    private let cancelled = Mutex(false)

    init() {}

    /// The result, once the completion ran (after every plugin's `process`).
    public var result: Result<Response, ProviderError> {
        get async {
            if let done = stage.withLock({ stage -> Result<Response, ProviderError>? in
                if case let .done(result) = stage { return result }
                return nil
            }) {
                return done
            }
            return await withCheckedContinuation { continuation in
                let ready = stage.withLock { stage -> Result<Response, ProviderError>? in
                    switch stage {
                    case let .done(result):
                        return result
                    case var .waiting(continuations):
                        continuations.append(continuation)
                        stage = .waiting(continuations)
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// The response, or the ``ProviderError`` the request failed with.
    public var response: Response {
        get async throws {
            try await result.get()
        }
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Cancels this caller's request (see ``CancellableToken``).
    public func cancel() {
        let first = cancelled.withLock { cancelled -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        guard first else { return }
        token.withLock { $0 }?.cancel()
    }

    func attach(_ made: any Cancellable) {
        token.withLock { $0 = made }
        if isCancelled { made.cancel() }
    }

    /// The result when the completion already ran, else nil.
    var finished: Result<Response, ProviderError>? {
        stage.withLock { stage in
            if case let .done(result) = stage { return result }
            return nil
        }
    }

    func complete(with result: Result<Response, ProviderError>) {
        let waiting = stage.withLock { stage -> [CheckedContinuation<Result<Response, ProviderError>, Never>] in
            guard case let .waiting(continuations) = stage else { return [] }
            stage = .done(result)
            return continuations
        }
        waiting.forEach { $0.resume(returning: result) }
    }
}
