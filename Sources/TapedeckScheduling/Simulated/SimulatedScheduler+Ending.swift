import HeapModule

extension SimulatedScheduler {
    /// Ends the simulation for good: every job still waiting (ready or timed) is dropped without
    /// running, so are arrivals not yet taken in and untracked submissions, and whatever is
    /// submitted afterwards, from any thread, is dropped too.
    ///
    /// Pending work keeps a simulation alive: the scheduler holds the queues that have jobs, the
    /// queues hold the scheduler, and the jobs hold whatever they captured (a URLSession, say,
    /// whose invalidation callback was parked on a queue nobody will run again). Ending breaks
    /// that cycle, so the simulation and everything its jobs held are freed once its users let go.
    /// The harness's `endSimulation()` calls it; call it yourself when you drive a scheduler
    /// without one. Trace, time and statistics stay readable.
    ///
    /// ```swift
    /// try scheduler.runUntilIdle()
    /// scheduler.end()          // a callback arriving now is dropped, not parked for ever
    /// ```
    public func end() {
        var dropped: [Job] = []
        var droppedLater: [InboxItem] = []
        var droppedArrivals: [Arrival] = []
        asOwner {
            guard !ended.exchange(true, ordering: .relaxed) else { return }
            for entry in readyRoots {
                let root = entry.queue
                while !root.ready.isEmpty { dropped.append(root.ready.removeFirst(spares: &spares)) }
                root.readyIndex = -1
            }
            readyRoots.removeAll()
            dropped.append(contentsOf: timers.unordered.map(\.job))
            timers = Heap()
            // The queues are let go here; the closures (and what they hold) after ownership ends,
            // so that a deinit they trigger may submit (and have it dropped) from any thread.
            for job in dropped { jobDone(job.queue) }
            condition.lock()
            droppedLater = inbox
            inbox.removeAll()
            droppedArrivals = Array(arrivals.values)
            arrivals.removeAll()
            // Nothing is awaited any more: a callback that comes later is dropped (see arrive).
            outstanding.removeAll()
            patience.removeAll()
            liveArrived.removeAll()
            condition.broadcast()
            condition.unlock()
        }
        dropped.removeAll()
        droppedLater.removeAll()
        droppedArrivals.removeAll()
    }

    /// Whether ``end()`` was called.
    public var hasEnded: Bool {
        ended.load(ordering: .relaxed)
    }
}
