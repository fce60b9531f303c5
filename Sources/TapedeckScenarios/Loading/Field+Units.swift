import Foundation

// Values with a unit or a scale: durations (a bare number is seconds, with a doubt noted where
// milliseconds were likely meant), byte counts, per-mille probabilities.
extension Field {
    /// A probability in thousandths, 0 to 1000 (a fault site's `probability` and `enabled`). A
    /// fraction (`0.5`) or `1.0` is refused rather than read as 0 or 1 ‰: it is a probability on
    /// the other scale.
    func perMille() throws(ScenarioError) -> Int {
        let hint = "probabilities count in thousandths (per mille): 1000 is always, 500 half the time, 5 one time in 200"
        // A fraction (`0.5`) or `1.0` (a probability of one) is the other scale; `1000.0` is not.
        if case let .float(_, number)? = value, number.rounded() != number || number == 1 {
            throw error("expected a whole number of thousandths from 0 to 1000, found \(kind)", hint: hint)
        }
        let number: Int
        do throws(ScenarioError) {
            number = try int()
        } catch {
            // A quoted number keeps its own advice; anything else (`50%`) gets the scale.
            if error.hint == "remove the quotes" { throw error }
            throw self.error("expected a whole number of thousandths from 0 to 1000, found \(kind)", hint: hint)
        }
        guard (0...1_000).contains(number) else { throw error("\(number) is out of range (thousandths: 0 to 1000)", hint: hint) }
        return number
    }

    /// A duration: `80ms`, `1.5s`, `2m`, `250us`, `100ns`, or a bare number of seconds; never
    /// negative, at most ``Field/longestDuration``.
    func duration() throws(ScenarioError) -> Duration {
        let text = try numberOrText(what: "a duration", example: "e.g. 80ms or 1.5s")
        switch Self.readDuration(text) {
        case let .success(value):
            // `latency: 200` from a tool that counts milliseconds (Toxiproxy, WireMock) would be
            // 200 seconds here: said, not refused (a bare number is seconds, as documented).
            if Self.isNumber(value: self.value), value >= .seconds(10), !Self.secondsByNature(path) {
                problems?.doubt(error("\(text) is read as \(text) seconds (a bare number is seconds)",
                                      hint: "write \(text)ms for milliseconds, or \(text)s to say seconds and silence this"))
            }
            return value
        case .failure(.negative):
            throw error("'\(text)' is negative: a duration cannot be", hint: "write 0 or more, e.g. 5ms")
        case .failure(.tooLarge):
            throw error("'\(text)' is too large", hint: "at most \(Self.longestDuration.components.seconds)s (about 31 years)")
        case .failure(.notADuration):
            throw error("'\(text)' is not a duration", hint: "write e.g. 80ms, 1.5s, 2m or 250us")
        }
    }

    /// Whether the key at `path` counts in seconds where it comes from — a `Retry-After`, a
    /// URLSession timeout (`timeoutInterval`), a token's lifetime (OAuth's `expires_in`) — so a
    /// bare number there is no slip.
    private static func secondsByNature(_ path: String) -> Bool {
        let key = path.split(separator: ".").last.map(String.init) ?? path
        return ["retryAfter", "retryAfterDate", "retryAfterLimit", "lifetime"].contains(key)
            || path.hasSuffix("timeouts.request") || path.hasSuffix("timeouts.resource")
    }

    /// Whether a core-schema value is a number (not text such as `200ms`).
    private static func isNumber(value: CoreSchema.Value?) -> Bool {
        switch value {
        case .integer?, .float?: return true
        default: return false
        }
    }

    /// A duration more than zero (a timeout: zero would mean none, which a file says by leaving
    /// the key out).
    func positiveDuration(leaveOut hint: String) throws(ScenarioError) -> Duration {
        let value = try duration()
        guard value > .zero else { throw error("0 is no timeout", hint: hint) }
        return value
    }

    /// A byte count: `1500`, `16KB`, `2MB` (1,000-based), `16KiB` (1,024-based).
    func bytes() throws(ScenarioError) -> Int {
        let text = try numberOrText(what: "a byte count", example: "e.g. 1500 or 16KB")
        guard let value = Self.parseBytes(text) else {
            throw error("'\(text)' is not a byte count", hint: "write a whole number of bytes, e.g. 1500, 1.5KB or 2MiB")
        }
        return value
    }
}
