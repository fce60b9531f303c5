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
        // Terminal columns, not characters (a CJK name takes two a character), as the timeline counts them.
        let widths = header.indices.map { column in rows.map { TextTimeline.columns($0[column]) }.max() ?? 0 }
        for row in rows {
            var line = row.enumerated().map { column, cell in
                cell + String(repeating: " ", count: widths[column] - TextTimeline.columns(cell))
            }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }   // (trailing only: a name may start with a space)
            lines.append(line)
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
        // Requests whose error kind alone does not say what went wrong (a stub that does not
        // match and a cut body are both `transport`), with no failed check to explain them under.
        let checked = Set(outcome.failures.compactMap(\.request))
        let unexplained = outcome.requests.filter { Self.needsDetail($0) && !checked.contains($0.name) }
        if !unexplained.isEmpty {
            lines.append("")
            lines.append("why requests failed:")
            for request in unexplained.prefix(10) {
                lines.append(contentsOf: Self.why(request, lead: "  \(request.name) (\(request.error.rawValue)): "))
            }
            if unexplained.count > 10 { lines.append("  ... and \(unexplained.count - 10) more (every errorDetail is in --format json)") }
        }
        if !outcome.failures.isEmpty {
            lines.append("")
            // Under a request's first failed check, why the request failed (what the network or the
            // client said) when its error kind says too little, unless the check's message has it.
            var explained = Set<String>()
            let byName = Dictionary(outcome.requests.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for failure in outcome.failures {
                lines.append("✗ " + Self.printable("\(failure)"))
                guard let name = failure.request, let request = byName[name], Self.needsDetail(request),
                      failure.check != "error" || request.whyNotRetried != nil, explained.insert(name).inserted else { continue }
                lines.append(contentsOf: Self.why(request, lead: "    why (\(request.error.rawValue)): "))
            }
            lines.append("reproduce: \(outcome.reproduction)")
        }
        if let recording = outcome.recording {
            lines.append("")
            lines.append(recording.note)
        }
        if !outcome.determinismNote.isEmpty {
            lines.append("note: \(outcome.determinismNote)")
        }
        lines.append("")
        if let recording = outcome.recording, recording.recorded > 0 {
            // Live exchanges are not replayed ones: the cassette's replay has a hash of its own.
            lines.append("trace hash: \(outcome.traceHash) (this recording run's; replaying the cassette, as the reproduce line does, gives its own)")
        } else {
            lines.append("trace hash: \(outcome.traceHash)")
        }
        return lines.joined(separator: "\n")
    }
}

extension OutcomeText {
    /// Whether the request's error kind says too little on its own: a cancel or a refused
    /// connection need no more words; a timeout says which timer ran out, a validation other than
    /// the status's (shown as "validation after 503") which content type was refused, and a
    /// request its retry policy could have retried says why it did not.
    static func needsDetail(_ request: RequestOutcome) -> Bool {
        if request.whyNotRetried != nil { return true }
        guard let detail = request.errorDetail else { return false }
        if request.error == .validation { return !detail.contains("unacceptableStatusCode") }
        return [.transport, .adaptation, .serialization, .retry, .session, .timedOut].contains(request.error)
    }

    /// Why `request` failed: why the client did not retry it, when that is what needs saying
    /// (a `Retry-After` past the limit), else its error's own description.
    static func why(_ request: RequestOutcome, lead: String) -> [String] {
        if let whyNotRetried = request.whyNotRetried { return [lead + whyNotRetried] }
        return why(request.errorDetail ?? "", lead: lead)
    }

    /// Why a request failed, indented under its check: the error's own description (a network
    /// error's localized description, where Tapedeck says which routes it tried), at most a few lines.
    static func why(_ detail: String, lead: String) -> [String] {
        var text = reason(detail)
        if text.hasPrefix("tapedeck: ") { text.removeFirst("tapedeck: ".count) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        if lines.count > 6 { lines = Array(lines.prefix(5)) + ["... (the whole error is in --format json's errorDetail)"] }
        return lines.enumerated().map { index, line in
            index == 0 ? lead + line : "      \(line.trimmingCharacters(in: .whitespaces))"
        }
    }

    /// The part of an error description a person needs: an NSError's `NSLocalizedDescription`
    /// when it has one, else the whole description.
    /// When the description goes on after the NSError's `UserInfo={…}` block (`(original error:
    /// …)`), the text around it is kept (`retry failed: `).
    static func reason(_ detail: String) -> String {
        guard let start = detail.range(of: "NSLocalizedDescription=") else { return detail }
        // The UserInfo block the description is in: from its `{` to the brace that closes it.
        let blockStart = detail[..<start.lowerBound].range(of: "UserInfo={", options: .backwards)
        var blockEnd = detail.endIndex
        if blockStart != nil {
            var depth = 1
            var index = start.upperBound
            while index < detail.endIndex {
                if detail[index] == "{" { depth += 1 }
                if detail[index] == "}" { depth -= 1; if depth == 0 { blockEnd = index; break } }
                index = detail.index(after: index)
            }
        }
        var text = detail[start.upperBound..<blockEnd]
        if let next = text.range(of: #", (NS|_)[A-Za-z]+="#, options: .regularExpression) { text = text[..<next.lowerBound] }
        let after = blockEnd < detail.endIndex ? detail[detail.index(after: blockEnd)...] : ""
        // An error that only wraps the NSError (`the URLSession task failed: …`) says no more than
        // its description; one that goes on after it (a failed retry) reads as a sentence.
        guard !after.isEmpty, let blockStart,
              let domain = detail[..<blockStart.lowerBound].range(of: "Error Domain=", options: .backwards) else {
            return String(text)
        }
        var description = text
        if description.hasPrefix("tapedeck: ") { description = description.dropFirst("tapedeck: ".count) }
        return String(detail[..<domain.lowerBound] + description + after)
    }
}

/// Outcomes as JSON (`tapedeck run --format json`): keys sorted, so equal outcomes print alike.
public enum OutcomeJSON {
    /// The outcome as pretty-printed JSON text.
    /// The verdict is written too, as `passed` (what the exit status says), beside `failures`.
    public static func encode(_ outcome: Outcome) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(WithVerdict(outcome: outcome)), as: UTF8.self)
    }

    /// The outcome's own fields, and `passed` in the same object.
    private struct WithVerdict: Encodable {
        let outcome: Outcome
        enum Key: String, CodingKey { case passed }

        func encode(to encoder: any Encoder) throws {
            try outcome.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(outcome.passed, forKey: .passed)
        }
    }
}

extension OutcomeText {
    /// `text` with its control characters written as escapes (`\n`, `\u{1B}`): a value the file
    /// gave (a body an expectation looks for, a HAR file's method) must not break the line or
    /// drive the terminal.
    ///
    /// ```swift
    /// OutcomeText.printable("GET\u{1B}[2J") // "GET\u{1B}[2J" with the escape spelt out
    /// ```
    public static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
