/// Accumulates trace steps and their running hash. Owned by one scheduler, used by its owner thread.
///
/// Hash definition ("trace hash v1"): start from the FNV-1a offset basis; for each step fold in, with
/// ``StableHash/combine(_:_:)``, the virtual time in nanoseconds, the FNV-1a of the queue label, the
/// job number, the FNV-1a of the event name and the FNV-1a of the payload; the published value is
/// ``StableHash/finalize(_:)`` of the running value combined with the step count.
///
/// In `.full` mode steps are kept compactly (strings interned once) and expanded on request.
struct TraceRecorder {
    let mode: TraceMode
    private(set) var count = 0
    private var running: UInt64 = StableHash.fnvOffset
    private var compact = SegmentedSteps()
    private var strings = StringTable()

    // FNV-1a of "run", "sync" and "" as literals, so the per-step path needs no lazy initialisation
    // (the pinned trace hash test would catch a wrong one).
    static let runDigest: UInt64 = 0x89B2_A819_60C5_5A4A
    static let syncDigest: UInt64 = 0xDA79_3C19_3643_E93A
    static let emptyDigest: UInt64 = 0xCBF2_9CE4_8422_2325

    init(mode: TraceMode) {
        self.mode = mode
    }

    var hash: TraceHash {
        TraceHash(value: StableHash.finalize(StableHash.combine(running, UInt64(count))))
    }

    var steps: [TraceStep] {
        compact.all.enumerated().map { index, step in
            TraceStep(
                index: index, time: VirtualInstant(nanoseconds: step.time), queue: strings[step.queue],
                job: step.job, event: strings[step.event], payload: strings[step.payload])
        }
    }

    /// The last `n` steps.
    func lastSteps(_ n: Int) -> [TraceStep] {
        let tail = compact.suffix(n)
        let first = count - tail.count
        return tail.enumerated().map { offset, step in
            TraceStep(
                index: first + offset, time: VirtualInstant(nanoseconds: step.time), queue: strings[step.queue],
                job: step.job, event: strings[step.event], payload: strings[step.payload])
        }
    }

    /// Records a step whose digests were computed ahead of time (the hot path of job execution).
    /// `queueSlot` caches the label's index in the string table on the queue.
    @inline(__always)
    mutating func record(
        time: Int64, queue: String, queueDigest: UInt64, queueSlot: inout UInt32, job: UInt64,
        event: StringTable.Fixed, eventDigest: UInt64, payload: String, payloadDigest: UInt64
    ) {
        var h = StableHash.combine(running, UInt64(bitPattern: time))
        h = StableHash.combine(h, queueDigest)
        h = StableHash.combine(h, job)
        h = StableHash.combine(h, eventDigest)
        running = StableHash.combine(h, payloadDigest)
        count += 1
        guard mode == .full else { return }
        if queueSlot == StringTable.unassigned { queueSlot = strings.intern(queue) }
        compact.append(CompactStep(
            time: time, job: job, queue: queueSlot, event: event.rawValue,
            payload: payload.isEmpty ? StringTable.Fixed.empty.rawValue : strings.intern(payload)))
    }

    /// Records an event named at run time (client events, diagnostics).
    mutating func record(time: Int64, queue: String, queueDigest: UInt64, job: UInt64, event: String, payload: String) {
        var h = StableHash.combine(running, UInt64(bitPattern: time))
        h = StableHash.combine(h, queueDigest)
        h = StableHash.combine(h, job)
        h = StableHash.combine(h, StableHash.fnv1a(event))
        running = StableHash.combine(h, payload.isEmpty ? Self.emptyDigest : StableHash.fnv1a(payload))
        count += 1
        guard mode == .full else { return }
        compact.append(CompactStep(
            time: time, job: job, queue: strings.intern(queue), event: strings.intern(event),
            payload: strings.intern(payload)))
    }
}

/// One trace step in 32 bytes: strings are indices into the recorder's string table.
struct CompactStep {
    let time: Int64
    let job: UInt64
    let queue: UInt32
    let event: UInt32
    let payload: UInt32
}

/// Interned strings of a trace; a few fixed entries first.
struct StringTable {
    enum Fixed: UInt32 {
        case empty = 0, run, sync
    }

    static let unassigned = UInt32.max

    private var values = ["", "run", "sync"]
    private var indices: [String: UInt32] = ["": 0, "run": 1, "sync": 2]

    subscript(index: UInt32) -> String { values[Int(index)] }

    mutating func intern(_ string: String) -> UInt32 {
        if let index = indices[string] { return index }
        let index = UInt32(values.count)
        values.append(string)
        indices[string] = index
        return index
    }
}

/// Compact steps in fixed-size chunks: appending never copies the steps already recorded.
struct SegmentedSteps {
    private static let chunkSize = 4_096
    private var chunks: [[CompactStep]] = []

    @inline(__always)
    mutating func append(_ step: CompactStep) {
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            var chunk: [CompactStep] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(step)
    }

    var all: [CompactStep] {
        chunks.flatMap { $0 }
    }

    /// The last `n` steps, without touching the others.
    func suffix(_ n: Int) -> [CompactStep] {
        var result: [CompactStep] = []
        for chunk in chunks.reversed() {
            result.insert(contentsOf: chunk.suffix(n - result.count), at: 0)
            if result.count == n { break }
        }
        return result
    }
}
