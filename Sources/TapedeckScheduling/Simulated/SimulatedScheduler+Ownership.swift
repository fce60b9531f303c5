import Foundation

/// Something another thread handed to the simulation without an expectation.
enum InboxItem {
    case async(queue: SimulatedQueue, deadline: Int64?, name: String, handle: ScheduledWork?, work: @Sendable () -> Void)
    case record(event: String, payload: String)
}

/// A thread that wants to act as the owner while a driver is running (a foreign `sync`).
final class OwnershipRequest: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written only under the scheduler's `condition` lock.
    let thread: UInt
    /// The driver that granted the request (0 until granted); ownership goes back to it afterwards.
    var driver: UInt = 0
    var finished = false

    init(thread: UInt) {
        self.thread = thread
    }
}

extension SimulatedScheduler {
    @inline(__always)
    var isOwnerThread: Bool {
        owner.load(ordering: .relaxed) == currentThreadID()
    }

    /// True when the calling thread owns the simulation (it drives it, or runs a job or `sync`
    /// block of it): work it submits gets its place in the order at once.
    public var isCurrentThreadOwner: Bool {
        isOwnerThread
    }

    /// Runs `body` as the owner. The owner thread runs it directly. Another thread waits for a
    /// brief owner to finish and takes ownership; while a driver runs, it asks to be handed
    /// ownership at the driver's next quiescent point (or takes it if the run ends first) and
    /// hands it back before returning.
    func asOwner<R>(_ body: () throws -> R) rethrows -> R {
        if isOwnerThread { return try body() }
        let me = currentThreadID()
        condition.lock()
        while owner.load(ordering: .relaxed) != 0 && !ownerIsDriving {
            condition.wait()
        }
        if owner.load(ordering: .relaxed) == 0 {
            owner.store(me, ordering: .relaxed)
            condition.unlock()
            defer { releaseOwnership() }
            return try body()
        }
        // A driver runs on another thread: queue up and wait to be handed ownership.
        let request = OwnershipRequest(thread: me)
        ownershipRequests.append(request)
        untrackedSubmissions += 1
        condition.broadcast()
        while request.driver == 0 {
            if owner.load(ordering: .relaxed) == 0 {
                // The run ended before serving us: take ownership like any other caller.
                ownershipRequests.removeAll { $0 === request }
                owner.store(me, ordering: .relaxed)
                condition.unlock()
                defer { releaseOwnership() }
                return try body()
            }
            condition.wait()
        }
        condition.unlock()
        defer {
            // Hand the simulation back to the driver before anything else can happen on this thread.
            condition.lock()
            owner.store(request.driver, ordering: .relaxed)
            ownerIsDriving = true
            request.finished = true
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Makes the calling thread the driving owner; traps on misuse (a run inside a job, two drivers).
    func beginDriving() {
        if isOwnerThread {
            precondition(!isDriving, "tapedeck: a simulation run was started from inside a job of the same scheduler")
            fatalError("tapedeck: a simulation run was started while this thread holds the scheduler for a sync or setup call")
        }
        let me = currentThreadID()
        condition.lock()
        while owner.load(ordering: .relaxed) != 0 {
            precondition(!ownerIsDriving, "tapedeck: the simulation is already being driven by another thread — two tests running at once "
                         + "share one simulation (a transport installed for the whole process, one Tape or Harness used by parallel tests): "
                         + "give each test its own (DefaultTransport.$current.withValue, a Tape per test) or run those tests serialized")
            condition.wait()
        }
        owner.store(me, ordering: .relaxed)
        ownerIsDriving = true
        condition.unlock()
        isDriving = true
    }

    /// Ends a run: applies submissions still in the inbox, then frees the simulation (threads
    /// waiting for ownership then take it themselves).
    func endDriving() {
        isDriving = false
        var tookLeftovers = false
        while true {
            condition.lock()
            if inbox.isEmpty {
                owner.store(0, ordering: .relaxed)
                ownerIsDriving = false
                condition.broadcast()
                condition.unlock()
                // Work that arrived as the run ended (a timer set from another thread) waits for a
                // run nobody has asked for yet.
                if tookLeftovers { runOutsideWorkHooks() }
                return
            }
            let leftovers = inbox
            inbox.removeAll()
            condition.unlock()
            for item in leftovers {
                if case .async = item { tookLeftovers = true }
                apply(item)
            }
        }
    }

    /// Registers `hook` to be called whenever a thread other than a driver put work (an `async`,
    /// a timer: a `SimulatedClock` sleep from a client's own thread) into the simulation while no
    /// run was in progress — on the submitting thread — or as a run ended — on the driving thread,
    /// once the run is over. A harness serving clients on their own threads uses it to wake its
    /// driver, which would otherwise wait for the client's next request and never fire the timer.
    /// The hook must neither drive the scheduler nor submit work to it (it would be called again);
    /// hooks stay for the scheduler's life.
    ///
    /// ```swift
    /// scheduler.addOutsideWorkHook { driver.wake() }
    /// ```
    public func addOutsideWorkHook(_ hook: @escaping @Sendable () -> Void) {
        condition.lock()
        outsideWorkHooks.append(hook)
        condition.unlock()
    }

    func runOutsideWorkHooks() {
        condition.lock()
        let hooks = outsideWorkHooks
        condition.unlock()
        for hook in hooks { hook() }
    }

    /// Frees the simulation after a brief (non-driving) ownership.
    func releaseOwnership() {
        condition.lock()
        owner.store(0, ordering: .relaxed)
        ownerIsDriving = false
        condition.broadcast()
        condition.unlock()
    }

    /// Hands ownership to each waiting foreign `sync` in turn (called by the driver when quiescent);
    /// each hands it back when its block is done. Must be called with `condition` locked; returns
    /// with it locked.
    func serveOwnershipRequestsLocked() -> Bool {
        guard !ownershipRequests.isEmpty else { return false }
        let me = currentThreadID()
        while !ownershipRequests.isEmpty {
            let request = ownershipRequests.removeFirst()
            request.driver = me
            owner.store(request.thread, ordering: .relaxed)
            ownerIsDriving = false
            condition.broadcast()
            while !request.finished { condition.wait() }
        }
        return true
    }

    /// Accepts a submission from a thread that is not the owner.
    func submitForeign(_ item: InboxItem) {
        let me = currentThreadID()
        condition.lock()
        while owner.load(ordering: .relaxed) != 0 && !ownerIsDriving {
            condition.wait()
        }
        if owner.load(ordering: .relaxed) == 0 {
            // Nobody runs the simulation: take ownership for the moment and apply it directly.
            owner.store(me, ordering: .relaxed)
            condition.unlock()
            apply(item)
            releaseOwnership()
            if case .async = item { runOutsideWorkHooks() }
            return
        }
        untrackedSubmissions += 1
        if case let .async(queue, _, name, _, _) = item, foreignJobNames.insert(name).inserted {
            externalDiagnostics.append("'\(name)' on \(queue.label) was submitted from a thread the simulation does not own while it ran "
                + "(a completion handler called from the app's own queue or thread, say): its place in the order depends on thread timing")
        }
        inbox.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// Applies an inbox item on the owner thread.
    func apply(_ item: InboxItem) {
        switch item {
        case let .async(queue, deadline, name, handle, work):
            enqueueOwned(queue, deadline: deadline, name: name, handle: handle, work)
        case let .record(event, payload):
            record(event, payload)
        }
    }
}
