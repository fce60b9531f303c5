public import Foundation
import TapedeckScheduling

/// HTTP's date format, the IMF-fixdate of RFC 9110 §5.6.7 (`Date`, `Retry-After`, `Expires`):
/// written by the fault catalogue and the socket server, read by `RetryPolicy`.
///
/// ```swift
/// HTTPDate.string(from: Date(timeIntervalSince1970: 1_767_225_602))   // "Thu, 01 Jan 2026 00:00:02 GMT"
/// HTTPDate.date(from: "Thu, 01 Jan 2026 00:00:02 GMT")                // that instant
/// ```
public enum HTTPDate {
    /// The `Date` and `Retry-After` fields of a response sent at `now` that asks the client to
    /// come back `after` it, as a server writes them: `Date` is `now` in whole seconds (rounded
    /// down, as the field holds no fraction) and `Retry-After` that `Date` plus `after` in whole
    /// seconds (a fraction rounds up, as `Retry-After: N` seconds does), so a client measuring from
    /// the `Date` waits exactly the whole seconds asked.
    ///
    /// ```swift
    /// HTTPDate.retryAfterFields(now: Date(timeIntervalSince1970: 1_767_225_602.058), after: .seconds(5))
    /// // ("Thu, 01 Jan 2026 00:00:02 GMT", "Thu, 01 Jan 2026 00:00:07 GMT")
    /// ```
    public static func retryAfterFields(now: Date, after: Duration) -> (date: String, retryAfter: String) {
        let sent = now.timeIntervalSince1970.rounded(.down)
        let wait = max(0, after.timeInterval).rounded(.up)
        return (string(from: Date(timeIntervalSince1970: sent)), string(from: Date(timeIntervalSince1970: sent + wait)))
    }

    /// `date` as an IMF-fixdate.
    public static func string(from date: Date) -> String {
        formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'").string(from: date)
    }

    /// The instant an HTTP date names, in any of the three forms RFC 9110 §5.6.7 says a
    /// recipient must accept: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
    /// form (`Sunday, 06-Nov-94 08:49:37 GMT`) and C's asctime (`Sun Nov  6 08:49:37 1994`); nil
    /// for anything else.
    public static func date(from text: String) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let date = formatter("EEE, dd MMM yyyy HH:mm:ss zzz").date(from: text) { return date }
        if let date = formatter("EEEE, dd-MMM-yy HH:mm:ss zzz").date(from: text) { return date }
        // asctime pads a one-digit day with a space: one space between the fields is the same date.
        let single = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return formatter("EEE MMM d HH:mm:ss yyyy").date(from: single)
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    /// `date` in ISO 8601 with milliseconds, in UTC (`2026-01-01T00:00:02.000Z`): HAR's
    /// `startedDateTime`. Computed directly (a formatter per call costs ~100 µs on Linux, a
    /// recording proxy writes one per exchange); rounded to the nearest millisecond, dates before 1970
    /// clamped to it.
    public static func iso8601(from date: Date) -> String {
        let milliseconds = max(0, Int((date.timeIntervalSince1970 * 1_000).rounded()))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let seconds = dayMilliseconds / 1_000
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(seconds / 3_600, 2)):\(padded(seconds / 60 % 60, 2)):\(padded(seconds % 60, 2)).\(padded(dayMilliseconds % 1_000, 3))Z"
    }
}
