import Foundation
import TapedeckHTTP
import TapedeckScheduling

/// One exchange on the simulated network: transactions (the request, then one per followed
/// redirect), each scheduled on virtual time, with idle and resource timeouts and fault points.
/// Lives on the network's queue.
///
/// Its states and transitions are ``ExchangeLifecycle`` (a value, one `switch`); this class does
/// what the lifecycle's actions say: schedule steps, ask the fault hook, route, talk to the sink.
/// The steps themselves are in `Exchange+Transactions.swift` (connecting, routing, deferred
/// answers, the head, redirects) and `Exchange+Body.swift` (the body, cut into chunks).
final class Exchange: @unchecked Sendable {
    // @unchecked Sendable: touched only by jobs on the network queue (the scheduler's owner thread).

    let id: Int
    let original: RequestSnapshot
    let options: ExchangeOptions
    unowned let network: SimulatedNetwork
    let sink: any ExchangeSink
    let startTime: VirtualInstant

    var lifecycle = ExchangeLifecycle()
    var request: RequestSnapshot
    var transactionIndex = 0
    /// The credentials this exchange sent after a `401`'s Basic challenge (each a transaction).
    var challengesAnswered = 0
    var transactions: [TransactionMetrics] = []
    var current: TransactionMetrics
    var lastStatus: Int?
    /// The final response's body on its way to the client.
    var body: BodyPlan?
    /// Which attempt of its request this exchange is (see ``FaultContext/attempt``).
    let attempt: Int
    /// The faults that fired, in order.
    var fired: [FiredFault] = []
    /// A fault asked for the completion callback twice.
    var duplicatesCompletion = false
    /// The current transaction's response head came (its due time): the faults on it acted.
    var headArrived = false
    /// Firings of the redirect hops already followed: they acted (``fired`` before this index).
    var settledFirings = 0
    /// The wire offset at which a cut (a reset or a truncation) ended the body, once one did.
    var reachedCut: Int?
    private var scheduled: [ScheduledWork] = []
    private var idleTimer: ScheduledWork?
    private var resourceTimer: ScheduledWork?
    private var pending: PendingWork?
    /// A deferred answer being waited for: its expectation, who goes first, how to cancel its work.
    var pendingDeferred: (ExternalExpectation, OnceFlag, DeferredReply.Cancel)?

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
        self.attempt = network.nextAttempt(of: request, tag: options.tag)
    }

    var scheduler: SimulatedScheduler { network.scheduler }
    var now: VirtualInstant { scheduler.now }

    /// Whether the exchange ended (finished or abandoned).
    var ended: Bool { lifecycle.isOver }

    // MARK: the lifecycle's events

    /// Hands `event` to the lifecycle and returns its action; an illegal one is reported to the
    /// network (a bug to fix, never silently ignored) and treated as "nothing to do".
    @discardableResult
    func handle(_ event: ExchangeLifecycle.Event) -> ExchangeLifecycle.Action {
        let action = lifecycle.handle(event)
        switch action {
        case let .illegal(what):
            network.reportIllegalTransition("exchange #\(id): \(what)")
            return .ignore
        case let .finish(failure):
            finish(failure)
        case .halt:
            cancelScheduledWork()
        default:
            break
        }
        return action
    }

    /// Asks the fault hook at `point` and hands its decision to the lifecycle. Returns the
    /// lifecycle's action and the hook's own action (for what a fault adjusts: status, reset).
    func fault(at point: FaultPoint, head: ResponseHead? = nil, bodyBytes: Int? = nil) -> (ExchangeLifecycle.Action, FaultAction) {
        let decided = network.fault(at: point, context: context(head: head, bodyBytes: bodyBytes))
        for part in decided.parts { fired.append(FiredFault(point: point, action: part, time: now)) }
        return (handle(.fault(point, decided)), decided)
    }

    // MARK: lifecycle

    func start() {
        handle(.start)
        scheduler.record("net.start", "#\(id) \(request)")
        pending = scheduler.beginPending("exchange #\(id) \(request)")
        if let limit = options.resourceTimeout {
            resourceTimer = network.queue.asyncAfter(delay: limit, named: "net.resource-timeout") { [self] in
                handle(.timedOut(.urlError(.timedOut, message: "tapedeck: timed out (the resource timeout, \(Self.seconds(limit)), passed)")))
            }
        }
        resetIdleTimer()
        beginTransaction()
    }

    /// The client cancelled or suspended: end without another sink call. Returns the metrics so far
    /// and how they should reach the client relative to its cancellation callback.
    func abandon() -> AbandonedExchange? {
        guard handle(.abandon) == .close else { return nil }
        cancelScheduledWork()
        withdrawUnreachedFaults(completed: false)
        let metrics = closeMetrics()
        let delivery = chooseMetricsDelivery()
        scheduler.record("net.abandon", "#\(id) metrics \(delivery.rawValue)")
        network.exchangeEnded(self, record: ExchangeRecord(
            id: id, request: original, outcome: .cancelled, metrics: metrics, metricsDelivery: delivery,
            tag: options.tag, attempt: attempt, faults: fired))
        pending?.resolve()
        return AbandonedExchange(metrics: metrics, delivery: delivery)
    }

    /// The fault hook's choice at `metricsDelivery`, else before the completion under the FIFO
    /// seed, else a seeded coin.
    private func chooseMetricsDelivery() -> MetricsDelivery {
        if case let .deliverMetrics(chosen) = network.fault(at: .metricsDelivery, context: context()) {
            fired.append(FiredFault(point: .metricsDelivery, action: .deliverMetrics(chosen), time: now))
            return chosen
        }
        let drawn: MetricsDelivery = scheduler.seed == SimulatedScheduler.fifoSeed ? .beforeCompletion
            : network.metricsOrderRandom.chance(1, in: 2) ? .beforeCompletion : .afterCompletion
        return network.choiceHook?.metricsDelivery(drawn, context: context()) ?? drawn
    }

    /// Ends the exchange (the lifecycle is already `finished`) and tells the sink.
    private func finish(_ failure: TransportFailure?) {
        cancelScheduledWork()
        withdrawUnreachedFaults(completed: failure == nil)
        let metrics = closeMetrics()
        let delivery = chooseMetricsDelivery()
        scheduler.record("net.finish", "#\(id) \(failure?.traceText ?? "ok") metrics \(delivery.rawValue)")
        sink.exchange(id, didFinish: ExchangeEnd(
            failure: failure, metrics: metrics, delivery: delivery, duplicatesCompletion: duplicatesCompletion && failure == nil))
        let outcome: ExchangeRecord.Outcome = failure.map { .failure($0) } ?? .response(lastStatus ?? 0)
        network.exchangeEnded(self, record: ExchangeRecord(
            id: id, request: original, outcome: outcome, metrics: metrics, metricsDelivery: delivery,
            tag: options.tag, attempt: attempt, faults: fired))
        pending?.resolve()
    }

    private func cancelScheduledWork() {
        for work in scheduled { work.cancel() }
        scheduled.removeAll()
        idleTimer?.cancel()
        resourceTimer?.cancel()
        if let (ticket, gate, cancel) = pendingDeferred, gate.claim() {
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

    func context(head: ResponseHead? = nil, bodyBytes: Int? = nil) -> FaultContext {
        FaultContext(exchange: id, transaction: transactionIndex, request: request, attempt: attempt, tag: options.tag, head: head, time: now,
                     bodyBytes: bodyBytes)
    }

    // MARK: scheduling helpers

    /// Runs `body` at `instant` — inline when it is now, else as a job that first checks with the
    /// lifecycle that `step` is still due.
    func at(_ instant: VirtualInstant, _ name: String, _ step: ExchangeLifecycle.Step, _ body: @escaping @Sendable () -> Void) {
        if instant <= now {
            body()
            return
        }
        let work = network.queue.asyncAfter(deadline: instant, named: name) { [self] in
            guard handle(.due(step)) == .proceed else { return }
            body()
        }
        scheduled.append(work)
    }

    func resetIdleTimer() {
        idleTimer?.cancel()
        guard let limit = options.idleTimeout else { return }
        idleTimer = network.queue.asyncAfter(delay: limit, named: "net.idle-timeout") { [self] in
            handle(.timedOut(.urlError(.timedOut, message: "tapedeck: timed out (no data for \(Self.seconds(limit)): the request timeout)")))
        }
    }

    /// `2s`, `0.5s`: a timeout as the failure names it (as the trace writes instants).
    private static func seconds(_ duration: Duration) -> String {
        VirtualInstant(nanoseconds: duration.wholeNanoseconds).description
    }
}
