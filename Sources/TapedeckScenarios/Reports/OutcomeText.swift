import Foundation

/// An outcome as `tapedeck run` prints it: a table of the requests, the timeline, the failed
/// checks (each with the line that reproduces it), and the trace hash.
public struct OutcomeText: Sendable {
    /// The run to print.
    public let outcome: Outcome
    /// The width of the timeline in columns.
    public let width: Int

    /// A printer for `outcome`.
    public init(_ outcome: Outcome, width: Int = 100) {
        self.outcome = outcome
        self.width = width
    }

    /// The whole text.
    public func render() -> String {
        var lines: [String] = []
        let verdict = outcome.passed ? "passed" : "FAILED (\(outcome.failures.count) check\(outcome.failures.count == 1 ? "" : "s"))"
        lines.append("\(outcome.scenario) — seed \(outcome.seed): \(verdict) in \(TextTimeline.format(outcome.virtualNanoseconds)) of virtual time, \(outcome.jobs) jobs")
        if !outcome.enabledSites.isEmpty {
            lines.append("fault sites enabled for this seed: \(outcome.enabledSites.joined(separator: ", "))")
        }
        lines.append("")
        let header = ["request", "result", "attempts", "start", "end", "faults"]
        var rows = outcome.requests.map { request -> [String] in
            let result = request.result
            let end = request.endNanoseconds.map(TextTimeline.format) ?? "never"
            return [request.name, result + (request.handlerCalls > 1 ? " (×\(request.handlerCalls))" : ""), String(request.attempts),
                    TextTimeline.format(request.startNanoseconds), end, request.faults.isEmpty ? "-" : String(request.faults.count)]
        }
        rows.insert(header, at: 0)
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(row.enumerated().map { column, cell in
                cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        lines.append("")
        lines.append(TextTimeline(outcome.timeline, width: width).render())
        if !outcome.faults.isEmpty {
            lines.append("")
            lines.append("faults that fired:")
            for fault in outcome.faults {
                let target = fault.request.map { "\($0) attempt \(fault.attempt)" } ?? "the run"
                lines.append("  t=\(TextTimeline.format(fault.timeNanoseconds))  \(fault.site) on \(target): \(fault.what)")
            }
        }
        if !outcome.failures.isEmpty {
            lines.append("")
            for failure in outcome.failures {
                lines.append("✗ \(failure)")
            }
            lines.append("reproduce: \(outcome.reproduction)")
        }
        if !outcome.determinismNote.isEmpty {
            lines.append("note: \(outcome.determinismNote)")
        }
        lines.append("")
        lines.append("trace hash: \(outcome.traceHash)")
        return lines.joined(separator: "\n")
    }
}

/// Outcomes as JSON (`tapedeck run --format json`): keys sorted, so equal outcomes print alike.
public enum OutcomeJSON {
    /// The outcome as pretty-printed JSON text.
    public static func encode(_ outcome: Outcome) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(outcome), as: UTF8.self)
    }
}
