/// A timeline as a standalone SVG image: one lane per request, attempts as bars (red when they
/// failed), waits as dashed lines, faults as triangles, cancels as crosses, the end as a tick; a
/// time axis with ticks. Every lane is a `<g class="lane" data-request="NAME">`.
public struct SVGTimeline: Sendable {
    public let timeline: Timeline
    /// The image's width in pixels.
    public let width: Int

    /// A renderer for `timeline`.
    public init(_ timeline: Timeline, width: Int = 960) {
        self.timeline = timeline
        self.width = width
    }

    static let laneHeight = 28
    static let labelWidth = 170
    static let resultWidth = 90

    /// The SVG document.
    public func render() -> String {
        let plotLeft = Self.labelWidth
        let plotWidth = max(100, width - Self.labelWidth - Self.resultWidth)
        let height = 40 + timeline.lanes.count * Self.laneHeight + 30
        let total = Double(max(timeline.durationNanoseconds, 1))
        func x(_ nanoseconds: Int64) -> Int { plotLeft + Int((Double(nanoseconds) / total * Double(plotWidth)).rounded()) }
        var parts: [String] = []
        parts.append(##"<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" font-family="system-ui, sans-serif" font-size="12">"##)
        parts.append("<title>Timeline: \(timeline.lanes.count) requests over \(TextTimeline.format(timeline.durationNanoseconds)) of virtual time</title>")
        for (index, lane) in timeline.lanes.enumerated() {
            let top = 30 + index * Self.laneHeight
            let middle = top + Self.laneHeight / 2
            parts.append(##"<g class="lane" data-request="\##(Self.escape(lane.name))" data-passed="\##(lane.passed)">"##)
            if index % 2 == 0 {
                parts.append(##"<rect x="0" y="\##(top)" width="\##(width)" height="\##(Self.laneHeight)" fill="#f6f7f9"/>"##)
            }
            parts.append(##"<text x="8" y="\##(middle + 4)" fill="\##(lane.passed ? "#222" : "#b00020")">\##(Self.escape(lane.name))\##(lane.passed ? "" : " ✗")</text>"##)
            for span in lane.spans {
                let from = x(span.startNanoseconds), to = max(from + 2, x(span.endNanoseconds))
                switch span.kind {
                case .backoff:
                    parts.append(##"<line class="backoff" x1="\##(from)" y1="\##(middle)" x2="\##(to)" y2="\##(middle)" stroke="#888" stroke-dasharray="4 3"><title>backoff \##(TextTimeline.format(span.endNanoseconds - span.startNanoseconds))</title></line>"##)
                case .attempt:
                    let color = span.failed ? "#d9534f" : "#3b82f6"
                    parts.append(##"<rect class="attempt" x="\##(from)" y="\##(top + 6)" width="\##(to - from)" height="\##(Self.laneHeight - 12)" rx="3" fill="\##(color)"><title>\##(Self.escape(span.label)) (\##(TextTimeline.format(span.startNanoseconds))–\##(TextTimeline.format(span.endNanoseconds)))</title></rect>"##)
                }
            }
            for mark in lane.marks {
                let at = x(mark.timeNanoseconds)
                switch mark.kind {
                case .fault:
                    parts.append(##"<path class="fault" d="M\##(at) \##(top + 2) l5 8 h-10 z" fill="#f59e0b"><title>\##(Self.escape(mark.label)) @ \##(TextTimeline.format(mark.timeNanoseconds))</title></path>"##)
                case .cancel:
                    parts.append(##"<path class="cancel" d="M\##(at - 5) \##(middle - 5) l10 10 M\##(at + 5) \##(middle - 5) l-10 10" stroke="#111" stroke-width="2"><title>cancel @ \##(TextTimeline.format(mark.timeNanoseconds))</title></path>"##)
                case .finish:
                    parts.append(##"<line class="finish" x1="\##(at)" y1="\##(top + 4)" x2="\##(at)" y2="\##(top + Self.laneHeight - 4)" stroke="#111" stroke-width="2"><title>\##(Self.escape(mark.label)) @ \##(TextTimeline.format(mark.timeNanoseconds))</title></line>"##)
                }
            }
            parts.append(##"<text x="\##(plotLeft + plotWidth + 8)" y="\##(middle + 4)" fill="#333">\##(Self.escape(lane.result))</text>"##)
            parts.append("</g>")
        }
        let axis = 30 + timeline.lanes.count * Self.laneHeight + 6
        parts.append(##"<line x1="\##(plotLeft)" y1="\##(axis)" x2="\##(plotLeft + plotWidth)" y2="\##(axis)" stroke="#444"/>"##)
        for tick in 0...4 {
            let nanoseconds = Int64(Double(timeline.durationNanoseconds) * Double(tick) / 4)
            let at = x(nanoseconds)
            parts.append(##"<line x1="\##(at)" y1="\##(axis)" x2="\##(at)" y2="\##(axis + 5)" stroke="#444"/><text x="\##(at)" y="\##(axis + 18)" text-anchor="middle" fill="#444">\##(TextTimeline.format(nanoseconds))</text>"##)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
