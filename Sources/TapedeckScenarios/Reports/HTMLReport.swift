/// One self-contained HTML page for a run: the verdict and the run's numbers, the failed checks
/// with the line that reproduces them, the SVG timeline, the requests' outcomes, and the faults
/// that fired. Everything is inline (CSS and SVG; no scripts, fonts or images), so the page makes
/// no network request and can be attached to a bug report or a CI run as one file.
///
/// Every request's row is a `<tr class="request" data-request="NAME">` and every request's lane a
/// `<g class="lane" data-lane="NAME">`; lanes and rows of requests whose checks failed carry the
/// class `failed`. Text from the scenario file is escaped.
///
/// ```swift
/// let page = HTMLReport(outcome).render()
/// try Data(page.utf8).write(to: URL(fileURLWithPath: "report.html"))
/// ```
public struct HTMLReport: Sendable {
    /// The run the page describes.
    public let outcome: Outcome

    /// A report of `outcome`.
    public init(_ outcome: Outcome) {
        self.outcome = outcome
    }

    /// The page.
    public func render() -> String {
        let e = Markup.escape
        let verdict = outcome.passed ? "passed" : "failed"
        let title = "\(outcome.scenario) · seed \(outcome.seed) · \(verdict)"
        var page: [String] = []
        page.append("<!DOCTYPE html>")
        page.append(#"<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">"#)
        page.append("<title>\(e(title))</title>")
        page.append("<style>\(Self.style)</style></head>")
        page.append(#"<body class="\#(verdict)"><main>"#)
        page += header()
        page += failedChecks()
        page.append(#"<section class="timeline"><h2>Timeline <small>virtual time</small></h2><div class="scroll">"#)
        page.append(SVGTimeline(outcome.timeline).render())
        page.append("</div></section>")
        page += requestTable()
        page += faultTable()
        page.append(#"<footer>Written by <code>tapedeck run</code>. Equal seeds give equal runs: the trace hash above identifies this one.</footer>"#)
        page.append("</main></body></html>")
        return page.joined(separator: "\n") + "\n"
    }

    /// The style sheet: system fonts, a light palette that prints well, tables that scroll on
    /// narrow screens.
    static let style = """
    :root{--ink:#1e293b;--muted:#64748b;--line:#e2e8f0;--ok:#15803d;--bad:#b91c1c;--warn:#c2410c;--bg:#f8fafc}
    *{box-sizing:border-box}
    body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
    main{max-width:1040px;margin:0 auto;padding:24px 20px 40px}
    h1{font-size:22px;margin:0 0 4px;word-break:break-word}
    h2{font-size:16px;margin:28px 0 10px}
    h2 small{font-weight:normal;color:var(--muted);font-size:13px}
    code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:13px}
    .file{color:var(--muted);margin:0 0 14px;word-break:break-all}
    .verdict{display:inline-block;padding:2px 10px;border-radius:999px;color:#fff;font-weight:600;font-size:13px;vertical-align:middle;margin-left:8px}
    .passed .verdict{background:var(--ok)}.failed .verdict{background:var(--bad)}
    .facts{display:flex;flex-wrap:wrap;gap:10px;margin:0;padding:0;list-style:none}
    .facts li{background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px 12px;min-width:120px}
    .facts b{display:block;font-size:17px}
    .facts span{color:var(--muted);font-size:12px}
    .checks{background:#fff;border:1px solid #fecaca;border-left:4px solid var(--bad);border-radius:8px;padding:12px 16px}
    .checks ul{margin:0 0 10px;padding-left:20px}
    .checks li{margin:2px 0;overflow-wrap:anywhere}
    .repro{display:block;background:#0f172a;color:#e2e8f0;padding:10px 12px;border-radius:6px;overflow-x:auto;white-space:pre}
    .note{background:#fffbeb;border:1px solid #fde68a;border-radius:8px;padding:8px 12px}
    .scroll{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:8px}
    .scroll svg{display:block}
    table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line);border-radius:8px}
    .table-scroll{overflow-x:auto}
    th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;overflow-wrap:break-word}
    th,.pill{white-space:nowrap}
    .url,.detail{overflow-wrap:anywhere}
    td.what,td.result,td.detail{min-width:18ch}
    td.num{white-space:nowrap}
    code,td.mono,.failures b{unicode-bidi:isolate}
    th{font-size:12px;color:var(--muted);font-weight:600;background:#f1f5f9}
    td.num{text-align:right;font-variant-numeric:tabular-nums}
    tr.failed td:first-child{border-left:3px solid var(--bad)}
    .pill{display:inline-block;padding:0 8px;border-radius:999px;font-weight:600;font-size:12px;color:#fff}
    .ok{background:#15803d}.errorStatus{background:#c2410c}.transport{background:#dc2626}.cancelled{background:#6b7280}.none{background:#475569}
    .detail{color:var(--muted);font-size:12px}
    .sites{color:var(--muted);font-size:13px}
    footer{margin-top:32px;color:var(--muted);font-size:12px}
    """
}
