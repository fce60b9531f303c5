/// A timeline drawn in text for a terminal: one lane per request on a virtual-time axis that fits
/// `width` columns.
///
/// ```
/// items#1  ▕███░░░░░░███▏ 200   ███ attempt   ░ backoff   ! fault   x cancel
/// ```
/// Attempts are `█` (`▓` when the attempt failed), backoffs between attempts `·`, waits for a
/// token refresh between attempts `~`, faults `!`, cancels `x`, the end `|`.
public struct TextTimeline: Sendable {
    /// What is drawn.
    public let timeline: Timeline
    /// The total width in columns (at least 40).
    public let width: Int

    /// A renderer for `timeline` in `width` columns (80 and 120 are the usual terminals).
    public init(_ timeline: Timeline, width: Int = 100) {
        self.timeline = timeline
        self.width = max(40, width)
    }

    /// The lanes, an axis and a legend, one line each.
    public func render() -> String {
        // Names give way first on a narrow width (down to 6 columns), so the lines fit it.
        let nameWidth = min(24, max(6, width - 34), max(6, timeline.lanes.map { Self.columns($0.name) }.max() ?? 6))
        // Results get the room they need as long as the chart keeps at least 30 columns.
        let resultWidth = min(max(14, width - nameWidth - 36), max(4, timeline.lanes.map(\.result.count).max() ?? 4))
        let columns = max(10, width - nameWidth - resultWidth - 6)
        let total = Double(max(timeline.durationNanoseconds, 1))
        func column(_ nanoseconds: Int64) -> Int {
            min(columns - 1, max(0, Int((Double(nanoseconds) / total * Double(columns - 1)).rounded(.down))))
        }
        var lines: [String] = []
        for lane in timeline.lanes {
            var cells = Array(repeating: Character(" "), count: columns)
            // Attempts first, each from the column after the last one's end and one more (so that
            // attempts shorter than a column stay apart and every one is seen), then the waits
            // fill the empty columns between the attempts around them.
            var placed: [(start: Int64, end: Int64, from: Int, to: Int)] = []
            var nextFree = 0
            for span in lane.spans.filter({ $0.kind == .attempt }).sorted(by: { $0.startNanoseconds < $1.startNanoseconds }) {
                let from = min(columns - 1, max(column(span.startNanoseconds), nextFree))
                let to = min(columns - 1, max(from, column(span.endNanoseconds)))
                for index in from...to { cells[index] = span.failed ? "▓" : "█" }
                placed.append((span.startNanoseconds, span.endNanoseconds, from, to))
                nextFree = to + 2
            }
            // A mark goes where its instant falls among the attempts as drawn (pushed right), so a
            // cancel after four short retries is drawn after them, not over the first.
            func markColumn(_ nanoseconds: Int64) -> Int {
                var index = column(nanoseconds)
                for attempt in placed where attempt.start <= nanoseconds {
                    if nanoseconds > attempt.end {
                        index = max(index, attempt.to + 1)
                    } else {
                        index = min(max(index, attempt.from), attempt.to)
                    }
                }
                return min(columns - 1, index)
            }
            for span in lane.spans where span.kind != .attempt {
                let before = placed.last { $0.start <= span.startNanoseconds }
                let after = placed.first { $0.start >= span.endNanoseconds }
                let from = before.map { $0.to + 1 } ?? column(span.startNanoseconds)
                let to = after.map { $0.from - 1 } ?? column(span.endNanoseconds)
                guard from <= to, from < columns else { continue }
                for index in from...min(to, columns - 1) where cells[index] == " " { cells[index] = span.kind == .backoff ? "·" : "~" }
            }
            for mark in lane.marks {
                let index = markColumn(mark.timeNanoseconds)
                switch mark.kind {
                case .fault: cells[index] = "!"
                case .cancel: cells[index] = "x"
                case .finish: if cells[index] == " " { cells[index] = "|" }
                }
            }
            let name = pad(Self.elided(lane.name, toWidth: nameWidth), nameWidth)
            let status = lane.passed ? " " : "✗"
            // A result cut short says so (`validation aft…`): a cut `503` must not read as `5`.
            let result = lane.result.count > resultWidth ? lane.result.prefix(resultWidth - 1) + "…" : lane.result
            lines.append("\(name) \(status)▕\(String(cells))▏ \(result)")
        }
        let axisStart = "0"
        let axisEnd = Self.format(timeline.durationNanoseconds)
        let gap = max(1, columns - axisStart.count - axisEnd.count)
        lines.append(pad("", nameWidth) + "   " + axisStart + String(repeating: " ", count: gap) + axisEnd)
        // The legend under the lanes, from the axis's first column, wrapped to the width (from the
        // first column when the names leave too little room).
        // A refresh wait is named only when one is drawn.
        let refreshWaits = timeline.lanes.contains { $0.spans.contains { $0.kind == .refreshWait } }
        let legend = ["█ attempt", "▓ failed attempt", "· backoff"] + (refreshWaits ? ["~ refresh wait"] : [])
            + ["! fault", "x cancel", "| end", "✗ failed check"]
        let indent = nameWidth + 3 <= width / 3 ? pad("", nameWidth) + "   " : ""
        var line = ""
        for item in legend {
            if !line.isEmpty && indent.count + line.count + 2 + item.count > width {
                lines.append(indent + line)
                line = ""
            }
            line += (line.isEmpty ? "" : "  ") + item
        }
        lines.append(indent + line)
        return lines.joined(separator: "\n")
    }

    /// A lane's name cut to `width` characters, saying so with `…`, and keeping a repeat's `#N`
    /// suffix: the repeats of one long-named step differ only there (`this-is-a-lo…#1`, `…#2`).
    static func elided(_ name: String, toWidth width: Int) -> String {
        guard columns(name) > width else { return name }
        guard width > 1 else { return prefix(name, columns: width) }
        let suffix = Self.repeatSuffix(of: name)
        if !suffix.isEmpty, width > suffix.count + 1 {
            return prefix(name, columns: width - 1 - suffix.count) + "…" + suffix
        }
        return prefix(name, columns: width - 1) + "…"
    }

    /// `#12` of `name#12` (empty when the name has no repeat number).
    static func repeatSuffix(of name: String) -> String {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, name.dropLast(digits.count).last == "#" else { return "" }
        return "#" + String(digits.reversed())
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let used = Self.columns(text)
        return used >= width ? text : text + String(repeating: " ", count: width - used)
    }

    /// The columns a terminal gives `text`: two for a wide character (CJK, Hangul, full-width
    /// forms, an emoji shown as one), one for any other (a combining mark goes with its character).
    static func columns(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns($1) }
    }

    static func columns(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.isEmojiPresentation || scalars.contains("\u{FE0F}") { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// The longest start of `text` that fits `width` columns.
    static func prefix(_ text: String, columns width: Int) -> String {
        var used = 0
        var kept = ""
        for character in text {
            let needed = columns(character)
            if used + needed > width { break }
            used += needed
            kept.append(character)
        }
        return kept
    }

    /// `1.25s`, `830ms`, `2m3s`, `1h`, `1h30m59.5s` (from 2 minutes on: hours, minutes and
    /// seconds, the zero ones left out, the seconds to the millisecond).
    static func format(_ nanoseconds: Int64) -> String {
        Duration.nanoseconds(nanoseconds).compactText
    }
}
