import Synchronization

/// A minimal lock for test helpers.
final class NSLockLike: Sendable {
    private let mutex = Mutex(())

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try mutex.withLock { _ in try body() }
    }
}
