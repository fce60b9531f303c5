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

    /// This duration in seconds as a `Double` (for `TimeInterval`-based APIs).
    public var timeInterval: Double {
        Double(wholeNanoseconds) / 1_000_000_000
    }
}
