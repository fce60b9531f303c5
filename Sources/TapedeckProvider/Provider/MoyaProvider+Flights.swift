import Foundation
import TapedeckClient
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The provider's bookkeeping: flights (requests shared by callers), their callers, the in-flight
// index; and the three things that happen to a flight — its URLRequest is made, a caller cancels,
// it ends. Each takes the lock once to run the flight's state machine, then acts outside it.

extension MoyaProvider {
    struct Caller {
        let number: Int
        let flight: Int
        let target: Target
        let queue: any SchedulerQueue
        /// Told once, before the completion, when the flight's network request ends.
        let progress: ProgressBlock?
        let completion: Completion
    }

    struct FlightRecord {
        var machine: Flight
        let endpoint: Endpoint
        let key: Endpoint.Identity?
        /// The first caller's target: the one `prepare`, `willSend` and `didReceive` see.
        let target: Target
        let behavior: StubBehavior
        /// The first caller's callback queue: where the answer is taken in and `didReceive` runs.
        let queue: any SchedulerQueue
        var request: Request?
        var timer: ScheduledWork?
    }

    struct State {
        var flights: [Int: FlightRecord] = [:]
        var callers: [Int: Caller] = [:]
        /// Flights that can still be shared, by endpoint identity (with `trackInflights`).
        var inflight: [Endpoint.Identity: Int] = [:]
        var nextCaller = 1
        var nextFlight = 1

        /// Registers a caller: joins a shared flight when one is in flight for `key`, else opens one.
        mutating func open(
            target: Target, endpoint: Endpoint, key: Endpoint.Identity?, behavior: StubBehavior, queue: any SchedulerQueue,
            progress: ProgressBlock?, completion: @escaping Completion
        ) -> (caller: Int, flight: Int, isNew: Bool) {
            let caller = nextCaller
            nextCaller += 1
            if let key, let id = inflight[key], flights[id]?.machine.join(caller) == true {
                callers[caller] = Caller(number: caller, flight: id, target: target, queue: queue, progress: progress, completion: completion)
                return (caller, id, false)
            }
            let id = nextFlight
            nextFlight += 1
            flights[id] = FlightRecord(machine: Flight(first: caller), endpoint: endpoint, key: key, target: target,
                                       behavior: behavior, queue: queue)
            callers[caller] = Caller(number: caller, flight: id, target: target, queue: queue, progress: progress, completion: completion)
            if let key { inflight[key] = id }
            return (caller, id, true)
        }

        /// Forgets a flight that can no longer be shared (it ended, or nobody waits for it).
        mutating func unshare(_ id: Int) {
            if let key = flights[id]?.key, inflight[key] == id { inflight[key] = nil }
        }

        mutating func removeFlight(_ id: Int) {
            unshare(id)
            flights[id] = nil
        }
    }

    // MARK: the URLRequest is made

    func mapped(flight id: Int, result: Result<URLRequest, ProviderError>) {
        let (action, record) = state.withLock { state -> (Flight.MappingAction, FlightRecord?) in
            guard var record = state.flights[id] else { return (.ignore, nil) }
            let action = record.machine.mapped(succeeded: (try? result.get()) != nil)
            state.flights[id] = record
            if case .fail = action { state.removeFlight(id) }
            return (action, record)
        }
        switch action {
        case .ignore:
            return
        case let .fail(callers):
            // As in Moya: a request that could not be made reaches only `process` and the completion.
            let failure: Result<Response, ProviderError> = .failure(result.failureValue ?? .requestMapping(record?.endpoint.url ?? ""))
            callers.forEach { deliver(failure, to: $0) }
        case .start:
            guard let record, case let .success(urlRequest) = result else { return }
            if record.behavior == .never {
                send(urlRequest, flight: id, record: record)
            } else {
                stub(urlRequest, flight: id, record: record)
            }
        }
    }

    // MARK: a caller cancels

    func cancel(caller number: Int) {
        let (action, flight, record) = state.withLock { state -> (Flight.CancelAction, Int, FlightRecord?) in
            guard let caller = state.callers[number], var record = state.flights[caller.flight] else { return (.none, 0, nil) }
            let action = record.machine.cancel(number)
            state.flights[caller.flight] = record
            switch action {
            case .none, .deliverCancellation: break
            case .deliverCancellationAndAbandon: state.removeFlight(caller.flight)
            case .cancelOperation: state.unshare(caller.flight)
            }
            return (action, caller.flight, record)
        }
        switch action {
        case .none:
            return
        case .deliverCancellation, .deliverCancellationAndAbandon:
            deliver(.failure(.cancelled), to: number)
        case .cancelOperation:
            guard let record else { return }
            if record.behavior == .never {
                record.request?.cancel()   // not made yet: `send` cancels it once it is
            } else {
                record.timer?.cancel()
                record.queue.async(named: "provider.stubCancelled") { [self] in finish(flight: flight, result: .failure(.cancelled)) }
            }
        }
    }

    // MARK: the request ends

    /// On the flight's queue: `didReceive` once, then each caller still waiting is told, in call order.
    func finish(flight id: Int, result: Result<Response, ProviderError>) {
        let ended = state.withLock { state -> (FlightRecord, [Flight.Delivery])? in
            guard var record = state.flights[id], let deliveries = record.machine.finish() else { return nil }
            state.removeFlight(id)
            return (record, deliveries)
        }
        guard let (record, deliveries) = ended else { return }
        session.scheduler.record("provider.didReceive", "\(record.endpoint) \(Self.outcome(result))")
        for plugin in plugins { plugin.didReceive(result, target: record.target) }
        for delivery in deliveries {
            deliver(delivery.cancelled ? Self.cancellation(of: result) : result, to: delivery.caller,
                    reportingProgress: record.behavior == .never, transfer: record.request)
        }
    }

    /// In a job of the caller's queue: its progress block when `reportingProgress` (completed with
    /// the response, unprocessed, and the transfer's `Progress`, as Moya reports it), every
    /// plugin's `process` (with the caller's target), then its completion.
    func deliver(_ result: Result<Response, ProviderError>, to number: Int, reportingProgress: Bool = false, transfer: Request? = nil) {
        guard let caller = state.withLock({ $0.callers.removeValue(forKey: number) }) else { return }
        caller.queue.async(named: "provider.completion") { [self] in
            if reportingProgress, let progress = caller.progress {
                let object = transfer.map { ($0 as? UploadRequest)?.uploadProgress ?? $0.downloadProgress }
                progress(ProgressResponse(progress: object, response: try? result.get()))
            }
            let processed = plugins.reduce(result) { $1.process($0, target: caller.target) }
            session.scheduler.record("provider.result", "caller \(caller.number) \(Self.outcome(processed))")
            caller.completion(processed)
        }
    }

    /// On the flight's queue: tells each caller still waiting for the flight that has a progress
    /// block, in call order and on its own queue, how the transfer is getting on.
    func reportProgress(flight id: Int, _ progress: Progress) {
        let watching = state.withLock { state in
            state.callers.values.filter { $0.flight == id && $0.progress != nil }.sorted { $0.number < $1.number }
        }
        let boxed = UncheckedSendable(progress)
        for caller in watching {
            caller.queue.async(named: "provider.progress") { caller.progress?(ProgressResponse(progress: boxed.value)) }
        }
    }

    /// What a caller who cancelled receives: the result itself if it is a cancellation, else a cancellation.
    static func cancellation(of result: Result<Response, ProviderError>) -> Result<Response, ProviderError> {
        if case let .failure(error) = result, error.isExplicitlyCancelled { return result }
        return .failure(.cancelled)
    }

    /// `200`, `cancelled`, `error 503` or `error`, for the trace.
    static func outcome(_ result: Result<Response, ProviderError>) -> String {
        switch result {
        case let .success(response): "\(response.statusCode)"
        case let .failure(error) where error.isExplicitlyCancelled: "cancelled"
        case let .failure(error): error.response.map { "error \($0.statusCode)" } ?? "error"
        }
    }
}

extension Result {
    var failureValue: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
