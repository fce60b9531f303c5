package import Foundation

/// Starts `process`, one launch at a time in this test process.
///
/// swift-corelibs-foundation's `Process.run()` is not safe to call from several threads at once:
/// two launches racing have crashed inside it (a bad read while it copies the launch state), and
/// Swift Testing runs suites in parallel. Every test that starts a child process goes through here;
/// the children themselves still run in parallel.
package func launch(_ process: Process) throws {
    launchLock.lock()
    defer { launchLock.unlock() }
    try process.run()
}

private let launchLock = NSLock()

/// Runs blocking work (child processes, curl, sockets) on a thread of its own, so an async test
/// never holds one of the cooperative pool's threads (two on this machine) that the loopback
/// server's handlers need.
package func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
