/// Accumulates trace steps and their running hash. Owned by one scheduler, used by its owner thread.
///
/// Hash definition ("trace hash v1"): start from the FNV-1a offset basis; for each step fold in, with
/// ``StableHash/combine(_:_:)``, the virtual time in nanoseconds, the FNV-1a of the queue label, the
/// job number, the FNV-1a of the event name and the FNV-1a of the payload; the published value is
/// ``StableHash/finalize(_:)`` of the running value combined with the step count.
struct TraceRecorder {
    let mode: TraceMode
    private(set) var steps: [TraceStep] = []
    private(set) var count = 0
    private var running: UInt64 = StableHash.fnvOffset

    static let runDigest = StableHash.fnv1a("run")
    static let syncDigest = StableHash.fnv1a("sync")
    static let emptyDigest = StableHash.fnv1a("")

    init(mode: TraceMode) {
        self.mode = mode
    }

    var hash: TraceHash {
        TraceHash(value: StableHash.finalize(StableHash.combine(running, UInt64(count))))
    }

    /// Records a step whose digests were computed ahead of time (the hot path of job execution).
    @inline(__always)
    mutating func record(
        time: Int64, queue: String, queueDigest: UInt64, job: UInt64,
        event: String, eventDigest: UInt64, payload: String, payloadDigest: UInt64
    ) {
        var h = StableHash.combine(running, UInt64(bitPattern: time))
        h = StableHash.combine(h, queueDigest)
        h = StableHash.combine(h, job)
        h = StableHash.combine(h, eventDigest)
        running = StableHash.combine(h, payloadDigest)
        if mode == .full {
            steps.append(TraceStep(
                index: count, time: VirtualInstant(nanoseconds: time), queue: queue, job: job,
                event: event, payload: payload))
        }
        count += 1
    }

    /// Records an event named at run time (client events, diagnostics).
    mutating func record(time: Int64, queue: String, queueDigest: UInt64, job: UInt64, event: String, payload: String) {
        record(
            time: time, queue: queue, queueDigest: queueDigest, job: job,
            event: event, eventDigest: StableHash.fnv1a(event),
            payload: payload, payloadDigest: payload.isEmpty ? Self.emptyDigest : StableHash.fnv1a(payload))
    }
}
