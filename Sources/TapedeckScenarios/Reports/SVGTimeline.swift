import Foundation

/// A timeline as a standalone SVG image: a virtual-time axis with round ticks (1-2-5 steps), one
/// lane per request with its name and result, its attempts as bars coloured by how they ended
/// (ok, error status, transport failure, cancelled), the backoff waits between them as dashed
/// lines (waits for a token refresh dotted), faults as labelled markers, cancels as crossed circles, the end as a tick, and a legend.
/// Every element has a hover title; names too long for their column are cut with `…` and keep the
/// whole name in the title.
///
/// Every request's lane is a `<g class="lane" data-lane="NAME">` (tests and the Chromium check count
/// them). Everything from the scenario file is escaped, and the output depends on the timeline
/// only, so equal timelines give byte-identical images.
///
/// ```swift
/// let svg = SVGTimeline(outcome.timeline, width: 960).render()
/// try Data(svg.utf8).write(to: URL(fileURLWithPath: "timeline.svg"))
/// ```
public struct SVGTimeline: Sendable {
    /// What is drawn.
    public let timeline: Timeline
    /// The image's width in pixels (at least 480).
    public let width: Int

    /// A renderer for `timeline`, `width` pixels wide.
    public init(_ timeline: Timeline, width: Int = 960) {
        self.timeline = timeline
        self.width = max(480, width)
    }

    /// The SVG document.
    public func render() -> String {
        let layout = Layout(timeline: timeline, width: width)
        var svg: [String] = []
        svg.append(#"<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="\#(width)" height="\#(layout.height)" viewBox="0 0 \#(width) \#(layout.height)" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12" role="img" aria-labelledby="timeline-title">"#)
        svg.append(#"<title id="timeline-title">Timeline: \#(timeline.lanes.count) lane\#(timeline.lanes.count == 1 ? "" : "s") over \#(Markup.escape(TextTimeline.format(timeline.durationNanoseconds))) of virtual time</title>"#)
        svg.append(#"<rect class="background" x="0" y="0" width="\#(width)" height="\#(layout.height)" fill="\#(Palette.paper)"/>"#)
        svg += bands(layout)
        svg += axis(layout)
        for (index, lane) in timeline.lanes.enumerated() {
            svg += self.lane(lane, index: index, layout: layout)
        }
        if timeline.lanes.isEmpty {
            svg.append(#"<text x="\#(Layout.number(layout.plotLeft + 8))" y="\#(Layout.number(layout.laneTop(0) + 22))" fill="\#(Palette.muted)">no requests</text>"#)
        }
        svg += legend(layout)
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// The lane backgrounds, behind the grid: alternate lanes tinted, lanes that failed a check pink.
    private func bands(_ layout: Layout) -> [String] {
        timeline.lanes.enumerated().compactMap { index, lane in
            let fill = !lane.passed ? Palette.failedBand : (index % 2 == 0 ? Palette.band : nil)
            return fill.map {
                #"<rect class="band" x="0" y="\#(Layout.number(layout.laneTop(index)))" width="\#(width)" height="\#(Layout.laneHeight)" fill="\#($0)"/>"#
            }
        }
    }
}

extension SVGTimeline {
    /// Where everything goes: the name column, the plot, the result column, the lanes and the legend.
    struct Layout {
        static let laneHeight = 34
        static let headerHeight = 34.0
        static let margin = 12.0
        /// The narrowest result column (19 characters of the bold result text).
        static let minimumResultColumn = 150.0
        /// Advance of one character of the bold result text, with slack.
        static let resultAdvance = 7.9
        /// Advance of one column of the monospaced names (12 px DejaVu Sans Mono: 7.2 px) with slack.
        static let monoAdvance = 7.3

        let width: Int
        let laneCount: Int
        let nameColumn: Double
        let nameColumns: Int
        let plotLeft: Double
        let plotRight: Double
        /// The result column's width, and the characters it shows before cutting with `…`: room
        /// for the longest result (`connectionLost after 200`), within a quarter of the width.
        let resultColumn: Double
        let resultColumns: Int
        let axis: TimeAxis
        let duration: Int64
        let legendRows: [[LegendItem]]

        init(timeline: Timeline, width: Int) {
            self.width = width
            laneCount = timeline.lanes.count
            duration = max(0, timeline.durationNanoseconds)
            let longest = timeline.lanes.map { Markup.displayWidth($0.name) }.max() ?? 0
            // Name, a gap, and the failed-check mark.
            let wanted = Double(longest) * Self.monoAdvance + Self.margin + 26
            nameColumn = min(max(120, wanted), min(280, Double(width) * 0.3)).rounded()
            nameColumns = max(4, Int((nameColumn - Self.margin - 26) / Self.monoAdvance))
            plotLeft = nameColumn + 6
            let longestResult = timeline.lanes.map { Markup.displayWidth($0.result) }.max() ?? 0
            resultColumn = min(max(Self.minimumResultColumn, (Double(longestResult) * Self.resultAdvance).rounded(.up)),
                               max(Self.minimumResultColumn, (Double(width) * 0.25).rounded()))
            resultColumns = max(19, Int(resultColumn / Self.resultAdvance))
            plotRight = Double(width) - resultColumn - Self.margin
            axis = TimeAxis(duration: duration, maxTicks: max(2, Int((plotRight - plotLeft) / 84)))
            let refreshWaits = timeline.lanes.contains { $0.spans.contains { $0.kind == .refreshWait } }
            legendRows = LegendItem.rows(LegendItem.all(refreshWaits: refreshWaits), width: Double(width) - 2 * Self.margin)
        }

        /// The horizontal position of an instant.
        func x(_ nanoseconds: Int64) -> Double {
            let fraction = Double(min(max(nanoseconds, 0), axis.end)) / Double(max(axis.end, 1))
            return plotLeft + fraction * (plotRight - plotLeft)
        }

        /// The top of lane `index`.
        func laneTop(_ index: Int) -> Double {
            Self.headerHeight + Double(index * Self.laneHeight)
        }

        /// The bottom of the last lane (of the plot area when there are none).
        var lanesBottom: Double { laneTop(max(laneCount, 1)) }

        /// The whole image's height.
        var height: Int { Int(lanesBottom + 14 + Double(legendRows.count) * 22 + 6) }

        /// A coordinate as SVG text: one decimal at most (`12`, `12.5`), the same on every machine.
        static func number(_ value: Double) -> String {
            let tenths = Int((value * 10).rounded())
            return tenths % 10 == 0 ? "\(tenths / 10)" : String(format: "%.1f", Double(tenths) / 10)
        }
    }
}
