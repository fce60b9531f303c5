import Foundation
import HTTPTypes
import TapedeckHTTP
import TapedeckScheduling

/// How the final response's body reaches the client: the bytes it is handed, the wire bytes they
/// stand for, the chunks the wire bytes arrive in and when, and where the connection drops (a
/// reset). Each chunk's delivery schedules the next, so a delayed chunk delays the rest.
struct BodyPlan: Sendable {
    /// What the client is handed (decoded when the exchange decodes content codings).
    let data: Data
    /// How many bytes travel on the wire for it.
    let wireCount: Int
    /// Chunk sizes in wire bytes (they add up to `wireCount`).
    let sizes: [Int]
    /// How long receiving the whole body takes, spread over the chunks by their share of bytes.
    let receive: Duration
    /// When each chunk is due as a share of `receive` (a recording's arrival times); nil: by bytes.
    var dueFractions: [Double]?
    /// When receiving began.
    let start: VirtualInstant
    /// Fault delays so far: every later chunk comes this much later.
    var shift: Duration = .zero
    /// The connection drops once this many wire bytes were delivered (a reset or truncation fault).
    var cut: Int?
    /// How the exchange fails at the cut.
    var cutFailure: TransportFailure = .networkConnectionLost
    /// How the exchange fails once every byte went, instead of completing: a recorded response
    /// that broke off (``ResponsePlan/interruption``).
    var brokenOff: TransportFailure?
    /// The chunk to deliver next.
    var next = 0
    /// Wire bytes delivered so far.
    var offset = 0

    /// The wire bytes up to the end of chunk `next`.
    var nextEnd: Int { offset + sizes[next] }

    var isComplete: Bool { next >= sizes.count }

    /// When chunk `next` is due.
    func nextDue() -> VirtualInstant {
        if let dueFractions, next < dueFractions.count {
            return start.advanced(by: .nanoseconds(Int64((Double(receive.wholeNanoseconds) * dueFractions[next]).rounded()))).advanced(by: shift)
        }
        return start.advanced(by: scaled(receive, part: nextEnd, of: wireCount)).advanced(by: shift)
    }

    /// Each chunk's share of the receive time from a recording's arrival times, when they fit the
    /// chunks (one per chunk, in order); nil otherwise. `recordedReceive` is the recording's whole
    /// receive time (the last arrival when it is shorter).
    static func dueFractions(offsets: [Duration]?, sizes: [Int], recordedReceive: Duration?) -> [Double]? {
        guard let offsets, offsets.count == sizes.count, let last = offsets.last,
              zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }) else { return nil }
        let whole = max(recordedReceive ?? last, last)
        guard whole > .zero else { return nil }
        return offsets.map { $0.timeInterval / whole.timeInterval }
    }

    /// The client bytes standing for wire bytes `offset..<nextEnd`, cut at the reset point; nil
    /// when the cut leaves nothing of this chunk.
    func nextSlice() -> (wireBytes: Int, data: Data?)? {
        let upTo = min(nextEnd, cut ?? nextEnd)
        guard upTo > offset else { return nil }
        let lower = data.count * offset / max(wireCount, 1)
        let upper = data.count * upTo / max(wireCount, 1)
        let slice = upper > lower ? data.subdata(in: data.startIndex + lower..<data.startIndex + upper) : nil
        return (upTo - offset, slice)
    }

    /// True when a reset cut the body short of its wire size (checked once every chunk went).
    var isCut: Bool {
        guard let cut else { return false }
        return cut < wireCount || offset < wireCount
    }

    private func scaled(_ duration: Duration, part: Int, of total: Int) -> Duration {
        guard total > 0 else { return duration }
        let nanos = duration.wholeNanoseconds
        return .nanoseconds(Int64((Double(nanos) * Double(part) / Double(total)).rounded()))
    }
}

/// What the response-head faults ask of the body: where it is cut and how, whether its gzip is
/// corrupt, a bandwidth limit.
struct BodyFaults: Sendable {
    /// Wire bytes delivered before the connection drops, and the failure then.
    var cut: (bytes: Int, failure: TransportFailure)?
    /// Deliver this many bytes, then fail as a body closed short of its length does.
    var truncateAfter: Int?
    var corruptGzip = false
    /// Bytes per virtual second, instead of the route's.
    var bandwidth: Int?

    /// Whether a body of `wireCount` bytes cannot arrive whole and intact (a slower one still can;
    /// a cut at or past its end cuts nothing).
    func breaksBody(of wireCount: Int) -> Bool {
        corruptGzip || (cut.map { $0.bytes < wireCount } ?? false) || (truncateAfter.map { $0 < wireCount } ?? false)
    }
}

extension Exchange {
    /// What the client is handed, and how many wire bytes it stands for.
    func clientBody(_ head: ResponseHead, _ plan: ResponsePlan) throws -> (data: Data, wireCount: Int) {
        // A response to HEAD, a 204 or a 304 has no body on the wire, whatever the plan holds (RFC 9110 §6.4.1).
        if request.method == .head || head.status == 204 || head.status == 304 { return (Data(), 0) }
        let coding = head.contentEncoding
        let decodable = ContentCoding.isDecodable(coding)
        switch (options.decodesContentEncoding && decodable, plan.bodyForm) {
        case (true, .wire) where plan.interruption != nil:
            // A body that broke off is a cut stream: the client decodes what came before the cut.
            return (ContentCoding.decodePrefix(plan.body, contentEncoding: coding), plan.body.count)
        case (true, .wire):
            return (try ContentCoding.decode(plan.body, contentEncoding: coding), plan.body.count)
        case (false, .decoded) where decodable:
            // The plan kept decoded bytes but this client expects the wire form: encode them again.
            let encoded = try ContentCoding.encode(plan.body, contentEncoding: coding) ?? plan.body
            return (encoded, encoded.count)
        case (true, .decoded) where decodable:
            // The plan kept decoded bytes (a cassette's `_bodyForm: decoded`) of a body sent
            // encoded: the client is handed them as they are, but the wire carried the encoded
            // form, and faults and bandwidth count those bytes.
            return (plan.body, Self.wireCount(ofDecoded: plan.body, head: head, coding: coding))
        default:
            return (plan.body, plan.body.count)
        }
    }

    /// How many body bytes `plan` puts on the wire, when that is known without encoding the body:
    /// none for HEAD, 204 and 304, the bytes of a body kept as sent, else the recorded length of a
    /// body kept decoded for a client that decodes (nil — unknown — for one that is sent the body
    /// encoded again, and for a length of 0 beside bytes, which ``wireCount(ofDecoded:head:coding:)``
    /// does not believe either).
    static func wireCountHint(_ plan: ResponsePlan, method: HTTPRequest.Method, decodes: Bool) -> Int? {
        if method == .head || plan.head.status == 204 || plan.head.status == 304 { return 0 }
        if plan.bodyForm == .wire { return plan.body.count }
        guard decodes, let length = plan.head.headerFields[.contentLength].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
              length > 0 || plan.body.isEmpty else { return nil }
        return length
    }

    /// How many wire bytes a body kept decoded took when sent with `coding`: the recorded
    /// `Content-Length` (what the server sent), else the size of encoding the body again. (A
    /// length of 0 for a body that has bytes is not believed: nothing would be delivered.)
    static func wireCount(ofDecoded body: Data, head: ResponseHead, coding: String?) -> Int {
        if let field = head.headerFields[.contentLength], let length = Int(field.trimmingCharacters(in: .whitespaces)),
           length > 0 || (length == 0 && body.isEmpty) {
            return length
        }
        return (try? ContentCoding.encode(body, contentEncoding: coding))?.count ?? body.count
    }

    /// Hands the final head to the client and starts its body.
    func deliverFinal(_ head: ResponseHead, _ plan: ResponsePlan, _ timeline: Timeline, _ routeOptions: RouteOptions, _ faults: BodyFaults) {
        var head = head
        var body: (data: Data, wireCount: Int)
        var decodeFailure: TransportFailure?
        do {
            body = try clientBody(head, plan)
        } catch {
            body = (Data(), plan.body.count)
            decodeFailure = .contentDecodingFailed((error as? ZlibError)?.detail ?? "\(error)")
        }
        if faults.corruptGzip {
            let corrupt = Self.corruptGzip(of: body.data)
            head.headerFields[.contentEncoding] = "gzip"
            head.headerFields[.contentLength] = String(corrupt.wire.count)
            if options.decodesContentEncoding {
                body = (Data(), corrupt.wire.count)
                decodeFailure = .contentDecodingFailed(corrupt.reason)
            } else {
                body = (corrupt.wire, corrupt.wire.count)
            }
        }
        scheduler.record("net.head", "#\(id) \(head.status)")
        guard sink.exchange(id, didReceive: head, url: request.url) else {
            handle(.clientRefused)
            return
        }
        handle(.headDelivered)
        if let decodeFailure {
            handle(.fail(decodeFailure))
            return
        }
        let wireCount = body.wireCount
        // A cut at or past the body's wire length cuts nothing: the whole body arrives, and the
        // fault did not happen (it is taken off the list of firings).
        if let cut = faults.cut, cut.bytes >= wireCount { withdrawFault(.resetAfter(bytes: cut.bytes)) }
        if let bytes = faults.truncateAfter, bytes >= wireCount { withdrawFault(.truncate(bytes: bytes)) }
        let bandwidth = faults.bandwidth ?? routeOptions.bandwidth
        var sizes = plan.chunkSizes ?? []
        var recordedPace = true
        if faults.bandwidth != nil || sizes.reduce(0, +) != wireCount || sizes.contains(where: { $0 <= 0 }) {
            recordedPace = false
            if bandwidth != nil, wireCount > 0 {
                // A throttle fault's rate comes without a chunk size: about a tenth of a second's
                // worth, so that the bytes keep arriving (and idle timers keep being reset) while
                // they flow; never more than the route's.
                let chunkSize = faults.bandwidth.map { RouteOptions.chunkSize(forBandwidth: $0, limit: routeOptions.chunkSize) } ?? routeOptions.chunkSize
                sizes = stride(from: 0, to: wireCount, by: chunkSize).map { min(chunkSize, wireCount - $0) }
            } else if let at = [faults.cut?.bytes, faults.truncateAfter].compactMap({ $0 }).min(), at > 0, at < wireCount {
                // A body with no pace of its own arrives evenly over its receive time: cut, it
                // drops when its first `at` bytes are in, not when the whole body would have been.
                sizes = [at, wireCount - at]
            } else {
                sizes = wireCount > 0 ? [wireCount] : []
            }
        }
        let receive = faults.bandwidth == nil ? timeline.receive ?? transferTime(bytes: wireCount, bandwidth: bandwidth)
            : transferTime(bytes: wireCount, bandwidth: bandwidth)
        let dueFractions = recordedPace ? BodyPlan.dueFractions(offsets: plan.chunkOffsets, sizes: sizes, recordedReceive: plan.timings?.receive) : nil
        // A reset after the whole body is no cut: the client has every byte its head announced.
        let cut = faults.cut.flatMap { $0.bytes < wireCount ? $0 : nil }
        let original = plan
        var plan = BodyPlan(data: body.data, wireCount: wireCount, sizes: sizes, receive: receive, start: now, cut: cut?.bytes)
        plan.dueFractions = dueFractions
        if let cut { plan.cutFailure = cut.failure }
        plan.brokenOff = original.interruption
        if let bytes = faults.truncateAfter, bytes < wireCount {
            plan.cut = min(bytes, plan.cut ?? bytes)
            if plan.cut == bytes { plan.cutFailure = .transferClosed(remaining: wireCount - bytes) }
        }
        self.body = plan
        deliverNextChunk()
    }

    /// Takes back a response-head fault that changed nothing.
    func withdrawFault(_ action: FaultAction) {
        guard let index = fired.lastIndex(where: { $0.point == .responseHead && $0.action == action }) else { return }
        withdrawFiring(at: index)
    }

    /// As the exchange ends, takes back the faults whose effect it never reached: a fault acting
    /// on the response (a status, corrupt gzip, a throttle) when no head came (a timeout or a
    /// cancel came first), a cut (a reset or a truncation) when the body ended elsewhere — at
    /// another fault's earlier cut, a timeout, a cancel — and a duplicate completion when the
    /// exchange did not complete. Delays, stalls and failures act when they are decided, and the
    /// faults of redirect hops already followed acted on those hops.
    func withdrawUnreachedFaults(completed: Bool) {
        for index in fired.indices.reversed() where index >= settledFirings {
            let reached: Bool
            switch fired[index].action {
            case .overrideStatus, .overrideResponse, .corruptGzip, .throttle: reached = headArrived
            case let .resetAfter(bytes), let .truncate(bytes): reached = reachedCut == bytes
            case .duplicateCompletion: reached = completed
            default: reached = true
            }
            if !reached { withdrawFiring(at: index) }
        }
    }

    private func withdrawFiring(at index: Int) {
        let firing = fired.remove(at: index)
        network.faultHadNoEffect(firing.action, at: firing.point, exchange: id)
    }

    /// `data` gzip-compressed, then damaged after the gzip header (deterministically), and the
    /// error zlib gives for it — what a client inflating it meets.
    static func corruptGzip(of data: Data) -> (wire: Data, reason: String) {
        var wire = (try? Zlib.compress(data.isEmpty ? Data("{}".utf8) : data, format: .gzip)) ?? Data()
        let start = wire.startIndex + min(10, wire.count)
        for index in stride(from: start, to: wire.endIndex - min(8, wire.count), by: 1) {
            wire[index] ^= 0x5A
        }
        do {
            _ = try Zlib.decompress(wire, format: .gzip)
            return (wire, "incorrect data check")
        } catch {
            return (wire, (error as? ZlibError)?.detail ?? "invalid compressed data")
        }
    }

    /// Delivers the chunks that are due now, one after another (a loop, not a recursion: a
    /// replayed stream of thousands of pieces may be due at once), schedules the next one that is
    /// not, or completes once every chunk went — at the recorded end of the body when the chunks
    /// keep a recording's pace (its last piece may come before the body ended).
    private func deliverNextChunk() {
        while let plan = body, !plan.isComplete {
            let due = plan.nextDue()
            guard due <= now else {
                at(due, "net.data", .chunk) { [self] in if processChunk() { deliverNextChunk() } }
                return
            }
            guard processChunk() else { return }
        }
        guard let plan = body, plan.dueFractions != nil, !plan.isCut else {
            completeTransfer()
            return
        }
        at(plan.start.advanced(by: plan.receive).advanced(by: plan.shift), "net.data-end", .chunk) { [self] in completeTransfer() }
    }

    /// The next chunk's fault point, then its bytes; true when the next chunk may follow now.
    private func processChunk() -> Bool {
        guard let plan = body, !plan.isComplete else { return false }
        let (action, decided) = fault(at: .bodyChunk(offset: plan.offset, size: plan.sizes[plan.next]))
        switch action {
        case .proceed:
            if case let .resetAfter(bytes) = decided {
                let earlier = body?.cut ?? bytes
                body?.cut = min(bytes, earlier)
            }
            return sendChunk()
        case let .delay(duration):
            body?.shift += duration
            at(now.advanced(by: duration), "net.data", .chunk) { [self] in if sendChunk() { deliverNextChunk() } }
            return false
        default:
            return false   // failed or stalled
        }
    }

    /// Hands the client the bytes of the next chunk; true when the next chunk (or the completion)
    /// may follow, false when the transfer ended here (the client refused the data, or the reset).
    private func sendChunk() -> Bool {
        guard var plan = body else { return false }
        if let (wireBytes, slice) = plan.nextSlice() {
            current.bytesReceived += wireBytes
            resetIdleTimer()
            if let slice, !sink.exchange(id, didReceive: slice) {
                handle(.clientRefused)
            }
        }
        plan.offset = plan.nextEnd
        plan.next += 1
        body = plan
        guard lifecycle.state == .receiving else { return false }   // the client refused the data
        if let cut = plan.cut, plan.offset >= cut {
            reachedCut = cut
            handle(.fail(plan.cutFailure))
            return false
        }
        return true
    }

    private func completeTransfer() {
        if let plan = body, plan.isCut {
            reachedCut = plan.cut
            handle(.fail(plan.cutFailure))
            return
        }
        if let failure = body?.brokenOff {
            // The recording broke off here: every byte it kept went, then the connection failed.
            handle(.fail(failure))
            return
        }
        handle(.bodyDelivered)
        let (action, decided) = fault(at: .completion)
        if decided == .duplicateCompletion { duplicatesCompletion = true }
        switch action {
        case .proceed:
            handle(.complete)
        case let .delay(duration):
            at(now.advanced(by: duration), "net.complete", .completion) { [self] in handle(.complete) }
        default:
            break   // failed or stalled
        }
    }
}
