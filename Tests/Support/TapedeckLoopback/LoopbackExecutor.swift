import Dispatch

/// Where every loopback server's Swift tasks run: one serial dispatch queue of its own, never
/// Swift's cooperative pool.
///
/// Swift Testing runs tests on the cooperative pool, which on Linux has one thread per core (two
/// here) and never grows. A test that blocks one of those threads while it waits for an answer
/// from a loopback server (a synchronous URLSession call, a simulation driven in place, a child
/// process reading from the server) would otherwise need a second pool thread for the server's
/// handler; with two such tests at once nothing could ever run again. Handlers here run on this
/// queue's thread, so a server answers however busy or blocked the pool is.
final class LoopbackExecutor: TaskExecutor {
    /// The one executor all loopback servers share.
    static let shared = LoopbackExecutor()

    private let queue = DispatchQueue(label: "org.tapedeck.loopback.server")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
