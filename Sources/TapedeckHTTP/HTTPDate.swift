public import Foundation

/// HTTP's date format, the IMF-fixdate of RFC 9110 §5.6.7 (`Date`, `Retry-After`, `Expires`):
/// written by the fault catalogue and the socket server, read by `RetryPolicy`.
///
/// ```swift
/// HTTPDate.string(from: Date(timeIntervalSince1970: 1_767_225_602))   // "Thu, 01 Jan 2026 00:00:02 GMT"
/// HTTPDate.date(from: "Thu, 01 Jan 2026 00:00:02 GMT")                // that instant
/// ```
public enum HTTPDate {
    /// `date` as an IMF-fixdate.
    public static func string(from date: Date) -> String {
        formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'").string(from: date)
    }

    /// The instant an IMF-fixdate names (nil when `text` is not one).
    public static func date(from text: String) -> Date? {
        formatter("EEE, dd MMM yyyy HH:mm:ss zzz").date(from: text)
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
