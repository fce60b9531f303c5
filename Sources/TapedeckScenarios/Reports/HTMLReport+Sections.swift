/// The sections of the page.
extension HTMLReport {
    /// The scenario's name and verdict, its file, and the run's numbers.
    func header() -> [String] {
        let e = Markup.escape
        var parts: [String] = []
        parts.append(#"<header><h1>\#(e(outcome.scenario))<span class="verdict">\#(outcome.passed ? "passed" : "failed")</span></h1>"#)
        if !outcome.file.isEmpty {
            parts.append(#"<p class="file mono">\#(e(outcome.file))</p>"#)
        }
        let failedRequests = Set(outcome.failures.compactMap(\.request)).count
        let facts: [(String, String)] = [
            ("seed", "\(outcome.seed)"),
            (outcome.requests.count == 1 ? "request" : "requests", "\(outcome.requests.count)" + (failedRequests > 0 ? " (\(failedRequests) failed a check)" : "")),
            ("virtual time", TextTimeline.format(outcome.virtualNanoseconds)),
            (outcome.faults.count == 1 ? "fault fired" : "faults fired", "\(outcome.faults.count)"),
            (outcome.failures.count == 1 ? "check failed" : "checks failed", "\(outcome.failures.count)"),
            ("jobs", "\(outcome.jobs)"),
            ("trace hash", outcome.traceHash),
        ]
        parts.append(#"<ul class="facts">"# + facts.map { #"<li><b\#($0.0 == "trace hash" ? #" class="mono""# : "")>\#(e($0.1))</b><span>\#($0.0)</span></li>"# }.joined() + "</ul>")
        if !outcome.determinismNote.isEmpty {
            parts.append(#"<p class="note">\#(e(outcome.determinismNote))</p>"#)
        }
        parts.append("</header>")
        return parts
    }

    /// The expectations and invariants that did not hold, and the line that reproduces the run.
    func failedChecks() -> [String] {
        guard !outcome.failures.isEmpty else { return [] }
        let e = Markup.escape
        var parts = [#"<section class="checks"><h2>Failed checks</h2><ul class="failures">"#]
        for failure in outcome.failures {
            let subject = failure.request.map { " <code>\(e($0))</code>" } ?? ""
            parts.append(#"<li data-check="\#(e(failure.check))">\#(e(failure.kind.rawValue))\#(subject) <b>\#(e(failure.check))</b>: \#(e(failure.message))</li>"#)
        }
        parts.append("</ul><p>Reproduce this run:</p>")
        parts.append(#"<code class="repro">\#(e(outcome.reproduction))</code></section>"#)
        return parts
    }

    /// One row per request, in script order.
    func requestTable() -> [String] {
        let e = Markup.escape
        let failing = Set(outcome.failures.compactMap(\.request))
        var parts = ["<section><h2>Requests</h2><div class=\"table-scroll\"><table class=\"requests\">",
                     #"<thead><tr><th>request</th><th>what</th><th>result</th><th>attempts</th><th>start</th><th>end</th><th>body</th><th>faults</th></tr></thead><tbody>"#]
        for request in outcome.requests {
            let ending = Ending(label: request.result)
            var result = #"<span class="pill \#(ending.rawValue)">\#(e(request.result))</span>"#
            if request.handlerCalls != 1 {
                result += #" <span class="detail">handler ran \#(request.handlerCalls)×</span>"#
            }
            if let detail = request.errorDetail, !detail.isEmpty {
                // The error's own words, as the text output gives them (not NSError's dump).
                result += #"<div class="detail">\#(e(OutcomeText.reason(detail)))</div>"#
            }
            let failed = failing.contains(request.name)
            let faults = request.faults.isEmpty ? "–" : request.faults.map(e).joined(separator: "<br>")
            parts.append(#"<tr class="request\#(failed ? " failed" : "")" data-request="\#(e(request.name))"><td class="mono">\#(e(request.name))</td><td class="mono what">\#(e(request.method)) <span class="url">\#(e(request.url))</span></td><td class="result">\#(result)</td><td class="num">\#(request.attempts)</td><td class="num">\#(TextTimeline.format(request.startNanoseconds))</td><td class="num">\#(request.endNanoseconds.map(TextTimeline.format) ?? "never")</td><td class="num">\#(request.bodyBytes) B</td><td class="detail">\#(faults)</td></tr>"#)
        }
        parts.append("</tbody></table></div></section>")
        return parts
    }

    /// Every fault that fired, in order, and the sites this seed enabled.
    func faultTable() -> [String] {
        let e = Markup.escape
        var parts = ["<section><h2>Faults fired</h2>"]
        if outcome.faults.isEmpty {
            parts.append(#"<p class="sites">None fired in this run.</p>"#)
        } else {
            parts.append(#"<div class="table-scroll"><table class="faults"><thead><tr><th>at</th><th>site</th><th>request</th><th>attempt</th><th>what</th></tr></thead><tbody>"#)
            for fault in outcome.faults {
                parts.append(#"<tr class="fault"><td class="num">\#(TextTimeline.format(fault.timeNanoseconds))</td><td class="mono">\#(e(fault.site))</td><td class="mono">\#(e(fault.request ?? "–"))</td><td class="num">\#(fault.request == nil ? "–" : String(fault.attempt))</td><td>\#(e(fault.what))</td></tr>"#)
            }
            parts.append("</tbody></table></div>")
        }
        if !outcome.enabledSites.isEmpty {
            parts.append(#"<p class="sites">Sites enabled for seed \#(outcome.seed): \#(outcome.enabledSites.map { "<code>\(e($0))</code>" }.joined(separator: ", "))</p>"#)
        }
        parts.append("</section>")
        return parts
    }
}
