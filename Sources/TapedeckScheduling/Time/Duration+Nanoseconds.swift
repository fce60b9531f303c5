import Foundation

extension Duration {
    /// This duration in whole nanoseconds, rounded toward zero and clamped to `Int64`'s range.
    ///
    /// The scheduler's timeline has nanosecond resolution; finer parts of a `Duration` are dropped.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// A duration from a `TimeInterval`-style number of seconds, rounded to whole nanoseconds.
    ///
    /// Alamofire-shaped APIs speak seconds as `Double` (`.retryWithDelay(0.5)`); this keeps the
    /// conversion in one place so the same delay always lands on the same nanosecond.
    public static func seconds(rounding seconds: Double) -> Duration {
        let nanos = (seconds * 1_000_000_000).rounded()
        if nanos >= Double(Int64.max) { return .nanoseconds(Int64.max) }
        if nanos <= Double(Int64.min) { return .nanoseconds(Int64.min) }
        return .nanoseconds(Int64(nanos))
    }

    /// The duration as traces, timelines and reports print it: `1.25s`, `830ms`, `79.886ms`,
    /// `12µs`, `2m3s`, `1h30m59.5s` (from 2 minutes on: hours, minutes and seconds, the zero ones
    /// left out, the seconds to the millisecond; below that, three decimals at most).
    ///
    /// ```swift
    /// Duration.milliseconds(79.886).compactText   // "79.886ms"
    /// ```
    public var compactText: String {
        let nanoseconds = wholeNanoseconds
        if nanoseconds == 0 { return "0s" }
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let seconds = Double(magnitude) / 1e9
        func trimmed(_ value: Double) -> String {
            var text = String(format: "%.3f", value)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
        if seconds >= 120 {
            let milliseconds = (magnitude + 500_000) / 1_000_000
            let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60, rest = milliseconds % 60_000
            var text = hours > 0 ? "\(hours)h" : ""
            if minutes > 0 { text += "\(minutes)m" }
            if rest > 0 { text += trimmed(Double(rest) / 1_000) + "s" }
            return sign + text
        }
        if seconds >= 1 { return sign + trimmed(seconds) + "s" }
        if seconds >= 0.001 { return sign + trimmed(seconds * 1_000) + "ms" }
        return sign + trimmed(seconds * 1_000_000) + "µs"
    }

    /// This duration in seconds as a `Double` (for `TimeInterval`-based APIs).
    public var timeInterval: Double {
        Double(wholeNanoseconds) / 1_000_000_000
    }
}
