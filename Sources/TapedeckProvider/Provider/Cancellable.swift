import Synchronization

/// Something that can be cancelled: what the provider's `request(_:callbackQueue:progress:completion:)`
/// returns. `Sendable` (Moya's is not): a token is cancelled from whichever queue the app is on;
/// `@preconcurrency`, so an app's own mutable class (a test double) is a warning in the Swift 6
/// language mode and nothing in Swift 5's.
@preconcurrency
public protocol Cancellable: Sendable {
    /// True once ``cancel()`` was called.
    var isCancelled: Bool { get }
    /// Cancels (idempotent).
    func cancel()
}

/// One caller's handle on its request.
///
/// Cancelling it ends *this caller's* wait: its completion runs with a cancellation error
/// (`ProviderError.underlying(ClientError.explicitlyCancelled, nil)`) unless it already ran. The
/// request itself (network request or stub) is cancelled only when no other caller shares it
/// (see ``MoyaProvider/trackInflights``).
public final class CancellableToken: Cancellable, CustomDebugStringConvertible {
    private let state: Mutex<(cancelled: Bool, action: (@Sendable () -> Void)?)>
    private let label: String

    /// A token that runs `action` on its first ``cancel()``.
    @preconcurrency
    public init(action: @escaping @Sendable () -> Void) {
        state = Mutex((false, action))
        label = "CancellableToken"
    }

    init(label: String, action: @escaping @Sendable () -> Void) {
        state = Mutex((false, action))
        self.label = label
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Runs the action once; later calls do nothing.
    public func cancel() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }

    /// The request it cancels, e.g. `CancellableToken(GET http://api.test/zen, caller 2)`.
    public var debugDescription: String { label }
}
