import Foundation
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
    func protocolCreated(_ urlProtocol: BridgeProtocol) -> ExchangeLink {
        harness.exchangeCreated(urlProtocol, session: self)
    }
}

extension Harness {
    func exchangeCreated(_ urlProtocol: BridgeProtocol, session: SessionLink) -> ExchangeLink {
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
    func protocolStarted(_ link: ExchangeLink, task: URLSessionTask?) {
        let request = link.urlProtocol?.request
        let alreadyRead = state.withLock { state -> Bool in
            link.task = task
            if let task { state.byTask[ObjectIdentifier(task)] = link }
            return link.body != nil
        }
        // Read the body here, on URLSession's thread: a stream can be read only once.
        let body = alreadyRead ? nil : request.flatMap(Self.readBody)
        arrival(.start, for: link, name: "bridge.start") { [self] in
            begin(link, body: body)
        }
    }

    /// From a URLSession thread: loading stopped (cancel or suspend).
    func protocolStopped(_ link: ExchangeLink, task: URLSessionTask?) {
        state.withLock { state in
            if link.task == nil, let task {
                link.task = task
                state.byTask[ObjectIdentifier(task)] = link
            }
        }
        arrival(.stop, for: link, name: "bridge.stop") { [self] in
            stopped(link)
        }
    }

    // MARK: expectations

    /// Expects an arrival of `kind` for `link` (simulator thread). A parked arrival is taken at once.
    func expect(_ kind: ExchangeLink.ArrivalKind, for link: ExchangeLink, label: String) {
        guard mode == .lockstep else { return }
        let expectation = scheduler.expectExternal(label)
        let parked: (@Sendable () -> Void)? = state.withLock { _ in
            if let work = link.parked.removeValue(forKey: kind) { return work }
            link.expectations[kind] = expectation
            return nil
        }
        if let parked { expectation.arrive(on: network.queue, named: "bridge.\(kind)", parked) }
    }

    /// Reports an arrival from a URLSession thread: it fulfils the matching expectation, or waits
    /// (parked) until the simulation expects it.
    private func arrival(_ kind: ExchangeLink.ArrivalKind, for link: ExchangeLink, name: String, _ work: @escaping @Sendable () -> Void) {
        guard mode == .lockstep else {
            network.queue.async(named: name, work)
            return
        }
        let expectation: ExternalExpectation? = state.withLock { _ in
            if let expectation = link.expectations.removeValue(forKey: kind) { return expectation }
            // A task cancelled before it ever started loading is stopped instead of started.
            if kind == .stop, let expectation = link.expectations.removeValue(forKey: .start) { return expectation }
            link.parked[kind] = work
            return nil
        }
        expectation?.arrive(on: network.queue, named: name, work)
    }

    // MARK: on the network queue

    private func begin(_ link: ExchangeLink, body: Data?) {
        guard let task = link.task, let urlProtocol = link.urlProtocol else { return }
        if link.body == nil { link.body = body ?? Data() }
        switch task.state {
        case .running:
            let id = state.withLock { state -> Int in
                let id = state.nextNetworkID
                state.nextNetworkID += 1
                state.byNetworkID[id] = link
                return id
            }
            link.phase = .running(networkID: id)
            let configuration = link.session.configuration
            let snapshot = Self.snapshot(urlProtocol.request, body: link.body, configuration: configuration)
            network.start(id, request: snapshot, options: exchangeOptions(urlProtocol.request, configuration), sink: sink)
        case .canceling:
            noticeCancel(link)
        case .suspended:
            link.phase = .halted(networkID: nil)
            expect(.stop, for: link, label: "stopLoading #\(link.number) (suspended)")
        default:
            break
        }
    }

    private func stopped(_ link: ExchangeLink) {
        var abandoned: AbandonedExchange?
        switch link.phase {
        case let .running(id), let .halted(id?):
            abandoned = network.abandon(id)
        default:
            break
        }
        // A stop nobody expected as a cancel: a task cancelled before it ever started loading.
        if !link.cancelNoticed && link.task?.state == .canceling {
            noticeCancel(link, stopArrived: true)
        }
        guard link.cancelNoticed else {
            link.phase = .suspended
            return
        }
        if let abandoned, let task = link.task {
            switch abandoned.delivery {
            case .beforeCompletion:
                deliverMetrics(abandoned.metrics, link: link, task: task)
            case .afterCompletion:
                link.metricsAfterCancellation = abandoned.metrics
            case .duplicate:
                deliverMetrics(abandoned.metrics, link: link, task: task)
                link.metricsAfterCancellation = abandoned.metrics
            case .missing:
                break
            }
        }
        finish(link)
    }

    /// Called right after a cancelled task's callback was enqueued for its client.
    func deliverMetricsAfterCancellation(_ link: ExchangeLink) {
        guard let metrics = link.metricsAfterCancellation, let task = link.task else { return }
        link.metricsAfterCancellation = nil
        deliverMetrics(metrics, link: link, task: task)
    }

    /// The client cancelled `link`'s task: expect URLSession's stop (unless it is here already) and
    /// the cancellation callback.
    func noticeCancel(_ link: ExchangeLink, stopArrived: Bool = false) {
        guard !link.cancelNoticed, link.phase != .done else { return }
        link.cancelNoticed = true
        if case let .running(id) = link.phase { link.phase = .halted(networkID: id) }
        scheduler.record("bridge.cancel", "#\(link.number)")
        if !stopArrived {
            expect(.stop, for: link, label: "stopLoading #\(link.number) (cancelled)")
        }
        if mode == .lockstep {
            link.session.expectCancellationCallback(for: link)
        }
    }

    /// Quiescence hook: tasks the client cancelled, suspended or resumed since the last look.
    func noticeClientStateChanges() {
        let links = state.withLock { $0.active.values.sorted { $0.number < $1.number } }
        for link in links {
            guard let task = link.task else { continue }
            switch (link.phase, task.state) {
            case (.running, .canceling), (.halted, .canceling), (.suspended, .canceling):
                noticeCancel(link)
            case let (.running(id), .suspended):
                link.phase = .halted(networkID: id)
                expect(.stop, for: link, label: "stopLoading #\(link.number) (suspended)")
            case (.suspended, .running):
                link.phase = .created
                expect(.start, for: link, label: "startLoading #\(link.number) (resumed)")
            default:
                break
            }
        }
    }

    func finish(_ link: ExchangeLink) {
        link.phase = .done
        state.withLock { state in
            link.urlProtocol = nil      // breaks protocol ↔ link, so neither outlives the task
            state.active[link.number] = nil
            if let task = link.task { state.byTask[ObjectIdentifier(task)] = nil }
            state.byNetworkID = state.byNetworkID.filter { $0.value !== link }
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

    /// What the server sees: the request's fields plus the configuration's additional headers.
    static func snapshot(_ request: URLRequest, body: Data?, configuration: URLSessionConfiguration) -> RequestSnapshot {
        var snapshot = RequestSnapshot(request, body: body.flatMap { $0.isEmpty && request.httpBody == nil && request.httpBodyStream == nil ? nil : $0 })
        let extra = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value -> (String, String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        for (name, value) in extra.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) where request.value(forHTTPHeaderField: name) == nil {
            var fields = HTTPFieldsBuilder()
            fields.append(name, value)
            snapshot.headerFields.append(contentsOf: fields.fields)
        }
        return snapshot
    }

    func exchangeOptions(_ request: URLRequest, _ configuration: URLSessionConfiguration) -> ExchangeOptions {
        // A request left at URLRequest's default of 60 s uses the session's request timeout.
        let idle = request.timeoutInterval == 60 ? configuration.timeoutIntervalForRequest : request.timeoutInterval
        let resource = configuration.timeoutIntervalForResource
        return ExchangeOptions(
            idleTimeout: idle > 0 ? .seconds(rounding: idle) : nil,
            resourceTimeout: resource > 0 ? .seconds(rounding: resource) : nil,
            decodesContentEncoding: decodesContentEncoding)
    }
}
