import Testing
import TapedeckScenarios

@Suite("Explore: the progress line")
struct ExploreProgressTests {
    /// True when `text` holds no control character but newlines.
    private func plain(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == "\n" || ($0.value >= 0x20 && $0.value != 0x7F) }
    }

    @Test("without a terminal: a plain line (no control characters) once per interval, with done/total, rate, failures and ETA")
    func plainLines() {
        var progress = ExploreProgress(total: 1_000, terminal: false, interval: 5, start: 100)
        #expect(progress.update(done: 10, failed: 0, now: 101) == nil, "not before the interval")
        #expect(progress.update(done: 60, failed: 0, now: 104.9) == nil)
        let line = progress.update(done: 100, failed: 2, now: 105)
        #expect(line == "explore: 100/1000 seeds (10%), 20.0 seeds/s, 2 failed, ETA 45s\n")
        #expect(progress.update(done: 150, failed: 2, now: 109) == nil, "the interval counts from the last line")
        #expect(progress.update(done: 400, failed: 3, now: 125) == "explore: 400/1000 seeds (40%), 16.0 seeds/s, 3 failed, ETA 38s\n")
        let last = progress.finish(done: 1_000, failed: 3, now: 180)
        #expect(last == "explore: 1000/1000 seeds (100%), 12.5 seeds/s, 3 failed, done in 1m20s\n")
        #expect([line, last].allSatisfy { plain($0 ?? "") })
    }

    @Test("on a terminal: the bar redraws in place (carriage return, erase line), at most ten times a second, and ends with a newline")
    func terminalBar() {
        var progress = ExploreProgress(total: 10, terminal: true, start: 0)
        let first = progress.update(done: 0, failed: 0, now: 0) ?? ""
        #expect(first.hasPrefix("\r\u{1B}[K") && !first.contains("\n"))
        #expect(progress.update(done: 1, failed: 0, now: 0.05) == nil)
        let half = progress.update(done: 5, failed: 1, now: 2)
        #expect(half == "\r\u{1B}[K" + String(repeating: "█", count: 15) + String(repeating: "░", count: 15)
                + " 5/10 seeds (50%), 2.5 seeds/s, 1 failed, ETA 2s")
        #expect(progress.finish(done: 10, failed: 1, now: 4).hasSuffix("10/10 seeds (100%), 2.5 seeds/s, 1 failed, done in 4.0s\n"))
        var quick = ExploreProgress(total: 3, terminal: false, start: 0)
        #expect(quick.finish(done: 3, failed: 0, now: 1.19).hasSuffix("done in 1.2s\n"), "time taken is not rounded up")
    }

    @Test("an interval of zero writes a line for every update; an unknown rate shows ETA ?")
    func zeroInterval() {
        var progress = ExploreProgress(total: 3, terminal: false, interval: 0, start: 7)
        #expect(progress.update(done: 0, failed: 0, now: 7) == "explore: 0/3 seeds (0%), 0.0 seeds/s, 0 failed, ETA ?\n")
        #expect(progress.update(done: 1, failed: 0, now: 7) != nil)
    }
}
