/// The progress line of an exploration, as a value: feed it the count of seeds done and failed with
/// the time (seconds from any origin; tests pass their own), and it says what to write, if anything.
/// On a terminal it redraws one bar in place (at most ten times a second); elsewhere (CI, a pipe)
/// it writes a plain line every `interval` seconds, with no control characters.
///
/// ```swift
/// var progress = ExploreProgress(total: 1_000, terminal: false, interval: 5, start: 0)
/// if let text = progress.update(done: 120, failed: 1, now: 6) { write(text) }
/// // "explore: 120/1000 seeds (12%), 20.0 seeds/s, 1 failed, ETA 44s\n"
/// ```
public struct ExploreProgress: Sendable {
    /// Seeds to run.
    public let total: Int
    /// Whether to draw a bar in place (a terminal) or write plain lines.
    public let terminal: Bool
    /// Seconds between plain lines.
    public let interval: Double
    private let start: Double
    private var lastDrawn: Double
    private var drawnOnce = false

    /// Progress over `total` seeds, started at `start` seconds.
    public init(total: Int, terminal: Bool, interval: Double = 5, start: Double) {
        self.total = total
        self.terminal = terminal
        self.interval = interval
        self.start = start
        self.lastDrawn = start
    }

    /// What to write now that `done` seeds have run and `failed` have failed, or nil when it is
    /// not yet time to write.
    public mutating func update(done: Int, failed: Int, now: Double) -> String? {
        let wait = terminal ? 0.1 : interval
        guard now - lastDrawn >= wait || (terminal && !drawnOnce) else { return nil }
        lastDrawn = now
        drawnOnce = true
        return render(done: done, failed: failed, now: now)
    }

    /// The last word once every seed has run: the final bar with a newline (terminal) or a
    /// final plain line.
    public mutating func finish(done: Int, failed: Int, now: Double) -> String {
        render(done: done, failed: failed, now: now) + (terminal ? "\n" : "")
    }

    private func render(done: Int, failed: Int, now: Double) -> String {
        let elapsed = max(now - start, 0)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : nil
        let percent = total > 0 ? done * 100 / total : 100
        let eta = done >= total ? "done in \(Self.elapsed(elapsed))" : "ETA \(remaining.map(Self.duration) ?? "?")"
        let numbers = "\(done)/\(total) seeds (\(percent)%), \(Self.oneDecimal(rate)) seeds/s, \(failed) failed, \(eta)"
        guard terminal else { return "explore: \(numbers)\n" }
        let width = 30
        let filled = total > 0 ? done * width / total : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return "\r\u{1B}[K\(bar) \(numbers)"
    }

    /// Time taken: tenths of a second under a minute (a 1.19 s run is not "done in 2s"), else as
    /// ``duration(_:)`` gives it.
    static func elapsed(_ seconds: Double) -> String {
        seconds < 59.95 ? "\(oneDecimal(max(0, seconds)))s" : duration(seconds.rounded())
    }

    /// Time still to go, rounded up to whole seconds (an estimate should not promise too soon).
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole)s" }
        if whole < 3_600 { return "\(whole / 60)m\(whole % 60)s" }
        return "\(whole / 3_600)h\(whole % 3_600 / 60)m"
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
