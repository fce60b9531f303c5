/// The network's seeded choices that are not faults — a route's latency jitter and the order of a
/// task's metrics and completion — passed through a hook that may record them or replace them.
///
/// The network makes each draw as it would without a hook and hands it over; what the hook returns
/// is used. A recording hook returns the draw and logs it; a replaying hook returns its own value
/// (a list's, or the default: no jitter, metrics before the completion).
///
/// ```swift
/// final class NoJitter: NetworkChoiceHook {
///     func jitter(_ drawn: Int64, upTo range: Int64, context: FaultContext) -> Int64 { 0 }
///     func metricsDelivery(_ drawn: MetricsDelivery, context: FaultContext) -> MetricsDelivery { .beforeCompletion }
/// }
/// network.choices = NoJitter()
/// ```
public protocol NetworkChoiceHook: AnyObject, Sendable {
    /// The jitter to add (nanoseconds, `0...range`) given the seeded draw `drawn`; called on the
    /// network queue once per jittered wait.
    func jitter(_ drawn: Int64, upTo range: Int64, context: FaultContext) -> Int64
    /// How the task's metrics reach the client given the seeded choice `drawn` (a metrics fault,
    /// when one fired, decides instead and the hook is not asked).
    func metricsDelivery(_ drawn: MetricsDelivery, context: FaultContext) -> MetricsDelivery
}
