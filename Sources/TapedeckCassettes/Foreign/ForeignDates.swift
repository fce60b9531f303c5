import Foundation
import TapedeckHTTP

/// The dates and durations other tools' cassettes write. One reader serves a whole file: its
/// formatters are made once.
final class ForeignDates {
    /// The start written for an entry whose file gives no time (stubs, Postman examples).
    static let epoch = "1970-01-01T00:00:00.000Z"

    private let iso = ISO8601DateFormatter()
    private let plain: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()

    /// A recording instant as VCR (RFC 1123, `Tue, 01 Nov 2011 04:58:44 GMT`), Betamax
    /// (`2013-08-19T22:34:41`, UTC), Betamax for Java (`2011-08-23T22:41:40.000Z`) or a YAML
    /// timestamp (`2024-01-02 03:04:05.678 Z`, `2024-01-02 03:04:05 +02:00`) writes it.
    func date(_ text: String) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let date = HTTPDate.date(from: text) { return date }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            iso.formatOptions = options
            if let date = iso.date(from: text) { return date }
        }
        // A zone after a space (YAML's timestamp), or none at all (Betamax): read as UTC when absent.
        let formats = ["yyyy-MM-dd HH:mm:ss.SSSSSS xxx", "yyyy-MM-dd HH:mm:ss.SSS xxx", "yyyy-MM-dd HH:mm:ss xxx",
                       "yyyy-MM-dd'T'HH:mm:ss.SSSSSS", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss.SSSSSS",
                       "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss"]
        let trimmed = text.hasSuffix(" Z") ? String(text.dropLast(2)) : text.hasSuffix("Z") ? String(text.dropLast()) : text
        for format in formats {
            plain.dateFormat = format
            if let date = plain.date(from: trimmed) { return date }
        }
        return nil
    }

    /// `date` as HAR's `startedDateTime`.
    static func iso8601(_ date: Date) -> String {
        HTTPDate.iso8601(from: date)
    }

    /// A Go duration as go-vcr writes it: text such as `1.5s`, `150ms`, `2m3.5s`, `300µs`, or a
    /// number of nanoseconds. Nil when it is neither (go-vcr 1 writes an empty string).
    static func goDuration(_ node: ForeignNode) -> Duration? {
        guard let text = node.string?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if case .text(_, .number, _) = node, let nanoseconds = Int64(text) { return nanoseconds >= 0 ? .nanoseconds(nanoseconds) : nil }
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("μs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        var rest = Substring(text)
        var seconds = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard let value = Double(number), !number.isEmpty else { return nil }
            rest = rest.dropFirst(number.count)
            // The longest unit that matches (`ms` before `m`).
            guard let unit = units.filter({ rest.hasPrefix($0.0) }).max(by: { $0.0.count < $1.0.count }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            seconds += value * unit.1
        }
        return seconds.isFinite && seconds < 1e9 ? .seconds(seconds) : nil
    }
}
