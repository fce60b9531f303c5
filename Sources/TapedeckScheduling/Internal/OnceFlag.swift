import Synchronization

/// Lets exactly one caller through, whichever thread gets there first: the first ``claim()`` is
/// true, every later one false.
///
/// For races between two parties that may both try to finish the same thing (a deferred answer
/// arriving on another thread while the exchange ends on the simulator's; a completion handler
/// called twice; a resource released from `finish` and from `deinit`).
package final class OnceFlag: Sendable {
    private let claimed = Mutex(false)

    package init() {}

    /// True for the first caller only.
    package func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }

    /// True once somebody has claimed the flag.
    package var isClaimed: Bool {
        claimed.withLock { $0 }
    }
}
