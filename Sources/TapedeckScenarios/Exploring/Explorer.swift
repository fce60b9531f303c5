import Foundation
import Synchronization

/// A request to stop an exploration early (Ctrl-C): the seeds under way finish, no new one starts,
/// and ``Explorer/explore(seeds:stop:makeWorker:emit:)`` returns what was done, in seed order.
///
/// ```swift
/// let stop = ExploreStop()
/// // on SIGINT: stop.request()
/// let result = try explorer.explore(seeds: seeds, stop: stop, makeWorker: make, emit: write)
/// if result.interrupted { print("interrupted after \(result.emitted) seeds") }
/// ```
public final class ExploreStop: Sendable {
    private let state = Mutex<(requested: Bool, listeners: [@Sendable () -> Void])>((false, []))

    /// A stop nobody has requested yet.
    public init() {}

    /// Whether a stop was requested.
    public var isRequested: Bool { state.withLock { $0.requested } }

    /// Requests the stop (from any thread; later calls do nothing).
    public func request() {
        let listeners = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.requested else { return [] }
            state.requested = true
            return state.listeners
        }
        for listener in listeners { listener() }
    }

    /// Runs `action` when the stop is requested (at once if it was).
    func whenRequested(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.requested { return true }
            state.listeners.append(action)
            return false
        }
        if now { action() }
    }
}

/// Runs seeds one at a time for an ``Explorer``: a runner of its own on a worker thread, or the
/// stand-in for a worker process. Each is made and used on one thread only.
public protocol SeedWorker: AnyObject {
    /// Runs `seed` and returns its record.
    func run(seed: UInt64) throws -> SeedRecord
    /// Called once when no more seeds come (a worker process is told to exit here).
    func finish()
}

/// Runs a list of seeds over several workers, each on its own thread, and hands their records
/// to the caller in seed order as they become available — so the output of a run does not depend
/// on which worker was faster. Optionally stops after a number of failures.
///
/// ```swift
/// let explorer = Explorer(jobs: 2, stopAfter: nil)
/// let outcome = try explorer.explore(seeds: Array(1...200), makeWorker: { _ in InProcessSeedWorker(scenario: scenario) }) { record in
///     print(try record.jsonLine())
/// }
/// print(outcome.emitted, outcome.stoppedEarly)
/// ```
public struct Explorer: Sendable {
    /// What an exploration did.
    public struct Result: Hashable, Sendable {
        /// Records handed to `emit`.
        public var emitted: Int
        /// True when `stopAfter` failures ended it before every seed ran.
        public var stoppedEarly: Bool
        /// True when an ``ExploreStop`` ended it before every seed ran.
        public var interrupted = false
    }

    /// Workers (threads), at least 1.
    public let jobs: Int
    /// Stop once this many seeds have failed (nil: run every seed).
    public let stopAfter: Int?

    /// An explorer with `jobs` workers, stopping after `stopAfter` failures if given.
    public init(jobs: Int, stopAfter: Int?) {
        self.jobs = max(1, jobs)
        self.stopAfter = stopAfter
    }

    /// Runs `seeds` on workers made by `makeWorker` (given the worker's index, on its thread) and
    /// calls `emit` on this thread with every record, in the order of `seeds`. With `stopAfter`,
    /// records after the failure that reached it are not emitted. The first error any worker or
    /// `emit` throws stops the exploration and is rethrown here.
    /// With `stop`, a requested stop lets the seeds under way finish and emits the records that
    /// follow on without a gap from the last emitted one.
    public func explore(seeds: [UInt64], stop: ExploreStop? = nil, makeWorker: @escaping @Sendable (Int) throws -> any SeedWorker,
                        emit: (SeedRecord) throws -> Void) throws -> Result {
        let board = Board(seeds: seeds)
        stop?.whenRequested { board.stop() }
        let workers = min(jobs, max(1, seeds.count))
        for index in 0..<workers {
            let thread = Thread { board.work(index: index, makeWorker: makeWorker) }
            thread.stackSize = 8 << 20
            thread.name = "tapedeck.explore.\(index)"
            thread.start()
        }
        var emitted = 0, failures = 0, stoppedEarly = false
        do {
            while let record = try board.next(waitingFor: workers) {
                try emit(record)
                emitted += 1
                if !record.passed { failures += 1 }
                if let stopAfter, failures >= stopAfter {
                    stoppedEarly = emitted < seeds.count
                    break
                }
            }
        } catch {
            board.stop()
            board.waitForWorkers(workers)
            throw error
        }
        board.stop()
        board.waitForWorkers(workers)
        return Result(emitted: emitted, stoppedEarly: stoppedEarly, interrupted: !stoppedEarly && emitted < seeds.count && stop?.isRequested == true)
    }
}

/// The seeds to hand out and the records that came back, shared by the workers and the caller.
private final class Board: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private let seeds: [UInt64]
    private var handedOut = 0
    private var emitted = 0
    private var results: [Int: SeedRecord] = [:]
    private var finishedWorkers = 0
    private var stopped = false
    private var error: (any Error)?

    init(seeds: [UInt64]) {
        self.seeds = seeds
    }

    /// A worker's loop: take the next seed, run it, post its record, until none is left or stopped.
    func work(index: Int, makeWorker: @Sendable (Int) throws -> any SeedWorker) {
        var worker: (any SeedWorker)?
        do {
            worker = try makeWorker(index)
            while let (position, seed) = take() {
                guard let worker else { break }
                post(position, try worker.run(seed: seed))
            }
        } catch {
            fail(error)
        }
        worker?.finish()
        condition.withLock {
            finishedWorkers += 1
            condition.broadcast()
        }
    }

    private func take() -> (Int, UInt64)? {
        condition.withLock {
            guard !stopped, handedOut < seeds.count else { return nil }
            handedOut += 1
            return (handedOut - 1, seeds[handedOut - 1])
        }
    }

    private func post(_ position: Int, _ record: SeedRecord) {
        condition.withLock {
            results[position] = record
            condition.broadcast()
        }
    }

    private func fail(_ error: any Error) {
        condition.withLock {
            if self.error == nil { self.error = error }
            stopped = true
            condition.broadcast()
        }
    }

    /// The next record in seed order; nil when every seed has been emitted or workers are gone.
    func next(waitingFor workers: Int) throws -> SeedRecord? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let error { throw error }
            if let record = results.removeValue(forKey: emitted) {
                emitted += 1
                return record
            }
            if emitted == seeds.count || finishedWorkers == workers { return nil }
            condition.wait()
        }
    }

    /// No seed is handed out any more; a caller waiting in ``next(waitingFor:)`` wakes.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    func waitForWorkers(_ workers: Int) {
        condition.lock()
        while finishedWorkers < workers { condition.wait() }
        condition.unlock()
    }
}
