import Foundation

/// Something another thread handed to the simulation without an expectation.
enum InboxItem {
    case async(queue: SimulatedQueue, deadline: Int64?, name: String, handle: ScheduledWork?, work: @Sendable () -> Void)
    case record(event: String, payload: String)
}

/// A thread that wants to act as the owner while a driver is running (a foreign `sync`).
final class OwnershipRequest: @unchecked Sendable {
    // @unchecked Sendable: both flags are read and written only under the scheduler's `condition` lock.
    let thread: UInt
    var granted = false
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

    /// Runs `body` as the owner. The owner thread runs it directly; another thread waits for a brief
    /// owner to finish, or, while a driver runs, asks the driver to hand ownership over at its next
    /// quiescent point.
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
            defer { releaseOwnership(restoring: 0, driving: false) }
            return try body()
        }
        // A driver runs on another thread: queue up and wait to be handed ownership.
        let request = OwnershipRequest(thread: me)
        ownershipRequests.append(request)
        condition.broadcast()
        while !request.granted { condition.wait() }
        condition.unlock()
        defer {
            condition.lock()
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
            precondition(!ownerIsDriving, "tapedeck: the simulation is already being driven by another thread")
            condition.wait()
        }
        owner.store(me, ordering: .relaxed)
        ownerIsDriving = true
        condition.unlock()
        isDriving = true
    }

    func endDriving() {
        isDriving = false
        releaseOwnership(restoring: 0, driving: false)
    }

    func releaseOwnership(restoring thread: UInt, driving: Bool) {
        condition.lock()
        owner.store(thread, ordering: .relaxed)
        ownerIsDriving = driving
        condition.broadcast()
        condition.unlock()
    }

    /// Hands ownership to each waiting foreign `sync` in turn (called by the driver when quiescent).
    /// Must be called with `condition` locked; returns with it locked.
    func serveOwnershipRequestsLocked() -> Bool {
        guard !ownershipRequests.isEmpty else { return false }
        let me = currentThreadID()
        while !ownershipRequests.isEmpty {
            let request = ownershipRequests.removeFirst()
            owner.store(request.thread, ordering: .relaxed)
            ownerIsDriving = false
            request.granted = true
            condition.broadcast()
            while !request.finished { condition.wait() }
            owner.store(me, ordering: .relaxed)
            ownerIsDriving = true
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
            releaseOwnership(restoring: 0, driving: false)
            return
        }
        untrackedSubmissions += 1
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
