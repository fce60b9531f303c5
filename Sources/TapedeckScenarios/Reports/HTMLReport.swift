/// One self-contained HTML page for a run (no network fetches): the verdict, the SVG timeline,
/// the requests' outcomes, the faults that fired and the failed checks with their reproduction.
public struct HTMLReport: Sendable {
    public let outcome: Outcome

    /// A report of `outcome`.
    public init(_ outcome: Outcome) {
        self.outcome = outcome
    }

    /// The page.
    public func render() -> String {
        let e = SVGTimeline.escape
        var rows = ""
        for request in outcome.requests {
            let result = request.result
            rows += "<tr class=\"request\" data-request=\"\(e(request.name))\"><td>\(e(request.name))</td><td>\(e(request.method)) \(e(request.url))</td><td>\(e(result))</td><td>\(request.attempts)</td><td>\(TextTimeline.format(request.startNanoseconds))</td><td>\(request.endNanoseconds.map(TextTimeline.format) ?? "never")</td><td>\(e(request.faults.joined(separator: "; ")))</td></tr>\n"
        }
        let failures = outcome.failures.map { "<li>\(e($0.description))</li>" }.joined(separator: "\n")
        let faults = outcome.faults.map { "<li>t=\(TextTimeline.format($0.timeNanoseconds)) <b>\(e($0.site))</b> on \(e($0.request ?? "the run")): \(e($0.what))</li>" }.joined(separator: "\n")
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(e(outcome.scenario)) — seed \(outcome.seed)</title>
        <style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}.passed{color:#15803d}.failed{color:#b00020}</style></head>
        <body>
        <h1>\(e(outcome.scenario)) <small>seed \(outcome.seed)</small></h1>
        <p class="\(outcome.passed ? "passed" : "failed")">\(outcome.passed ? "Every check held." : "\(outcome.failures.count) check(s) failed.") \(TextTimeline.format(outcome.virtualNanoseconds)) of virtual time; trace hash <code>\(outcome.traceHash)</code>.</p>
        \(SVGTimeline(outcome.timeline).render())
        <h2>Requests</h2>
        <table><tr><th>request</th><th>what</th><th>result</th><th>attempts</th><th>start</th><th>end</th><th>faults</th></tr>
        \(rows)</table>
        \(outcome.faults.isEmpty ? "" : "<h2>Faults</h2><ul>\n\(faults)</ul>")
        \(outcome.failures.isEmpty ? "" : "<h2>Failed checks</h2><ul class=\"failures\">\n\(failures)</ul><p>Reproduce: <code>\(e(outcome.reproduction))</code></p>")
        </body></html>
        """
    }
}
