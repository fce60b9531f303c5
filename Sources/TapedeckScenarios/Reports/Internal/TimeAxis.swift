/// A virtual-time axis with round ticks: the step is 1, 2 or 5 times a power of ten (in
/// nanoseconds up to tens of seconds, then whole minutes, hours and days), the axis ends at the first tick at or
/// after the run's end, and every label uses one unit (`0`, `0.5s`, `1s`, `1.5s`).
///
/// Integer arithmetic only, so the same duration gives the same ticks on every machine.
struct TimeAxis: Equatable {
    /// The distance between ticks (nanoseconds).
    let step: Int64
    /// The end of the axis: a multiple of `step`, at least the duration (but for a clock at its
    /// very end, where no multiple that large fits in `Int64`).
    let end: Int64

    /// An axis for `duration` nanoseconds with at most `maxTicks` intervals.
    init(duration: Int64, maxTicks: Int) {
        // A run that took no virtual time has one tick, 0.
        guard duration > 0 else {
            step = 1
            end = 0
            return
        }
        let intervals = Int64(max(1, maxTicks))
        var chosen = Self.steps.last!
        for step in Self.steps where step.multipliedReportingOverflow(by: intervals).partialValue >= duration {
            chosen = step
            break
        }
        if chosen.multipliedReportingOverflow(by: intervals).partialValue < duration {
            // Longer than the steps go (the reader allows a billion seconds): whole days, as few
            // as keep the intervals within the limit.
            let perInterval = duration / intervals + (duration % intervals > 0 ? 1 : 0)
            chosen = (perInterval / Self.day + (perInterval % Self.day > 0 ? 1 : 0)) * Self.day
        }
        step = chosen
        let (quotient, remainder) = duration.quotientAndRemainder(dividingBy: chosen)
        let (rounded, overflow) = (quotient + (remainder > 0 ? 1 : 0)).multipliedReportingOverflow(by: chosen)
        // A clock at its very end (a wait past its range, from a client's own code): the axis stops
        // at the last whole step, and what lies beyond is drawn at its edge.
        end = overflow ? quotient * chosen : rounded
    }

    /// Every tick from zero to the end.
    var ticks: [Int64] {
        stride(from: Int64(0), through: end, by: Int(step)).map { $0 }
    }

    private static let minute: Int64 = 60_000_000_000
    private static let hour = 60 * minute
    private static let day = 24 * hour

    /// Nice steps from a nanosecond to ten thousand days: 1-2-5 below a minute, then 1, 2, 5, 10,
    /// 15, 30 minutes, 1, 2, 5, 10, 24 hours, and 1-2-5 days.
    private static let steps: [Int64] = {
        var steps: [Int64] = []
        var power: Int64 = 1
        while power <= 10_000_000_000 {
            steps += [power, 2 * power, 5 * power]
            power *= 10
        }
        let minute: Int64 = 60_000_000_000
        steps += [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1_440].map { $0 * minute }
        steps += [2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000].map { $0 * day }
        return steps
    }()

    /// A tick's label in the axis's unit: `0`, `250ms`, `1.5s`, `20s` (on a minutes axis), `2m`,
    /// `2m30s`, `5h`, `1h30m`, `3d`.
    func label(_ nanoseconds: Int64) -> String {
        if nanoseconds == 0 { return "0" }
        let minute = Self.minute, hour = Self.hour, day = Self.day
        if end >= 2 * day && step % day == 0 { return "\(nanoseconds / day)d" }
        if end >= 2 * hour && step % minute == 0 {
            let hours = nanoseconds / hour, minutes = (nanoseconds % hour) / minute
            return minutes == 0 ? "\(hours)h" : hours == 0 ? "\(minutes)m" : "\(hours)h\(minutes)m"
        }
        if end >= 2 * minute && step % 1_000_000_000 == 0 {
            let minutes = nanoseconds / minute, seconds = (nanoseconds % minute) / 1_000_000_000
            return seconds == 0 ? "\(minutes)m" : minutes == 0 ? "\(seconds)s" : "\(minutes)m\(seconds)s"
        }
        let (unit, scale): (String, Int64) = end >= 1_000_000_000 ? ("s", 1_000_000_000)
            : end >= 1_000_000 ? ("ms", 1_000_000) : end >= 1_000 ? ("µs", 1_000) : ("ns", 1)
        return Self.decimal(nanoseconds, scale: scale) + unit
    }

    /// `value / scale` in decimal, trailing zeros dropped (ticks are multiples of the step, so
    /// they need no more decimals than it does).
    private static func decimal(_ value: Int64, scale: Int64) -> String {
        let whole = value / scale
        var fraction = value % scale
        guard fraction != 0 else { return "\(whole)" }
        var digits = ""
        var unit = scale / 10
        while unit > 0 && fraction > 0 {
            digits += "\(fraction / unit)"
            fraction %= unit
            unit /= 10
        }
        return "\(whole).\(digits)"
    }
}
