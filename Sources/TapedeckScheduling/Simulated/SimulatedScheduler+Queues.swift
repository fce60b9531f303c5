extension SimulatedScheduler {
    /// Entry point for every submission from a simulated queue.
    @inline(__always)
    func submit(
        to queue: SimulatedQueue, deadline: Int64?, name: String, handle: ScheduledWork?,
        _ work: __owned @escaping @Sendable () -> Void
    ) {
        if isOwnerThread {
            enqueueOwned(queue, deadline: deadline, name: name, handle: handle, work)
        } else {
            submitForeign(.async(queue: queue, deadline: deadline, name: name, handle: handle, work: work))
        }
    }

    /// Gives the job its sequence number and files it as ready (deadline reached) or as a timer.
    @inline(__always)
    func enqueueOwned(
        _ queue: SimulatedQueue, deadline: Int64?, name: String, handle: ScheduledWork?,
        _ work: __owned @escaping @Sendable () -> Void
    ) {
        if ended.load(ordering: .relaxed) { return }   // the simulation is over (see end())
        let seq = nextSeq
        nextSeq &+= 1
        if queue.pendingJobs == 0 { _ = Unmanaged.passRetained(queue) }
        queue.pendingJobs &+= 1
        let job = Job(seq: seq, queue: queue, name: name, work: work, handle: handle)
        if let deadline, deadline > nowNanos {
            timers.insert(TimerEntry(deadline: deadline, job: job))
        } else {
            makeReady(job)
        }
    }

    @inline(__always)
    func makeReady(_ job: Job) {
        let root = job.queue.root!
        if root.readyIndex < 0 {
            root.readyIndex = readyRoots.count
            readyRoots.append(ReadyRoot(queue: root))
        }
        root.ready.append(job, spares: &spares)
    }

    /// Pops and runs the oldest job of `root`. Returns false when it was a cancelled timer.
    @discardableResult
    @inline(__always)
    func runNext(from root: SimulatedQueue) -> Bool {
        let job = root.ready.removeFirst(spares: &spares)
        if root.ready.isEmpty { removeReadyRoot(root) }
        let queue = job.queue
        defer { jobDone(queue) }
        if job.isCancelled { return false }
        recorder.record(
            time: nowNanos, queue: queue.label, queueDigest: queue.labelDigest, queueSlot: &queue.traceSlot,
            job: job.seq, event: .run, eventDigest: TraceRecorder.runDigest,
            payload: job.name, payloadDigest: job.name.isEmpty ? TraceRecorder.emptyDigest : StableHash.fnv1a(job.name))
        frames.append(Frame(queue: queue, job: job.seq, startsThread: true))
        job.work()
        frames.removeLast()
        executedSteps += 1
        return true
    }

    /// A job of `queue` ran or was dropped; after its last one the scheduler lets the queue go.
    @inline(__always)
    func jobDone(_ queue: SimulatedQueue) {
        queue.pendingJobs &-= 1
        if queue.pendingJobs == 0 { Unmanaged.passUnretained(queue).release() }
    }

    @inline(__always)
    func removeReadyRoot(_ root: SimulatedQueue) {
        let index = root.readyIndex
        let last = readyRoots.removeLast()
        if last.queue !== root {
            readyRoots[index] = last
            last.queue.readyIndex = index
        }
        root.readyIndex = -1
    }

    /// The root whose job runs next: the only ready one, the oldest head under the FIFO seed, or a
    /// seeded pick among all roots ready at this instant; recording and replaying go through
    /// ``RootChoices``.
    @inline(__always)
    func chooseRoot() -> SimulatedQueue? {
        switch readyRoots.count {
        case 0:
            return nil
        case 1:
            return readyRoots[0].queue
        default:
            if !choicesAreSeededOnly {
                let seeded = choices.usesSeed && seed != Self.fifoSeed ? rootChooser.next(below: readyRoots.count) : nil
                return readyRoots[choices.pick(among: readyRoots, seeded: seeded)].queue
            }
            if seed == Self.fifoSeed {
                var best = readyRoots[0].queue
                for entry in readyRoots.dropFirst() where entry.queue.ready.firstSeq < best.ready.firstSeq {
                    best = entry.queue
                }
                return best
            }
            return readyRoots[rootChooser.next(below: readyRoots.count)].queue
        }
    }

    // MARK: sync

    func runSync<T>(on queue: SimulatedQueue, file: StaticString, line: UInt, _ work: () throws -> T) rethrows -> T {
        try asOwner {
            let root: SimulatedQueue = queue.root
            if frames.contains(where: { $0.queue.root === root }) {
                report(.syncDeadlock, queue: queue, file: file, line: line)
            } else {
                // GCD runs a sync block after the work already queued ahead of it on that root.
                var ahead = root.ready.count
                while ahead > 0 && !root.ready.isEmpty {
                    runNext(from: root)
                    ahead -= 1
                }
            }
            let seq = nextSeq
            nextSeq &+= 1
            recorder.record(
                time: nowNanos, queue: queue.label, queueDigest: queue.labelDigest, queueSlot: &queue.traceSlot,
                job: seq, event: .sync, eventDigest: TraceRecorder.syncDigest,
                payload: "", payloadDigest: TraceRecorder.emptyDigest)
            frames.append(Frame(queue: queue, job: seq, startsThread: false))
            defer { frames.removeLast() }
            return try work()
        }
    }

    // MARK: on-queue checks

    func isCurrent(_ queue: SimulatedQueue) -> Bool {
        guard isOwnerThread else { return false }
        for frame in currentThreadFrames {
            var candidate: SimulatedQueue? = frame.queue
            while let current = candidate {
                if current === queue { return true }
                candidate = current.parent
            }
        }
        return false
    }

    /// The frames of the code running now, innermost first, down to the job that started its
    /// "thread" (jobs a `sync` runs ahead of itself do not see the `sync` caller's queues).
    var currentThreadFrames: ArraySlice<Frame> {
        guard let start = frames.lastIndex(where: { $0.startsThread }) else { return frames[...] }
        return frames[start...]
    }

    func check(_ queue: SimulatedQueue, isCurrent expected: Bool, file: StaticString, line: UInt) {
        if isCurrent(queue) == expected { return }
        report(expected ? .notOnQueue : .unexpectedlyOnQueue, queue: queue, file: file, line: line)
    }

    /// The labels the calling thread is running on, innermost frame first, each with its targets.
    var runningOnLabels: [String] {
        guard isOwnerThread else { return [] }
        var labels: [String] = []
        for frame in currentThreadFrames.reversed() {
            for label in frame.queue.targetChain where !labels.contains(label) {
                labels.append(label)
            }
        }
        return labels
    }

    func report(_ kind: QueueViolation.Kind, queue: SimulatedQueue, file: StaticString, line: UInt) {
        let violation = QueueViolation(
            kind: kind, queue: queue.label, runningOn: runningOnLabels, time: now,
            file: file.description, line: line)
        switch violationPolicy {
        case .trap:
            fatalError("tapedeck: \(violation)")
        case .record:
            condition.lock()
            recordedViolations.append(violation)
            condition.unlock()
            if isOwnerThread { record("violation", violation.description) }
        }
    }
}
