import ArgumentParser
import Foundation
import TapedeckCassettes

// `tapedeck cassette inspect`: a table of a cassette's entries.

extension CassetteCommand {
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a table of a cassette's entries.",
            discussion: """
            Columns: the entry's number, method, status ("fail" for a recorded transport failure), \
            the body's size in bytes as stored (a "z" after it: the stored bytes are still \
            compressed as the Content-Encoding says), the entry's total time in milliseconds as the \
            file records it (HAR "time": blocked, dns, connect, send, wait and receive together; \
            without it, the sum of those timings; "-" when there is neither), and the URL \
            (secret query items and a password in it shown as REDACTED, so the table can go \
            into a terminal or a CI log; the file is not changed; --show-secrets shows them).
            """)

        @Argument(help: "The cassette (.har or .har.gz; the format is sniffed).")
        var file: String

        @Flag(help: "Refuse a file with entries that cannot be replayed (exit 2) instead of listing them as skipped.")
        var strict = false

        @Flag(help: "Show URLs as stored, secret query items and passwords included.")
        var showSecrets = false

        func run() throws {
            let (base, cassette) = try loadWithBase(file, strict: strict, warn: false)
            // The entries' own totals: an interaction keeps only the phases a replay re-enacts.
            // (Read a second time: a pipe or a named pipe cannot be, and gives only what the entries keep.)
            let json = base.interactions.isEmpty || CassetteFile.isStream(file) || base.foreignFormat != nil ? nil : try? CassetteFile.jsonText(of: URL(fileURLWithPath: file))
            let recorded = json.map { HARCodec.recordedTimes(of: base, json: $0) } ?? []
            let failures = cassette.interactions.count { $0.response == nil }
            let brokenOff = cassette.interactions.count { $0.response?.interruption != nil }
            var summary = "\(file): \(entries(cassette.interactions.count))"
            let failed = [failures > 0 ? "\(failures) recorded failure\(failures == 1 ? "" : "s")" : nil,
                          brokenOff > 0 ? "\(brokenOff) broke off" : nil].compactMap { $0 }
            if !failed.isEmpty { summary += " (\(failed.joined(separator: ", ")))" }
            if !cassette.skipped.isEmpty { summary += ", \(cassette.skipped.count) skipped" }
            if !cassette.notes.isEmpty { summary += ", \(cassette.notes.count) note\(cassette.notes.count == 1 ? "" : "s")" }
            let writer = [cassette.creator, cassette.creatorVersion].filter { !$0.isEmpty }.joined(separator: " ")
            if let format = cassette.foreignFormat {
                printSafe(summary + ", \(format.fileNoun) read as it is (tapedeck cassette import converts it to HAR)")
            } else {
                printSafe(summary + ", written by \(writer.isEmpty ? "an unnamed tool" : writer)")
            }
            printSafe(pad("#", 4) + pad("method", 8) + pad("status", 8) + pad("bytes", 10) + pad("ms", 10) + "url")
            let redactor = Redactor()
            for (position, interaction) in cassette.interactions.enumerated() {
                let status: String
                let bytes: String
                var note = ""
                switch interaction.outcome {
                case let .response(response):
                    status = String(response.status)
                    let compressed = response.bodyForm == .wire && !response.body.isEmpty && response.headers.value(for: "Content-Encoding") != nil
                    bytes = String(response.body.count) + (compressed ? "z" : "")
                    if let failure = response.interruption {
                        note = "  → broke off after these bytes: replays as " + Self.failureText(failure)
                    }
                case let .failure(failure):
                    status = "fail"
                    bytes = "-"
                    note = "  → replays as " + Self.failureText(failure)
                }
                // A journal's interactions (after the file's) are Tapedeck's, whose time is the phases' sum.
                let total = (position < recorded.count ? recorded[position] : nil) ?? interaction.timings.map { timings in
                    ((timings.connect ?? .zero) + timings.send + timings.wait + timings.receive).timeInterval * 1_000
                }
                let milliseconds = total.map { String(format: "%.1f", $0) } ?? "-"
                // A stub matching by pattern shows its pattern: its request is only a stand-in.
                let shown = interaction.pattern.map { "pattern: \($0.shown)" }
                    ?? (showSecrets ? interaction.request.url : redactor.redact(interaction.request.url)).absoluteString
                printSafe(pad(String(interaction.index), 4) + pad(interaction.pattern.map { $0.method ?? "ANY" } ?? interaction.request.method, 8)
                      + pad(status, 8) + pad(bytes, 10) + pad(milliseconds, 10) + shown + note)
            }
            for skipped in cassette.skipped {
                printSafe("-   " + skipped.description(showingSecrets: showSecrets))
            }
            for note in cassette.notes {
                printSafe("!   " + note.description(showingSecrets: showSecrets))
            }
        }

        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }

        /// `URLError -1005: message`, without saying the code twice when the message starts with it.
        static func failureText(_ failure: RecordedFailure) -> String {
            let code = "URLError \(failure.code)"
            return failure.message.hasPrefix(code) ? failure.message : "\(code): \(failure.message)"
        }
    }
}
