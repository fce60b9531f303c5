public import TapedeckScheduling

/// A route's latency jitter drawn for one wait: which request and attempt (and which jittered wait
/// of that attempt), and how many nanoseconds were added. Written under `schedule.jitter`.
public struct JitterDecision: Hashable, Sendable, CustomStringConvertible {
    /// The request's name (its tag), or nil for an untagged request.
    public var request: String?
    /// The attempt of that request (1: the first).
    public var attempt: Int
    /// Which jittered wait of that attempt (a redirect makes another).
    public var occurrence: Int
    /// The jitter added, in nanoseconds.
    public var nanoseconds: Int64

    /// A jitter draw.
    public init(request: String?, attempt: Int, occurrence: Int = 1, nanoseconds: Int64) {
        self.request = request
        self.attempt = attempt
        self.occurrence = occurrence
        self.nanoseconds = nanoseconds
    }

    /// `jitter 3000000ns on items attempt 1`.
    public var description: String {
        "jitter \(nanoseconds)ns on \(request ?? "?") attempt \(attempt)" + (occurrence > 1 ? " (occurrence \(occurrence))" : "")
    }
}

/// A task whose metrics reached the client after its completion callback (the seed's other
/// choice; without a decision, metrics come first). Written under `schedule.metrics`.
public struct MetricsDecision: Hashable, Sendable, CustomStringConvertible {
    /// The request's name (its tag), or nil for an untagged request.
    public var request: String?
    /// The attempt of that request (1: the first).
    public var attempt: Int
    /// Which ending of that attempt (an attempt ends once).
    public var occurrence: Int

    /// A metrics-after-completion decision.
    public init(request: String?, attempt: Int, occurrence: Int = 1) {
        self.request = request
        self.attempt = attempt
        self.occurrence = occurrence
    }

    /// `metrics after completion on items attempt 2`.
    public var description: String {
        "metrics after completion on \(request ?? "?") attempt \(attempt)" + (occurrence > 1 ? " (occurrence \(occurrence))" : "")
    }
}

/// One decision of a run, of any kind: what the shrinker removes and simplifies.
///
/// ```swift
/// let decisions = schedule.decisions          // faults, then order, jitter and metrics
/// let smaller = Schedule(exactly: decisions.dropLast())
/// ```
public enum Decision: Hashable, Sendable, CustomStringConvertible {
    /// A fault site fired.
    case fault(FaultDecision)
    /// A choice between ready roots other than FIFO's.
    case order(SchedulingChoice)
    /// A jitter draw other than zero.
    case jitter(JitterDecision)
    /// Metrics delivered after the completion.
    case metrics(MetricsDecision)

    /// The decision as the shrinker prints it.
    public var description: String {
        switch self {
        case let .fault(decision): return decision.description
        case let .order(choice): return "scheduling \(choice)"
        case let .jitter(decision): return decision.description
        case let .metrics(decision): return decision.description
        }
    }
}

extension Schedule {
    /// An exact schedule holding `decisions` (see ``exact``).
    public init(exactly decisions: some Sequence<Decision>) {
        self.init(faults: [], exact: true)
        for decision in decisions {
            switch decision {
            case let .fault(fault): faults.append(fault)
            case let .order(choice): order.append(choice)
            case let .jitter(jitter): self.jitter.append(jitter)
            case let .metrics(metrics): self.metrics.append(metrics)
            }
        }
    }

    /// Every decision, faults first, then scheduling choices, jitter draws and metrics orders.
    public var decisions: [Decision] {
        faults.map(Decision.fault) + order.map(Decision.order) + jitter.map(Decision.jitter) + metrics.map(Decision.metrics)
    }
}
