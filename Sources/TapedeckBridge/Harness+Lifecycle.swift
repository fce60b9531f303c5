import Dispatch
import Foundation
import HTTPTypes
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What URLSession's threads report (protocol created, started, stopped) and how each reaches the
// simulation: as the arrival of an expectation registered at a deterministic point.

extension SessionLink {
    /// Called synchronously inside `task.resume()` (or `cancel()`), on the caller's thread.
    func protocolCreated(_ urlProtocol: BridgeProtocol) -> ExchangeLink? {
        harness?.exchangeCreated(urlProtocol, session: self)
    }
}

extension Harness {
    func exchangeCreated(_ urlProtocol: BridgeProtocol, session: SessionLink) -> ExchangeLink {
        if session.isConfiguration { return foreignExchangeCreated(urlProtocol, session: session) }
        let link = state.withLock { state -> ExchangeLink in
            let link = ExchangeLink(number: state.nextNumber, session: session, urlProtocol: urlProtocol)
            state.nextNumber += 1
            state.active[link.number] = link
            return link
        }
        expect(.start, for: link, label: "startLoading #\(link.number) \(urlProtocol.request.url?.absoluteString ?? "")")
        return link
    }

    /// From a URLSession thread: loading started (first time, or again after a resume).
    func protocolStarted(_ link: ExchangeLink, request: URLRequest) {
        // Read the body here, on URLSession's thread, the first time only: a stream can be read once.
        let firstTime = state.withLock { _ -> Bool in
            defer { link.bodyRead = true; link.startArrived = true }
            return !link.bodyRead
        }
        let body = firstTime ? Self.readBody(request) ?? link.urlProtocol?.task.flatMap(Self.uploadBody(of:)) : nil
        arrival(.start, for: link, name: "bridge.start") { [self] in
            begin(link, body: body)
        }
    }

    /// From a URLSession thread: loading stopped (a cancel or a suspend). The simulation learns of
    /// stops through expectations it registers when it notices the cancel or suspend (see
    /// `expectStop`); here we only mark the thread, so that the cancellation callback corelibs
    /// enqueues next, in the same work item, is attributed to this task. A task cancelled before it
    /// ever started loading is the exception: its stop stands in for the start it never had.
    func protocolStopped(_ link: ExchangeLink, task: URLSessionTask?) {
        if link.session.isConfiguration { foreignTaskStopped(link) }
        guard mode == .lockstep else {
            network.queue.async(named: "bridge.stop") { [self] in stopped(link, callback: nil) }
            return
        }
        link.session.beginStop(of: link)
        let neverStarted = state.withLock { _ -> ExternalExpectation? in
            guard !link.startArrived else { return nil }
            link.startArrived = true
            guard let expectation = link.expectations[.start]?.popFirst() else {
                // A foreign request cancelled before the simulation took it in: taken in as a stop.
                link.stoppedBeforeAdmission = true
                return nil
            }
            return expectation
        }
        if let neverStarted { deliverStop(of: link, task: task, to: neverStarted) }
    }

    /// Expects the stop of `link`'s task, which corelibs has already queued (the client called
    /// `cancel()` or `suspend()` before the simulation noticed). Simulator thread.
    func expectStop(of link: ExchangeLink, label: String) {
        guard mode == .lockstep else { return }
        let expectation = scheduler.expectExternal(label)
        deliverStop(of: link, task: link.task, to: expectation)
    }

    /// Once every work item queued for `task` so far is over (a sync onto its work queue waits for
    /// them: the stop and, for a cancel, the callback corelibs enqueues right after), delivers them
    /// together as the arrival of `expectation`.
    func deliverStop(of link: ExchangeLink, task: URLSessionTask?, to expectation: ExternalExpectation) {
        let boxed = UncheckedSendable(task)
        DispatchQueue.global().async { [self] in
            waitForSessionBookkeeping(boxed.value)
            link.session.endStops(of: link)
            let callback = state.withLock { _ -> (@Sendable () -> Void)? in
                defer { link.cancellationCallback = nil }
                return link.cancellationCallback
            }
            expectation.arrive(on: network.queue, named: "bridge.stop") { [self] in
                stopped(link, callback: callback)
            }
        }
    }

    /// From a URLSession thread: the block corelibs enqueued right after stopping `link`.
    func attachCancellationCallback(_ block: @escaping @Sendable () -> Void, to link: ExchangeLink) {
        state.withLock { _ in link.cancellationCallback = block }
    }

    func recordUnattributedBlock() {
        state.withLock { $0.unattributedBlocks += 1 }
    }

    // MARK: expectations

    /// Expects an arrival of `kind` for `link` (simulator thread). A parked arrival is taken at once.
    func expect(_ kind: ExchangeLink.ArrivalKind, for link: ExchangeLink, label: String) {
        guard mode == .lockstep else { return }
        let expectation = scheduler.expectExternal(label)
        let parked: (@Sendable () -> Void)? = state.withLock { _ in
            if let work = link.parked[kind]?.popFirst() { return work }
            link.expectations[kind, default: []].append(expectation)
            return nil
        }
        if let parked { expectation.arrive(on: network.queue, named: "bridge.\(kind)", parked) }
    }

    /// Reports an arrival from a URLSession thread: it fulfils the oldest matching expectation, or
    /// waits (parked) until the simulation expects it.
    private func arrival(_ kind: ExchangeLink.ArrivalKind, for link: ExchangeLink, name: String, _ work: @escaping @Sendable () -> Void) {
        guard mode == .lockstep else {
            network.queue.async(named: name, work)
            return
        }
        let expectation: ExternalExpectation? = state.withLock { _ in
            if let expectation = link.expectations[kind]?.popFirst() { return expectation }
            link.parked[kind, default: []].append(work)
            return nil
        }
        expectation?.arrive(on: network.queue, named: name, work)
    }

    // MARK: on the network queue

    /// Hands `event` to `link`'s lifecycle and does what every caller would do with the action:
    /// record and expect the stop of a cancel or a suspend, expect the start after a resume,
    /// report an illegal event. Returns the action for the rest (starting, stopping).
    @discardableResult
    func handle(_ event: TaskLifecycle.Event, for link: ExchangeLink) -> TaskLifecycle.Action {
        let action = link.lifecycle.handle(event)
        switch action {
        case let .noticeCancel(expectStop):
            scheduler.record("bridge.cancel", "#\(link.number)")
            if expectStop { self.expectStop(of: link, label: "stopLoading #\(link.number) (cancelled)") }
        case .expectSuspendStop:
            expectStop(of: link, label: "stopLoading #\(link.number) (suspended)")
        case .expectStart:
            expect(.start, for: link, label: "startLoading #\(link.number) (resumed)")
        case let .illegal(what):
            state.withLock { $0.illegalTransitions.append("task #\(link.number): \(what)") }
            scheduler.record("bridge.illegal", "#\(link.number) \(what)")
        case .none, .startExchange, .deliverCancellation, .forwardStopCallback:
            break
        }
        return action
    }

    /// Ends a foreign request the simulation ended under with `URLError.cancelled` naming it.
    static func failInFlight(_ link: ExchangeLink) {
        // (A request nobody took in has no task on its link yet: its protocol knows it.)
        guard let urlProtocol = link.urlProtocol, let task = link.task ?? urlProtocol.task, seen(task) == .running else { return }
        urlProtocol.client?.urlProtocol(urlProtocol, didFailWithError: URLError.bridge(.cancelled,
            "tapedeck: \(link.summary) was still in flight when the simulation ended (a run or tape finished before it was answered)",
            url: urlProtocol.request.url))
    }

    /// What the bridge sees of `task`'s state: how a cancel, suspend or resume made with the
    /// task's own methods becomes known. corelibs has no callback for them (and no KVO), so this
    /// is read at deterministic points only: when the simulation is quiescent, and before each
    /// delivery to the client.
    static func seen(_ task: URLSessionTask) -> TaskLifecycle.TaskState {
        switch task.state {
        case .running: return .running
        case .canceling: return .canceling
        case .suspended: return .suspended
        default: return .completed
        }
    }

    /// ``seen(_:)``, for `link`: corelibs hands a foreign task's cancellation straight to the
    /// client's own queue, which may mark the task completed before the bridge looks; a foreign
    /// task that completed without the bridge finishing it was cancelled.
    func observed(_ task: URLSessionTask, for link: ExchangeLink) -> TaskLifecycle.TaskState {
        let seen = Self.seen(task)
        return seen == .completed && link.foreign != nil ? .canceling : seen
    }

    private func begin(_ link: ExchangeLink, body: Data?) {
        guard link.lifecycle.state != .done, let urlProtocol = link.urlProtocol, let task = urlProtocol.task else { return }
        link.task = task
        if link.session.isConfiguration { link.foreign = ForeignTask(task: task) }
        if let body { link.body = body }
        link.buffered = Data()
        guard handle(.startArrived(observed(task, for: link)), for: link) == .startExchange else { return }
        let id = network.nextExchangeID()
        state.withLock { state in
            state.byNetworkID[id] = link
            link.registeredNetworkIDs.append(id)
        }
        handle(.exchangeStarted(networkID: id), for: link)
        let configuration = link.session.configuration
        expireCookies()
        let snapshot = withoutExpiredCookies(Self.snapshot(urlProtocol.request, body: link.body, configuration: configuration), configuration: configuration)
        network.start(id, request: snapshot, options: exchangeOptions(urlProtocol.request, configuration), sink: sink)
    }

    private func stopped(_ link: ExchangeLink, callback: (@Sendable () -> Void)?) {
        if link.task == nil { link.task = link.urlProtocol?.task }
        if link.session.isConfiguration, link.foreign == nil, let task = link.task { link.foreign = ForeignTask(task: task) }
        if let id = link.networkID, let abandoned = network.abandon(id) {
            link.cancelMetrics = abandoned
        }
        switch handle(.stopArrived(taskCanceling: link.task?.state == .canceling), for: link) {
        case .forwardStopCallback:
            if let callback { link.session.clientQueue?.async(named: "urlsession.delegate", callback) }
        case let .deliverCancellation(noticeCancel):
            if noticeCancel { scheduler.record("bridge.cancel", "#\(link.number)") }
            deliverCancellation(link, callback: callback)
        default:
            break
        }
    }

    /// The cancellation's metrics (before or after, as the network chose) around the callback
    /// corelibs queued for it.
    private func deliverCancellation(_ link: ExchangeLink, callback: (@Sendable () -> Void)?) {
        if link.cancelMetrics == nil, let request = link.urlProtocol?.request {
            // Cancelled before its exchange started: Darwin still reports metrics (an empty fetch).
            let now = scheduler.now
            let transaction = TransactionMetrics(
                method: .init(request.httpMethod ?? "GET") ?? .get, url: request.url ?? URL(string: "about:blank")!, fetchStart: now)
            link.cancelMetrics = AbandonedExchange(
                metrics: TransferMetrics(transactions: [transaction], taskStart: now, taskEnd: now), delivery: .beforeCompletion)
        }
        let delivery = link.cancelMetrics?.delivery
        if delivery == .beforeCompletion || delivery == .duplicate {
            deliverCancelMetrics(link, before: true)
        }
        if let callback {
            link.session.clientQueue?.async(named: "urlsession.delegate", callback)
            if delivery == .afterCompletion || delivery == .duplicate {
                deliverCancelMetrics(link, before: false)
            }
        }
        finish(link)
    }

    private func deliverCancelMetrics(_ link: ExchangeLink, before: Bool) {
        guard let metrics = link.cancelMetrics?.metrics, let task = link.task else { return }
        if before {
            guard !link.cancelMetricsBeforeDelivered else { return }
            link.cancelMetricsBeforeDelivered = true
        } else {
            guard !link.cancelMetricsAfterDelivered else { return }
            link.cancelMetricsAfterDelivered = true
        }
        deliverMetrics(metrics, link: link, task: task)
    }

    /// Quiescence hook: tasks the client cancelled, suspended or resumed since the last look.
    func noticeClientStateChanges() {
        let links = state.withLock { $0.active.values.sorted { $0.number < $1.number } }
        for link in links {
            guard let task = link.task else { continue }
            handle(.taskSeen(observed(task, for: link)), for: link)
        }
    }

    /// The task whose protocol instance `link` holds, found deterministically (corelibs sets a
    /// protocol's task inside `resume()`/`cancel()`, on the caller's thread).
    func link(for task: URLSessionTask) -> ExchangeLink? {
        let links = state.withLock { Array($0.active.values) }
        return links.first { $0.urlProtocol?.task === task }
    }

    /// Forgets `link` (its lifecycle is `done`).
    func finish(_ link: ExchangeLink) {
        state.withLock { state in
            link.urlProtocol = nil      // breaks protocol ↔ link, so neither outlives the task
            link.parked.removeAll()
            state.active[link.number] = nil
            // Its own keys only: scanning every link's entry made a run of n concurrent requests O(n²).
            for id in link.registeredNetworkIDs where state.byNetworkID[id] === link { state.byNetworkID[id] = nil }
            link.registeredNetworkIDs.removeAll()
        }
    }

    // MARK: requests

    static func readBody(_ request: URLRequest) -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }

    /// The header a client uses to tag a request (a scenario names its requests with it): read
    /// into `ExchangeOptions.tag` and removed before anything else sees the request.
    public static let tagHeader = "X-Tapedeck-Tag"

    /// What the server sees: the request's fields (without the tag header) plus the
    /// configuration's additional headers.
    static func snapshot(_ request: URLRequest, body: Data?, configuration: URLSessionConfiguration) -> RequestSnapshot {
        var snapshot = RequestSnapshot(request, body: body.flatMap { $0.isEmpty && request.httpBody == nil && request.httpBodyStream == nil ? nil : $0 })
        if let name = HTTPField.Name(tagHeader) { snapshot.headerFields[name] = nil }
        let extra = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value -> (String, String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        for (name, value) in extra.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) where request.value(forHTTPHeaderField: name) == nil {
            var fields = HTTPFieldsBuilder()
            fields.append(name, value)
            snapshot.headerFields.append(contentsOf: fields.fields)
        }
        if let cookie = snapshot.headerFields[.cookie] { setOrderedCookie(cookie, in: &snapshot.headerFields) }
        return snapshot
    }

    /// A `Cookie` field's pairs in a fixed order (by name, then value). corelibs builds the field
    /// from its cookie storage, a dictionary whose order changes with each process's hash seed:
    /// two cookies would reach the server in either order, and stubs, handlers, matching and the
    /// trace would differ between runs of one seed.
    static func orderedCookies(_ value: String) -> String {
        let pairs = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return pairs.sorted().joined(separator: "; ")
    }

    /// `fields`' Cookie as one field holding `value`'s pairs in order (swift-http-types'
    /// `[.cookie] =` would split it into a field per cookie).
    static func setOrderedCookie(_ value: String, in fields: inout HTTPFields) {
        fields[fields: .cookie] = [HTTPField(name: .cookie, value: orderedCookies(value))]
    }

    func exchangeOptions(_ request: URLRequest, _ configuration: URLSessionConfiguration) -> ExchangeOptions {
        // A request left at URLRequest's default of 60 s uses the session's request timeout.
        let idle = request.timeoutInterval == 60 ? configuration.timeoutIntervalForRequest : request.timeoutInterval
        let resource = configuration.timeoutIntervalForResource
        return ExchangeOptions(
            idleTimeout: idle > 0 ? .seconds(rounding: idle) : nil,
            resourceTimeout: resource > 0 ? .seconds(rounding: resource) : nil,
            decodesContentEncoding: decodesContentEncoding,
            tag: request.value(forHTTPHeaderField: Self.tagHeader))
    }
}
