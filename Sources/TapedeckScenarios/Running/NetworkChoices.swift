import Synchronization
import TapedeckNetwork

/// The network's jitter and metrics-order choices for a run: the seed's draws, logged (recording),
/// or an exact schedule's (replaying; what it does not list is zero jitter and metrics first).
/// Either way, every choice other than the default is logged, so a run's decisions can be replayed.
final class NetworkChoices: NetworkChoiceHook {
    private struct State {
        /// nil: recording the seed's draws.
        var replay: (jitter: [JitterDecision], metrics: [MetricsDecision])?
        var occurrences: [String: Int] = [:]
        var jitter: [JitterDecision] = []
        var metrics: [MetricsDecision] = []

        mutating func occurrence(_ kind: String, _ context: FaultContext) -> Int {
            let key = "\(kind)|\(context.tag ?? "")|\(context.attempt)"
            occurrences[key, default: 0] += 1
            return occurrences[key]!
        }
    }

    private let state: Mutex<State>

    /// Recording the seed's draws (`replaying` nil) or replaying an exact schedule's.
    init(replaying schedule: Schedule?) {
        state = Mutex(State(replay: schedule.map { ($0.jitter, $0.metrics) }))
    }

    /// The jitter draws other than zero, in order.
    var jitter: [JitterDecision] { state.withLock { $0.jitter } }
    /// The tasks whose metrics came after their completion, in order.
    var metrics: [MetricsDecision] { state.withLock { $0.metrics } }

    func jitter(_ drawn: Int64, upTo range: Int64, context: FaultContext) -> Int64 {
        state.withLock { state in
            let occurrence = state.occurrence("jitter", context)
            var value = drawn
            if let replay = state.replay {
                value = replay.jitter.first {
                    $0.request == context.tag && $0.attempt == context.attempt && $0.occurrence == occurrence
                }?.nanoseconds ?? 0
            }
            value = min(max(0, value), range)
            if value != 0 {
                state.jitter.append(JitterDecision(request: context.tag, attempt: context.attempt, occurrence: occurrence, nanoseconds: value))
            }
            return value
        }
    }

    func metricsDelivery(_ drawn: MetricsDelivery, context: FaultContext) -> MetricsDelivery {
        state.withLock { state in
            let occurrence = state.occurrence("metrics", context)
            var value = drawn
            if let replay = state.replay {
                let listed = replay.metrics.contains {
                    $0.request == context.tag && $0.attempt == context.attempt && $0.occurrence == occurrence
                }
                value = listed ? .afterCompletion : .beforeCompletion
            }
            if value == .afterCompletion {
                state.metrics.append(MetricsDecision(request: context.tag, attempt: context.attempt, occurrence: occurrence))
            }
            return value
        }
    }
}
