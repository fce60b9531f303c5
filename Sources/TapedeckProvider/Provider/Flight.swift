/// One request shared by the callers that asked for it: the first caller starts it, later callers
/// with an equal endpoint join it while it is in flight (``MoyaProvider/trackInflights``).
///
/// A value state machine: each event returns what the provider must do, and nothing here performs
/// I/O, so every transition is tested on its own (FlightTests). Stages:
///
/// - `mapping`: waiting for the request closure to produce the URLRequest;
/// - `running`: the network request or the stub is under way;
/// - `finished`: every caller has been (or is being) told.
///
/// A caller who cancels is told at once while others still wait for the same request, which goes on
/// for them. The last waiting caller who cancels a running request cancels the request itself, and is
/// told when it ends (so `didReceive` still runs before that caller's `process` and completion).
struct Flight: Equatable {
    enum Stage: Equatable {
        case mapping
        case running
        case finished
    }

    enum CallerStatus: Equatable {
        /// Waiting for the shared result.
        case waiting
        /// Cancelled as the last waiting caller of a running request: told when the request ends.
        case cancelling
        /// Told (or being told) its result.
        case done
    }

    private(set) var stage = Stage.mapping
    /// Callers in call order.
    private(set) var callers: [(id: Int, status: CallerStatus)]
    /// No caller waits any more: the running request is being cancelled.
    private(set) var cancelRequested = false

    init(first caller: Int) {
        callers = [(caller, .waiting)]
    }

    /// Whether another caller may share this request.
    var isJoinable: Bool { stage != .finished && !cancelRequested }

    /// Adds a caller (after the others); false when the request can no longer be shared.
    mutating func join(_ caller: Int) -> Bool {
        guard isJoinable else { return false }
        callers.append((caller, .waiting))
        return true
    }

    enum CancelAction: Equatable {
        /// Nothing to do: unknown caller, or it was already told.
        case none
        /// Tell this caller it was cancelled, now; the request goes on for the others (or, while
        /// mapping with others waiting, will start for them).
        case deliverCancellation
        /// Tell this caller now; nobody is left, so the request is dropped before it started.
        case deliverCancellationAndAbandon
        /// Cancel the running request; the caller is told when it ends.
        case cancelOperation
    }

    mutating func cancel(_ caller: Int) -> CancelAction {
        guard let index = callers.firstIndex(where: { $0.id == caller }), callers[index].status == .waiting else { return .none }
        let othersWaiting = callers.contains { $0.id != caller && $0.status == .waiting }
        switch stage {
        case .finished:
            return .none
        case .mapping:
            callers[index].status = .done
            if othersWaiting { return .deliverCancellation }
            stage = .finished
            return .deliverCancellationAndAbandon
        case .running:
            if othersWaiting {
                callers[index].status = .done
                return .deliverCancellation
            }
            callers[index].status = .cancelling
            cancelRequested = true
            return .cancelOperation
        }
    }

    enum MappingAction: Equatable {
        /// The flight was abandoned meanwhile (every caller cancelled): drop the answer.
        case ignore
        /// Send the request (or the stub).
        case start
        /// Tell these callers, in order, that the request could not be made.
        case fail(callers: [Int])
    }

    /// The request closure answered.
    mutating func mapped(succeeded: Bool) -> MappingAction {
        guard stage == .mapping else { return .ignore }
        if succeeded {
            stage = .running
            return .start
        }
        stage = .finished
        let waiting = callers.filter { $0.status == .waiting }.map(\.id)
        markAllDone()
        return .fail(callers: waiting)
    }

    /// A caller to tell, and whether it asked to be cancelled.
    struct Delivery: Equatable {
        let caller: Int
        let cancelled: Bool
    }

    /// The request ended: the callers still to tell, in call order; nil when it had already
    /// ended (a late or duplicate answer, e.g. a stub firing after a cancel finished it).
    mutating func finish() -> [Delivery]? {
        guard stage == .running else { return nil }
        stage = .finished
        let deliveries = callers.compactMap { caller -> Delivery? in
            switch caller.status {
            case .waiting: Delivery(caller: caller.id, cancelled: false)
            case .cancelling: Delivery(caller: caller.id, cancelled: true)
            case .done: nil
            }
        }
        markAllDone()
        return deliveries
    }

    private mutating func markAllDone() {
        for index in callers.indices { callers[index].status = .done }
    }

    static func == (lhs: Flight, rhs: Flight) -> Bool {
        lhs.stage == rhs.stage && lhs.cancelRequested == rhs.cancelRequested
            && lhs.callers.map(\.id) == rhs.callers.map(\.id) && lhs.callers.map(\.status) == rhs.callers.map(\.status)
    }
}
