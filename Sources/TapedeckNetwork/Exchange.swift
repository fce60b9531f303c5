import Foundation
import Synchronization
import TapedeckHTTP
import TapedeckScheduling

/// One exchange on the simulated network: transactions (the request, then one per followed
/// redirect), each scheduled on virtual time, with idle and resource timeouts and fault points.
/// Lives on the network's queue.
final class Exchange: @unchecked Sendable {
    // @unchecked Sendable: touched only by jobs on the network queue (the scheduler's owner thread).

    let id: Int
    let original: RequestSnapshot
    let options: ExchangeOptions
    unowned let network: SimulatedNetwork
    let sink: any ExchangeSink
    let startTime: VirtualInstant

    private var request: RequestSnapshot
    private var transactionIndex = 0
    private var transactions: [TransactionMetrics] = []
    private var current: TransactionMetrics
    private var scheduled: [ScheduledWork] = []
    private var idleTimer: ScheduledWork?
    private var resourceTimer: ScheduledWork?
    private var pending: PendingWork?
    /// A deferred answer being waited for: its expectation, who goes first, how to cancel its work.
    private var pendingDeferred: (ExternalExpectation, OnceGate, DeferredReply.Cancel)?
    private var lastStatus: Int?
    private(set) var ended = false
    /// The client stopped taking callbacks; waiting for the bridge to abandon the exchange.
    private var halted = false

    static let maximumRedirects = 16

    init(id: Int, request: RequestSnapshot, options: ExchangeOptions, network: SimulatedNetwork, sink: any ExchangeSink) {
        self.id = id
        self.original = request
        self.request = request
        self.options = options
        self.network = network
        self.sink = sink
        self.startTime = network.scheduler.now
        self.current = TransactionMetrics(method: request.method, url: request.url, fetchStart: startTime)
    }

    private var scheduler: SimulatedScheduler { network.scheduler }
    private var now: VirtualInstant { scheduler.now }

    // MARK: lifecycle

    func start() {
        scheduler.record("net.start", "#\(id) \(request)")
        pending = scheduler.beginPending("exchange #\(id) \(request)")
        if let limit = options.resourceTimeout {
            resourceTimer = network.queue.asyncAfter(delay: limit, named: "net.resource-timeout") { [self] in
                if !ended && !halted { finish(.timedOut) }
            }
        }
        resetIdleTimer()
        beginTransaction()
    }

    /// The client cancelled or suspended: end without another sink call. Returns the metrics so far
    /// and how they should reach the client relative to its cancellation callback.
    func abandon() -> AbandonedExchange? {
        guard !ended else { return nil }
        stopEverything()
        let metrics = closeMetrics()
        let delivery = chooseMetricsDelivery()
        scheduler.record("net.abandon", "#\(id) metrics \(delivery.rawValue)")
        network.exchangeEnded(self, record: ExchangeRecord(
            id: id, request: original, outcome: .cancelled, metrics: metrics, metricsDelivery: delivery))
        pending?.resolve()
        return AbandonedExchange(metrics: metrics, delivery: delivery)
    }

    /// The fault hook's choice at `metricsDelivery`, else before the completion under the FIFO
    /// seed, else a seeded coin.
    private func chooseMetricsDelivery() -> MetricsDelivery {
        if case let .deliverMetrics(chosen) = network.fault(at: .metricsDelivery, context: context()) {
            return chosen
        }
        if scheduler.seed == SimulatedScheduler.fifoSeed { return .beforeCompletion }
        return network.metricsOrderRandom.chance(1, in: 2) ? .beforeCompletion : .afterCompletion
    }

    private func finish(_ failure: TransportFailure?) {
        guard !ended else { return }
        stopEverything()
        let metrics = closeMetrics()
        let delivery = chooseMetricsDelivery()
        scheduler.record("net.finish", "#\(id) \(failure.map(String.init(describing:)) ?? "ok") metrics \(delivery.rawValue)")
        sink.exchange(id, didFinishWith: failure, metrics: metrics, delivery: delivery)
        let outcome: ExchangeRecord.Outcome = failure.map { .failure($0) } ?? .response(lastStatus ?? 0)
        network.exchangeEnded(self, record: ExchangeRecord(
            id: id, request: original, outcome: outcome, metrics: metrics, metricsDelivery: delivery))
        pending?.resolve()
    }

    private func stopEverything() {
        ended = true
        cancelScheduledWork()
    }

    /// The client can no longer take callbacks: stop scheduling, keep the exchange until abandoned.
    private func halt() {
        halted = true
        cancelScheduledWork()
    }

    private func cancelScheduledWork() {
        for work in scheduled { work.cancel() }
        scheduled.removeAll()
        idleTimer?.cancel()
        resourceTimer?.cancel()
        if let (ticket, gate, cancel) = pendingDeferred, gate.pass() {
            ticket.cancel()
            cancel()
        }
        pendingDeferred = nil
    }

    private func closeMetrics() -> TransferMetrics {
        if current.responseStart != nil && current.responseEnd == nil { current.responseEnd = now }
        transactions.append(current)
        return TransferMetrics(transactions: transactions, taskStart: startTime, taskEnd: now)
    }

    private func context(head: ResponseHead? = nil) -> FaultContext {
        FaultContext(exchange: id, transaction: transactionIndex, request: request, head: head, time: now)
    }

    // MARK: scheduling helpers

    /// Runs `body` at `instant` (inline when it is now), unless the exchange ended or halted meanwhile.
    private func at(_ instant: VirtualInstant, _ name: String, _ body: @escaping @Sendable () -> Void) {
        if instant <= now {
            body()
            return
        }
        let work = network.queue.asyncAfter(deadline: instant, named: name) { [self] in
            guard !ended && !halted else { return }
            body()
        }
        scheduled.append(work)
    }

    private func resetIdleTimer() {
        idleTimer?.cancel()
        guard let limit = options.idleTimeout else { return }
        idleTimer = network.queue.asyncAfter(delay: limit, named: "net.idle-timeout") { [self] in
            if !ended && !halted { finish(.timedOut) }
        }
    }

    private func transferTime(bytes: Int, bandwidth: Int?) -> Duration {
        guard let bandwidth, bytes > 0 else { return .zero }
        return .nanoseconds(Int64((Double(bytes) * 1e9 / Double(bandwidth)).rounded()))
    }

    private func wait(for latency: Latency) -> Duration {
        switch latency {
        case .none, .recorded:
            return .zero
        case let .fixed(duration):
            return duration
        case let .jittered(base, jitter):
            let range = jitter.wholeNanoseconds
            let draw = range > 0 ? Int64(network.latencyRandom.next(below: Int(range) + 1)) : 0
            return base + .nanoseconds(draw)
        }
    }

    // MARK: transactions

    private func beginTransaction() {
        current = TransactionMetrics(method: request.method, url: request.url, fetchStart: now)
        current.bytesSent = request.body?.count ?? 0
        passFault(.beforeConnect, "net.connect") { [self] in connect() }
    }

    /// A fault point with nothing of its own to adjust: a failure ends the exchange, a stall leaves
    /// it hanging, a delay runs `next` later, anything else runs it now.
    private func passFault(_ point: FaultPoint, _ name: String, then next: @escaping @Sendable () -> Void) {
        switch network.fault(at: point, context: context()) {
        case let .fail(failure):
            finish(failure)
        case .stall:
            return
        case let .delay(duration):
            at(now.advanced(by: duration), name, next)
        default:
            next()
        }
    }

    private func connect() {
        let responderContext = ResponderContext(exchange: id, transaction: transactionIndex, time: now)
        let (route, reply) = network.routeFor(request, context: responderContext)
        take(reply, route: route)
    }

    private func take(_ reply: Reply, route: Route) {
        switch reply {
        case let .failure(failure, after):
            at(now.advanced(by: after), "net.fail") { [self] in finish(failure) }
        case .stall:
            return
        case let .noMatch(reason):
            // Only a deferred reply gets here (routing turns a first-hand "no match" into a failure).
            finish(.noRoute("\(request): \(reason)"))
        case let .response(plan):
            schedule(plan, options: route.options)
        case let .deferred(deferred):
            awaitDeferred(deferred, route: route)
        }
    }

    /// Expects the deferred answer before its work starts, so its number (and the order arrivals
    /// are taken in) follows the simulation, not the threads. Exactly one of "it arrives" and "the
    /// exchange ended first: withdraw the wait, cancel the work" happens.
    private func awaitDeferred(_ deferred: DeferredReply, route: Route) {
        let ticket = scheduler.expectExternal("\(deferred.label) #\(id)", patience: deferred.patience)
        let gate = OnceGate()
        let transaction = transactionIndex
        let queue = network.queue   // not `network` itself on another thread: it may be gone by then
        let cancel = deferred.start { [self] reply in
            guard gate.pass() else { return }
            ticket.arrive(on: queue, named: "net.deferred-reply") { [self] in
                pendingDeferred = nil
                guard !ended && !halted && transaction == transactionIndex else { return }
                if case .deferred = reply {
                    finish(.badServerResponse)
                    return
                }
                take(reply, route: route)
            }
        }
        if !gate.isPassed { pendingDeferred = (ticket, gate, cancel) }
    }

    private struct Timeline {
        var requestStart: VirtualInstant
        var requestEnd: VirtualInstant
        var responseStart: VirtualInstant
        var receive: Duration?
    }

    private func schedule(_ plan: ResponsePlan, options routeOptions: RouteOptions) {
        var timings: ExchangeTimings?
        if case let .recorded(scale) = routeOptions.latency, let recorded = plan.timings {
            timings = recorded.scaled(by: scale)
        }
        let start = now
        let connect = timings?.connect ?? routeOptions.connect
        if let connect {
            current.connectStart = start
            current.connectEnd = start.advanced(by: connect)
        }
        let requestStart = start.advanced(by: connect ?? .zero)
        let requestEnd = requestStart.advanced(by: timings?.send ?? transferTime(bytes: current.bytesSent, bandwidth: routeOptions.bandwidth))
        let responseStart = requestEnd.advanced(by: timings?.wait ?? wait(for: routeOptions.latency))
        let timeline = Timeline(requestStart: requestStart, requestEnd: requestEnd, responseStart: responseStart, receive: timings?.receive)
        at(responseStart, "net.head") { [self] in
            deliverHead(plan, timeline: timeline, options: routeOptions)
        }
    }

    private func deliverHead(_ plan: ResponsePlan, timeline: Timeline, options routeOptions: RouteOptions) {
        current.requestStart = timeline.requestStart
        current.requestEnd = timeline.requestEnd
        current.responseStart = now
        var head = plan.head
        var resetAfter: Int?
        switch network.fault(at: .responseHead, context: context(head: head)) {
        case let .fail(failure):
            finish(failure)
            return
        case .stall:
            return
        case let .delay(duration):
            var delayed = timeline
            delayed.responseStart = now.advanced(by: duration)
            at(delayed.responseStart, "net.head") { [self, head, delayed] in
                proceedWithHead(head, plan, delayed, routeOptions, resetAfter: nil)
            }
            return
        case let .overrideStatus(status):
            head.status = status
        case let .resetAfter(bytes):
            resetAfter = bytes
        default:
            break
        }
        proceedWithHead(head, plan, timeline, routeOptions, resetAfter: resetAfter)
    }

    private func proceedWithHead(_ head: ResponseHead, _ plan: ResponsePlan, _ timeline: Timeline, _ routeOptions: RouteOptions, resetAfter: Int?) {
        current.responseStart = now
        current.status = head.status
        lastStatus = head.status
        resetIdleTimer()
        if head.isRedirect {
            guard transactionIndex < Self.maximumRedirects else {
                finish(.urlError(.httpTooManyRedirects))
                return
            }
            if let proposed = Self.redirectRequest(from: request, head: head) {
                askRedirect(head, proposed: proposed, plan: plan, timeline: timeline, options: routeOptions)
                return
            }
        }
        deliverFinal(head, plan, timeline, routeOptions, resetAfter: resetAfter)
    }

    // MARK: redirects

    /// The request URLSession would send for a redirect: `Location` resolved against the current
    /// URL; 303 (and 301/302 after a POST) switch to GET without a body.
    static func redirectRequest(from request: RequestSnapshot, head: ResponseHead) -> RequestSnapshot? {
        guard let location = head.headerFields[.location],
              let url = URL(string: location, relativeTo: request.url)?.absoluteURL else { return nil }
        var next = request
        next.url = url
        let toGET = head.status == 303
            ? request.method != .head
            : (head.status == 301 || head.status == 302) && request.method == .post
        if toGET {
            next.method = .get
            next.body = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        return next
    }

    private func askRedirect(_ head: ResponseHead, proposed: RequestSnapshot, plan: ResponsePlan, timeline: Timeline, options routeOptions: RouteOptions) {
        scheduler.record("net.redirect", "#\(id) \(head.status) → \(proposed.url.absoluteString)")
        let queue = network.queue
        sink.exchange(id, willRedirect: head, from: request.url, to: proposed) { [self] decision in
            queue.async(named: "net.redirect-decision") { [self] in
                guard !ended && !halted else { return }
                switch decision {
                case let .follow(next):
                    current.responseEnd = now
                    current.bytesReceived = plan.body.count
                    transactions.append(current)
                    transactionIndex += 1
                    request = next
                    beginTransaction()
                case .stop:
                    deliverFinal(head, plan, timeline, routeOptions, resetAfter: nil)
                }
            }
        }
    }

    // MARK: body

    /// What the client is handed, and how many wire bytes it stands for.
    private func clientBody(_ head: ResponseHead, _ plan: ResponsePlan) throws -> (data: Data, wireCount: Int) {
        // A response to HEAD, a 204 or a 304 has no body on the wire, whatever the plan holds (RFC 9110 §6.4.1).
        if request.method == .head || head.status == 204 || head.status == 304 { return (Data(), 0) }
        let coding = head.contentEncoding
        let decodable = ContentCoding.isDecodable(coding)
        switch (options.decodesContentEncoding && decodable, plan.bodyForm) {
        case (true, .wire):
            return (try ContentCoding.decode(plan.body, contentEncoding: coding), plan.body.count)
        case (false, .decoded) where decodable:
            // The plan kept decoded bytes but this client expects the wire form: encode them again.
            let encoded = try Zlib.compress(plan.body, format: coding == "deflate" ? .zlib : .gzip)
            return (encoded, encoded.count)
        default:
            return (plan.body, plan.body.count)
        }
    }

    private func deliverFinal(_ head: ResponseHead, _ plan: ResponsePlan, _ timeline: Timeline, _ routeOptions: RouteOptions, resetAfter: Int?) {
        let body: (data: Data, wireCount: Int)
        let decodeFailure: Bool
        do {
            body = try clientBody(head, plan)
            decodeFailure = false
        } catch {
            body = (Data(), plan.body.count)
            decodeFailure = true
        }
        scheduler.record("net.head", "#\(id) \(head.status)")
        guard sink.exchange(id, didReceive: head, url: request.url) else {
            halt()
            return
        }
        if decodeFailure {
            finish(.cannotDecodeContentData)
            return
        }
        let wireCount = body.wireCount
        var sizes = plan.chunkSizes ?? []
        if sizes.reduce(0, +) != wireCount || sizes.contains(where: { $0 <= 0 }) {
            if let _ = routeOptions.bandwidth, wireCount > 0 {
                sizes = stride(from: 0, to: wireCount, by: routeOptions.chunkSize).map { min(routeOptions.chunkSize, wireCount - $0) }
            } else {
                sizes = wireCount > 0 ? [wireCount] : []
            }
        }
        let receive = timeline.receive ?? transferTime(bytes: wireCount, bandwidth: routeOptions.bandwidth)
        let plannedStart = now
        deliverChunk(0, sizes: sizes, body: body.data, wireCount: wireCount, offset: 0, receive: receive,
                     start: plannedStart, shift: .zero, resetAfter: resetAfter)
    }

    /// Delivers chunk `index` (each chunk schedules the next, so a delayed chunk delays the rest).
    private func deliverChunk(
        _ index: Int, sizes: [Int], body: Data, wireCount: Int, offset: Int, receive: Duration,
        start: VirtualInstant, shift: Duration, resetAfter: Int?
    ) {
        guard index < sizes.count else {
            completeTransfer(resetAfter: resetAfter, delivered: offset, wireCount: wireCount, shift: shift)
            return
        }
        let end = offset + sizes[index]
        let due = start.advanced(by: scaled(receive, part: end, of: wireCount)).advanced(by: shift)
        at(due, "net.data") { [self] in
            var limit = resetAfter
            var shift = shift
            switch network.fault(at: .bodyChunk(offset: offset, size: sizes[index]), context: context()) {
            case let .fail(failure):
                finish(failure)
                return
            case .stall:
                return
            case let .delay(duration):
                shift += duration
                let resumed = now.advanced(by: duration)
                at(resumed, "net.data") { [self, limit, shift] in
                    sendBytes(offset, end, limit: limit, body: body, wireCount: wireCount)
                    continueAfterChunk(index, sizes: sizes, body: body, wireCount: wireCount, end: end, receive: receive,
                                       start: start, shift: shift, resetAfter: limit)
                }
                return
            case let .resetAfter(bytes):
                limit = min(bytes, limit ?? bytes)
            default:
                break
            }
            sendBytes(offset, end, limit: limit, body: body, wireCount: wireCount)
            continueAfterChunk(index, sizes: sizes, body: body, wireCount: wireCount, end: end, receive: receive,
                               start: start, shift: shift, resetAfter: limit)
        }
    }

    private func continueAfterChunk(
        _ index: Int, sizes: [Int], body: Data, wireCount: Int, end: Int, receive: Duration,
        start: VirtualInstant, shift: Duration, resetAfter: Int?
    ) {
        guard !ended && !halted else { return }
        if let resetAfter, end >= resetAfter {
            finish(.networkConnectionLost)
            return
        }
        deliverChunk(index + 1, sizes: sizes, body: body, wireCount: wireCount, offset: end, receive: receive,
                     start: start, shift: shift, resetAfter: resetAfter)
    }

    /// Hands the client the decoded bytes standing for wire bytes `from..<to` (cut at `limit`).
    private func sendBytes(_ from: Int, _ to: Int, limit: Int?, body: Data, wireCount: Int) {
        let cut = min(to, limit ?? to)
        guard cut > from else { return }
        let lower = body.count * from / max(wireCount, 1)
        let upper = body.count * cut / max(wireCount, 1)
        current.bytesReceived += cut - from
        resetIdleTimer()
        guard upper > lower else { return }
        let slice = body.subdata(in: body.startIndex + lower..<body.startIndex + upper)
        if !sink.exchange(id, didReceive: slice) {
            halt()
        }
    }

    private func completeTransfer(resetAfter: Int?, delivered: Int, wireCount: Int, shift: Duration) {
        if let resetAfter, resetAfter < wireCount || delivered < wireCount {
            finish(.networkConnectionLost)
            return
        }
        passFault(.completion, "net.complete") { [self] in finish(nil) }
    }

    private func scaled(_ duration: Duration, part: Int, of total: Int) -> Duration {
        guard total > 0 else { return duration }
        let nanos = duration.wholeNanoseconds
        return .nanoseconds(Int64((Double(nanos) * Double(part) / Double(total)).rounded()))
    }
}

/// Lets exactly one of two racing parties through (a deferred answer arriving on another thread,
/// the exchange ending on the network queue).
private final class OnceGate: Sendable {
    private let open = Mutex(true)

    /// True for the first caller only.
    func pass() -> Bool {
        open.withLock { open in
            defer { open = false }
            return open
        }
    }

    var isPassed: Bool { open.withLock { !$0 } }
}
