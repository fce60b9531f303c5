/// A point on a scheduler's timeline, in whole nanoseconds since the scheduler started.
///
/// Simulated schedulers start at ``zero`` and only move when they are driven; the live scheduler
/// counts real monotonic time since it was created. Durations are `Swift.Duration` values, which
/// the scheduler quantises to whole nanoseconds (rounding toward zero) when they touch the timeline,
/// so that `SimulatedClock` can stand in wherever a `Clock<Duration>` is accepted.
///
/// ```swift
/// let t = VirtualInstant.zero.advanced(by: .milliseconds(1500))
/// print(t)                 // 1.5s
/// print(t.nanoseconds)     // 1500000000
/// ```
public struct VirtualInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Durations are Swift's.
    public typealias Duration = Swift.Duration

    /// Nanoseconds since the start of the timeline.
    public var nanoseconds: Int64

    /// The instant `nanoseconds` after the simulation's start.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The start of every simulated timeline.
    public static let zero = VirtualInstant(nanoseconds: 0)

    /// The last representable instant (used as "no limit").
    public static let distantFuture = VirtualInstant(nanoseconds: .max)

    /// The instant `duration` later (rounded to nanoseconds).
    public func advanced(by duration: Duration) -> VirtualInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(duration.wholeNanoseconds)
        if overflow { return duration < .zero ? VirtualInstant(nanoseconds: .min) : .distantFuture }
        return VirtualInstant(nanoseconds: sum)
    }

    /// The duration from this instant to `other`.
    public func duration(to other: VirtualInstant) -> Duration {
        .nanoseconds(other.nanoseconds - nanoseconds)
    }

    /// Earlier instants come first.
    public static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// Seconds with up to nine decimals and no trailing zeros, e.g. `30s`, `0.5s`, `0.000000001s`.
    public var description: String {
        formatNanoseconds(nanoseconds)
    }
}

func formatNanoseconds(_ value: Int64) -> String {
    if value == .max { return "∞" }
    let sign = value < 0 ? "-" : ""
    let magnitude = value.magnitude
    let seconds = magnitude / 1_000_000_000
    let fraction = magnitude % 1_000_000_000
    guard fraction != 0 else { return "\(sign)\(seconds)s" }
    var digits = String(fraction)
    digits = String(repeating: "0", count: 9 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(sign)\(seconds).\(digits)s"
}
