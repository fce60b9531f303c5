import Foundation

/// The parts of the image: the axis and its grid, the lanes, the legend.
extension SVGTimeline {
    /// Tick labels above the plot, a light vertical grid line through every lane at each tick, and
    /// the axis's unit under the name column's header.
    func axis(_ layout: Layout) -> [String] {
        var parts: [String] = [#"<g class="axis">"#]
        let top = Layout.headerHeight - 6, bottom = layout.lanesBottom
        parts.append(#"<text x="\#(Layout.number(Layout.margin))" y="\#(Layout.number(top - 8))" fill="\#(Palette.muted)">request</text>"#)
        parts.append(#"<text x="\#(Layout.number(layout.plotRight + Layout.margin))" y="\#(Layout.number(top - 8))" fill="\#(Palette.muted)">result</text>"#)
        for tick in layout.axis.ticks {
            let x = Layout.number(layout.x(tick))
            let label = Markup.escape(layout.axis.label(tick))
            parts.append(#"<line class="grid" x1="\#(x)" y1="\#(Layout.number(top))" x2="\#(x)" y2="\#(Layout.number(bottom))" stroke="\#(Palette.grid)"/>"#)
            // The last label ends at its tick, clear of the result column's header.
            let anchor = tick == layout.axis.end && tick > 0 ? "end" : "middle"
            parts.append(#"<text class="tick" x="\#(x)" y="\#(Layout.number(top - 8))" text-anchor="\#(anchor)" fill="\#(Palette.axis)">\#(label)</text>"#)
        }
        parts.append(#"<line x1="\#(Layout.number(layout.plotLeft))" y1="\#(Layout.number(top))" x2="\#(Layout.number(layout.plotRight))" y2="\#(Layout.number(top))" stroke="\#(Palette.axis)"/>"#)
        parts.append("</g>")
        return parts
    }

    /// One lane: `<g class="lane" data-lane="NAME">` for a request (`class="lane failed"` when
    /// one of its checks failed), `<g class="support-lane" data-support-lane="NAME">` otherwise.
    func lane(_ lane: Timeline.Lane, index: Int, layout: Layout) -> [String] {
        let top = layout.laneTop(index)
        let middle = top + Double(Layout.laneHeight) / 2
        let name = Markup.escape(lane.name)
        let group = lane.isRequest
            ? #"<g class="lane\#(lane.passed ? "" : " failed")" data-lane="\#(name)" data-passed="\#(lane.passed)">"#
            : #"<g class="support-lane" data-support-lane="\#(name)">"#
        var parts = [group]
        let (shown, _) = Markup.truncated(lane.name, toWidth: layout.nameColumns, keeping: TextTimeline.repeatSuffix(of: lane.name))
        let nameColor = lane.passed ? (lane.isRequest ? Palette.ink : Palette.muted) : Palette.failedCheck
        let check = lane.passed ? "" : #"<tspan class="failed-check" font-weight="bold"> ✗</tspan>"#
        let style = lane.isRequest ? "" : #" font-style="italic""#
        parts.append(#"<text class="name" x="\#(Layout.number(Layout.margin))" y="\#(Layout.number(middle + 4))" font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, monospace" fill="\#(nameColor)"\#(style)><title>\#(name)\#(lane.passed ? "" : " — a check failed")</title>\#(Markup.escape(shown))\#(check)</text>"#)
        var attempt = 0
        for span in lane.spans {
            switch span.kind {
            case .attempt:
                attempt += 1
                parts.append(bar(span, number: attempt, top: top, layout: layout))
            case .backoff, .refreshWait:
                parts.append(wait(span, middle: middle, layout: layout))
            }
        }
        for mark in lane.marks {
            parts.append(self.mark(mark, top: top, middle: middle, layout: layout))
        }
        let ending = Ending(label: lane.result)
        let (result, _) = Markup.truncated(lane.result, toWidth: layout.resultColumns)
        parts.append(#"<text class="result" x="\#(Layout.number(layout.plotRight + Layout.margin))" y="\#(Layout.number(middle + 4))" fill="\#(ending.textColor)" font-weight="600"><title>\#(Markup.escape(lane.result.isEmpty ? "no result" : lane.result))</title>\#(Markup.escape(result))</text>"#)
        parts.append("</g>")
        return parts
    }

    /// An attempt: a bar coloured by how it ended, its label inside when it fits.
    private func bar(_ span: Timeline.Span, number: Int, top: Double, layout: Layout) -> String {
        let from = layout.x(span.startNanoseconds)
        let to = max(from + 3, layout.x(span.endNanoseconds))
        let ending = Ending(label: span.label)
        let title = "attempt \(number): \(span.label.isEmpty ? "no result" : span.label) · \(TextTimeline.format(span.startNanoseconds))–\(TextTimeline.format(span.endNanoseconds)) (\(TextTimeline.format(span.endNanoseconds - span.startNanoseconds)))"
        var text = ""
        let fits = Double(Markup.displayWidth(span.label)) * 6.6 + 8 <= to - from
        if fits && !span.label.isEmpty {
            text = #"<text x="\#(Layout.number((from + to) / 2))" y="\#(Layout.number(top + 21))" text-anchor="middle" fill="\#(Palette.paper)" font-size="11" pointer-events="none">\#(Markup.escape(span.label))</text>"#
        }
        return #"<rect class="attempt\#(span.failed ? " failed" : "")" data-ending="\#(ending.rawValue)" x="\#(Layout.number(from))" y="\#(Layout.number(top + 8))" width="\#(Layout.number(to - from))" height="18" rx="3" fill="\#(ending.color)"><title>\#(Markup.escape(title))</title></rect>"# + text
    }

    /// A wait between attempts: a dashed line with end caps (a backoff), or a dotted one (a wait
    /// for a token refresh).
    private func wait(_ span: Timeline.Span, middle: Double, layout: Layout) -> String {
        let from = layout.x(span.startNanoseconds), to = max(from + 1, layout.x(span.endNanoseconds))
        let y = Layout.number(middle + 2)
        let refresh = span.kind == .refreshWait
        let title = "\(refresh ? "waiting for a token refresh" : "backoff") \(TextTimeline.format(span.endNanoseconds - span.startNanoseconds)) · \(TextTimeline.format(span.startNanoseconds))–\(TextTimeline.format(span.endNanoseconds))"
        let (kind, color, dashes) = refresh ? ("refresh-wait", Palette.refreshWait, "1 3") : ("backoff", Palette.backoff, "4 3")
        return #"<g class="\#(kind)"><title>\#(Markup.escape(title))</title><line x1="\#(Layout.number(from))" y1="\#(y)" x2="\#(Layout.number(to))" y2="\#(y)" stroke="\#(color)" stroke-width="2" stroke-dasharray="\#(dashes)" stroke-linecap="round"/><line x1="\#(Layout.number(to))" y1="\#(Layout.number(middle - 2))" x2="\#(Layout.number(to))" y2="\#(Layout.number(middle + 6))" stroke="\#(color)"/></g>"#
    }

    /// A fault (a diamond above the bars), a cancel (a crossed circle) or the end (a tall tick).
    private func mark(_ mark: Timeline.Mark, top: Double, middle: Double, layout: Layout) -> String {
        let x = layout.x(mark.timeNanoseconds)
        let at = TextTimeline.format(mark.timeNanoseconds)
        switch mark.kind {
        case .fault:
            let title = Markup.escape("fault at \(at): \(mark.label)")
            return #"<path class="fault" d="M\#(Layout.number(x)) \#(Layout.number(top + 1)) l5 5 l-5 5 l-5 -5 z" fill="\#(Palette.fault)" stroke="\#(Palette.paper)" stroke-width="1"><title>\#(title)</title></path>"#
        case .cancel:
            let title = Markup.escape("cancelled at \(at)")
            return #"<g class="cancel"><title>\#(title)</title><circle cx="\#(Layout.number(x))" cy="\#(Layout.number(middle + 2))" r="6" fill="\#(Palette.paper)" stroke="\#(Palette.cancel)" stroke-width="1.5"/><path d="M\#(Layout.number(x - 3.5)) \#(Layout.number(middle - 1.5)) l7 7 M\#(Layout.number(x + 3.5)) \#(Layout.number(middle - 1.5)) l-7 7" stroke="\#(Palette.cancel)" stroke-width="1.5"/></g>"#
        case .finish:
            let title = Markup.escape("ended at \(at): \(mark.label)")
            return #"<line class="end" x1="\#(Layout.number(x))" y1="\#(Layout.number(top + 5))" x2="\#(Layout.number(x))" y2="\#(Layout.number(top + 29))" stroke="\#(Palette.finish)" stroke-width="2"><title>\#(title)</title></line>"#
        }
    }

    /// The legend under the lanes, in as many rows as the width needs.
    func legend(_ layout: Layout) -> [String] {
        var parts: [String] = [#"<g class="legend">"#]
        var y = layout.lanesBottom + 14
        for row in layout.legendRows {
            var x = Layout.margin
            for item in row {
                parts.append(item.swatch(x: x, y: y))
                parts.append(#"<text x="\#(Layout.number(x + 20))" y="\#(Layout.number(y + 12))" fill="\#(Palette.ink)">\#(Markup.escape(item.name))</text>"#)
                x += item.width
            }
            y += 22
        }
        parts.append("</g>")
        return parts
    }
}

/// One entry of the legend: a swatch drawn like the thing it names, and the name.
struct LegendItem {
    enum Swatch {
        case bar(Ending)
        case backoff, refreshWait, fault, cancel, end, failedCheck
    }

    let swatch: Swatch
    let name: String

    /// Everything the image can show, in reading order (a refresh wait only when `refreshWaits`:
    /// few runs have one).
    static func all(refreshWaits: Bool) -> [LegendItem] {
        Ending.allCases.filter { $0 != .none }.map { LegendItem(swatch: .bar($0), name: "attempt: \($0.name)") }
            + [LegendItem(swatch: .backoff, name: "backoff")] + (refreshWaits ? [LegendItem(swatch: .refreshWait, name: "refresh wait")] : [])
            + [LegendItem(swatch: .fault, name: "fault"), LegendItem(swatch: .cancel, name: "cancel"), LegendItem(swatch: .end, name: "end"),
               LegendItem(swatch: .failedCheck, name: "failed check")]
    }

    /// Room the item takes: swatch, gap, name (about 6.6 px a character at 12 px), spacing.
    var width: Double { 20 + Double(Markup.displayWidth(name)) * 6.6 + 18 }

    /// `items` in rows no wider than `width`.
    static func rows(_ items: [LegendItem], width: Double) -> [[LegendItem]] {
        var rows: [[LegendItem]] = [[]]
        var used = 0.0
        for item in items {
            if used + item.width > width && !rows[rows.count - 1].isEmpty {
                rows.append([])
                used = 0
            }
            rows[rows.count - 1].append(item)
            used += item.width
        }
        return rows
    }

    /// The swatch at (`x`, `y`), 16 px wide and 16 high.
    func swatch(x: Double, y: Double) -> String {
        let n = SVGTimeline.Layout.number
        switch swatch {
        case let .bar(ending):
            return #"<rect x="\#(n(x))" y="\#(n(y + 3))" width="16" height="11" rx="2" fill="\#(ending.color)"/>"#
        case .backoff:
            return #"<line x1="\#(n(x))" y1="\#(n(y + 8))" x2="\#(n(x + 16))" y2="\#(n(y + 8))" stroke="\#(Palette.backoff)" stroke-width="2" stroke-dasharray="4 3"/>"#
        case .refreshWait:
            return #"<line x1="\#(n(x))" y1="\#(n(y + 8))" x2="\#(n(x + 16))" y2="\#(n(y + 8))" stroke="\#(Palette.refreshWait)" stroke-width="2" stroke-dasharray="1 3" stroke-linecap="round"/>"#
        case .fault:
            return #"<path d="M\#(n(x + 8)) \#(n(y + 3)) l5 5 l-5 5 l-5 -5 z" fill="\#(Palette.fault)"/>"#
        case .cancel:
            return #"<circle cx="\#(n(x + 8))" cy="\#(n(y + 8))" r="6" fill="\#(Palette.paper)" stroke="\#(Palette.cancel)" stroke-width="1.5"/><path d="M\#(n(x + 4.5)) \#(n(y + 4.5)) l7 7 M\#(n(x + 11.5)) \#(n(y + 4.5)) l-7 7" stroke="\#(Palette.cancel)" stroke-width="1.5"/>"#
        case .end:
            return #"<line x1="\#(n(x + 8))" y1="\#(n(y + 1))" x2="\#(n(x + 8))" y2="\#(n(y + 15))" stroke="\#(Palette.finish)" stroke-width="2"/>"#
        case .failedCheck:
            return #"<rect x="\#(n(x))" y="\#(n(y + 2))" width="16" height="13" fill="\#(Palette.failedBand)" stroke="\#(Palette.failedCheck)" stroke-width="0.5"/><text x="\#(n(x + 8))" y="\#(n(y + 13))" text-anchor="middle" fill="\#(Palette.failedCheck)" font-weight="bold">✗</text>"#
        }
    }
}
