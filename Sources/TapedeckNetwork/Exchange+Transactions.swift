import Foundation
import HTTPTypes
import TapedeckHTTP
import TapedeckScheduling

// A transaction: connecting, routing, waiting for a deferred (live) answer, the response head, and
// the redirect the head may ask for.

extension Exchange {
    /// When the phases of a transaction happen.
    struct Timeline {
        var requestStart: VirtualInstant
        var requestEnd: VirtualInstant
        var responseStart: VirtualInstant
        var receive: Duration?
    }

    func beginTransaction() {
        current = TransactionMetrics(method: request.method, url: request.url, fetchStart: now)
        current.bytesSent = request.body?.count ?? 0
        let (action, decided) = fault(at: .beforeConnect)
        switch action {
        case .proceed:
            connect()
        case let .delay(duration):
            // A delay's companions (a combined action) act once it is over.
            let rest = decided.afterDelays
            at(now.advanced(by: duration), "net.connect", .connect) { [self] in
                if rest == .proceed || handle(.fault(.beforeConnect, rest)) == .proceed { connect() }
            }
        default:
            break   // failed or stalled
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
            at(now.advanced(by: after), "net.fail", .routedFailure) { [self] in handle(.fail(failure)) }
        case .stall:
            handle(.replyStalled)
        case let .noMatch(reason):
            // Only a deferred reply gets here (routing turns a first-hand "no match" into a failure).
            handle(.fail(.noRoute("\(request): \(reason)")))
        case let .response(plan):
            handle(.headScheduled)
            schedule(plan, options: route.options)
        case let .deferred(deferred):
            handle(.replyDeferred)
            awaitDeferred(deferred, route: route)
        }
    }

    /// Expects the deferred answer before its work starts, so its number (and the order arrivals
    /// are taken in) follows the simulation, not the threads. Exactly one of "it arrives" and "the
    /// exchange ended first: withdraw the wait, cancel the work" happens.
    private func awaitDeferred(_ deferred: DeferredReply, route: Route) {
        let ticket = scheduler.expectExternal("\(deferred.label) #\(id)", patience: deferred.patience)
        let gate = OnceFlag()
        let transaction = transactionIndex
        let queue = network.queue   // not `network` itself on another thread: it may be gone by then
        let cancel = deferred.start { [self] reply in
            guard gate.claim() else { return }
            ticket.arrive(on: queue, named: "net.deferred-reply") { [self] in
                pendingDeferred = nil
                guard handle(.due(.deferredReply(transaction: transaction))) == .proceed else { return }
                if case .deferred = reply {
                    handle(.fail(.badServerResponse))
                    return
                }
                take(reply, route: route)
            }
        }
        if !gate.isClaimed { pendingDeferred = (ticket, gate, cancel) }
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
        at(responseStart, "net.head", .head) { [self] in
            deliverHead(plan, timeline: timeline, options: routeOptions)
        }
    }

    func transferTime(bytes: Int, bandwidth: Int?) -> Duration {
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
            var draw = range > 0 ? Int64(network.latencyRandom.next(below: Int(range) + 1)) : 0
            if let hook = network.choiceHook { draw = min(max(0, hook.jitter(draw, upTo: range, context: context())), range) }
            return base + .nanoseconds(draw)
        }
    }

    // MARK: the head

    private func deliverHead(_ plan: ResponsePlan, timeline: Timeline, options routeOptions: RouteOptions) {
        current.requestStart = timeline.requestStart
        current.requestEnd = timeline.requestEnd
        current.responseStart = now
        let (action, decided) = fault(at: .responseHead, head: plan.head, bodyBytes: Self.wireCountHint(plan, method: request.method,
                                                                                                           decodes: options.decodesContentEncoding))
        switch action {
        case .proceed:
            applyHeadFaults(decided, plan, timeline, routeOptions)
        case let .delay(duration):
            var delayed = timeline
            delayed.responseStart = now.advanced(by: duration)
            // A delay's companions (a combined action: a slow 503) act when the head arrives.
            let rest = decided.afterDelays
            at(delayed.responseStart, "net.head", .head) { [self, delayed] in
                guard rest == .proceed || handle(.fault(.responseHead, rest)) == .proceed else { return }   // failed or stalled
                applyHeadFaults(rest, plan, delayed, routeOptions)
            }
        default:
            break   // failed or stalled
        }
    }

    /// The head with what `decided` changes in it (status, fields), and the faults it puts on the
    /// body (a cut, a truncation, corrupt gzip, a pace).
    private func applyHeadFaults(_ decided: FaultAction, _ plan: ResponsePlan, _ timeline: Timeline, _ routeOptions: RouteOptions) {
        var head = plan.head
        var faults = BodyFaults()
        for part in decided.parts {
            switch part {
            case let .overrideStatus(status):
                head.status = status
            case let .overrideResponse(status, headers):
                head.status = status
                for name in headers.keys.sorted() {
                    guard let field = HTTPField.Name(name) else { continue }
                    head.headerFields[field] = headers[name]
                }
            case let .resetAfter(bytes):
                faults.cut = (bytes, .networkConnectionLost)
            case let .truncate(bytes):
                faults.truncateAfter = bytes
            case .corruptGzip:
                faults.corruptGzip = true
            case let .throttle(rate):
                faults.bandwidth = max(1, rate)
            default:
                break
            }
        }
        proceedWithHead(head, plan, timeline, routeOptions, faults)
    }

    private func proceedWithHead(_ head: ResponseHead, _ plan: ResponsePlan, _ timeline: Timeline, _ routeOptions: RouteOptions, _ faults: BodyFaults) {
        headArrived = true
        current.responseStart = now
        current.status = head.status
        lastStatus = head.status
        resetIdleTimer()
        // A redirect is followed once its body has been read, as libcurl reads it: a fault that
        // breaks that body (a reset, a truncation, corrupt gzip) fails the transfer there instead.
        if head.isRedirect, let proposed = Self.redirectRequest(from: request, head: head) {
            let wireCount = (try? clientBody(head, plan))?.wireCount ?? plan.body.count
            // (A recorded redirect whose body broke off fails there too.)
            if !faults.breaksBody(of: wireCount), plan.interruption == nil {
                // A cut at or past the redirect's body cut nothing: it did not happen.
                if let cut = faults.cut { withdrawFault(.resetAfter(bytes: cut.bytes)) }
                if let bytes = faults.truncateAfter { withdrawFault(.truncate(bytes: bytes)) }
                guard transactionIndex < Self.maximumRedirects else {
                    handle(.fail(.urlError(.httpTooManyRedirects)))
                    return
                }
                // Reading the body takes its time: as recorded, or at the hop's bandwidth.
                let bandwidth = faults.bandwidth ?? routeOptions.bandwidth
                let receive = faults.bandwidth == nil ? timeline.receive ?? transferTime(bytes: wireCount, bandwidth: bandwidth)
                    : transferTime(bytes: wireCount, bandwidth: bandwidth)
                at(now.advanced(by: receive), "net.redirect-body", .head) { [self] in
                    askRedirect(head, proposed: proposed, plan: plan, timeline: timeline, options: routeOptions)
                }
                return
            }
        }
        if head.status == 401, plan.interruption == nil, transactionIndex < Self.maximumRedirects, Self.offersBasic(head),
           sink.answersChallenges(id) {
            askChallenge(head, plan: plan, timeline: timeline, faults: faults, options: routeOptions)
            return
        }
        deliverFinal(head, plan, timeline, routeOptions, faults)
    }

    // MARK: authentication challenges

    /// Whether a response's `WWW-Authenticate` offers HTTP Basic authentication.
    static func offersBasic(_ head: ResponseHead) -> Bool {
        head.headerFields[fields: .wwwAuthenticate].contains { field in
            field.value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("basic") }
        }
    }

    /// Asks the client for a credential, as URLSession asks its task delegate when a `401`
    /// offers Basic authentication. Given one, the request goes again with it once the 401's
    /// body has been read (its own transaction, as a redirect's hop is); otherwise the 401 is the
    /// answer, delivered as any response.
    private func askChallenge(_ head: ResponseHead, plan: ResponsePlan, timeline: Timeline, faults: BodyFaults, options routeOptions: RouteOptions) {
        handle(.redirectAsked)
        scheduler.record("net.challenge", "#\(id) 401 Basic, \(challengesAnswered) credential(s) sent before")
        let queue = network.queue
        sink.exchange(id, challenged: head, url: request.url, resend: request, previousFailures: challengesAnswered) { [self] decision in
            queue.async(named: "net.challenge-decision") { [self] in
                guard handle(.due(.redirectDecision)) == .proceed else { return }
                switch decision {
                case let .follow(next):
                    // The 401's body is read first (as recorded, or at the route's bandwidth).
                    let wireCount = (try? clientBody(head, plan))?.wireCount ?? plan.body.count
                    let receive = timeline.receive ?? transferTime(bytes: wireCount, bandwidth: faults.bandwidth ?? routeOptions.bandwidth)
                    at(now.advanced(by: receive), "net.challenge-body", .redirectDecision) { [self] in
                        challengesAnswered += 1
                        nextTransaction(next, bodyBytes: plan.body.count)
                    }
                case .stop:
                    deliverFinal(head, plan, timeline, routeOptions, faults)
                }
            }
        }
    }

    /// Ends the current transaction (its response read) and begins the next one with `next`:
    /// a redirect's hop, or a request sent again with a credential.
    private func nextTransaction(_ next: RequestSnapshot, bodyBytes: Int) {
        current.responseEnd = now
        current.bytesReceived = bodyBytes
        transactions.append(current)
        transactionIndex += 1
        // The hop's faults acted; the next hop's head has yet to come.
        settledFirings = fired.count
        headArrived = false
        request = next
        handle(.redirectFollowed)
        beginTransaction()
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
        handle(.redirectAsked)
        scheduler.record("net.redirect", "#\(id) \(head.status) → \(proposed.url.absoluteString)")
        let queue = network.queue
        sink.exchange(id, willRedirect: head, from: request.url, to: proposed) { [self] decision in
            queue.async(named: "net.redirect-decision") { [self] in
                guard handle(.due(.redirectDecision)) == .proceed else { return }
                switch decision {
                case let .follow(next):
                    nextTransaction(next, bodyBytes: plan.body.count)
                case .stop:
                    deliverFinal(head, plan, timeline, routeOptions, BodyFaults())
                }
            }
        }
    }
}
