/// A FIFO of jobs stored in fixed-size segments, so that a burst of a million submissions never
/// moves the jobs already queued (a ring buffer would copy them each time it grows).
struct JobFIFO {
    private(set) var count = 0
    private var head: JobSegment?
    private var tail: JobSegment?

    var isEmpty: Bool { count == 0 }

    /// Sequence number of the oldest job (the FIFO must not be empty).
    var firstSeq: UInt64 { head!.first.seq }

    mutating func append(_ job: Job, spares: inout JobSegmentPool) {
        if let tail, !tail.isFull {
            tail.append(job)
        } else {
            let segment = spares.take()
            segment.append(job)
            if let tail { tail.next = segment } else { head = segment }
            tail = segment
        }
        count += 1
    }

    mutating func removeFirst(spares: inout JobSegmentPool) -> Job {
        let segment = head!
        let job = segment.removeFirst()
        count -= 1
        if segment.isDrained {
            head = segment.next
            if head == nil { tail = nil }
            segment.next = nil
            spares.give(segment)
        }
        return job
    }
}

/// Up to `limit` empty segments kept for reuse by one scheduler.
struct JobSegmentPool {
    private var spare: [JobSegment] = []
    private let limit = 64

    mutating func take() -> JobSegment {
        spare.popLast() ?? JobSegment()
    }

    mutating func give(_ segment: JobSegment) {
        segment.reset()
        if spare.count < limit { spare.append(segment) }
    }
}

final class JobSegment {
    static let capacity = 512
    private let storage = UnsafeMutablePointer<Job>.allocate(capacity: JobSegment.capacity)
    private var start = 0
    private var end = 0
    var next: JobSegment?

    var isFull: Bool { end == Self.capacity }
    /// Every slot was filled and emptied again.
    var isDrained: Bool { start == end && isFull }
    var first: Job { storage[start] }

    func append(_ job: Job) {
        (storage + end).initialize(to: job)
        end += 1
    }

    func removeFirst() -> Job {
        defer { start += 1 }
        return (storage + start).move()
    }

    func reset() {
        precondition(start == end, "only an empty segment can be reused")
        start = 0
        end = 0
    }

    deinit {
        (storage + start).deinitialize(count: end - start)
        storage.deallocate()
    }
}
