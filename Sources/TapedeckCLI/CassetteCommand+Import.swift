import ArgumentParser
import Foundation
import TapedeckCassettes

extension CassetteCommand {
    /// `tapedeck cassette import`: another tool's cassette as a HAR cassette, redacted.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a vcrpy, VCR, Betamax, go-vcr or DVR cassette into a HAR cassette (.har or .har.gz).",
            discussion: """
            The format is recognised from the file's keys (or named with --from); JSON, YAML, and \
            VCR's zlib-compressed files are read. Every interaction becomes an entry, in order, so \
            identical requests replay their recorded answers in turn; one that cannot be read is \
            left out with a warning. Secrets are redacted as in a recording (the default rules, \
            changed with --keep-cookie, --header, --query, --json-field, or --no-redact). The input \
            is never changed.

            Example: tapedeck cassette import tests/cassettes/test_login.yaml fixtures/login.har.gz
            """)

        @Argument(help: "The other tool's cassette.")
        var input: String

        @Argument(help: "The HAR cassette to write ('-': standard output, plain JSON unless --gzip).")
        var output: String

        @Option(help: ArgumentHelp("The input's format, when detection guesses wrong: \(ForeignCassette.Format.allCases.map(\.rawValue).joined(separator: ", ")).",
                                   valueName: "FORMAT"))
        var from: String?

        @Flag(help: "Force gzip output.")
        var gzip = false

        @Flag(help: "Keep every secret as the input has it (the output is then as sensitive as the input).")
        var noRedact = false

        @Option(name: .customLong("header"), help: "Another header to redact (repeatable).")
        var headers: [String] = []

        @Option(name: .customLong("query"), help: "Another query item to redact (repeatable).")
        var queryItems: [String] = []

        @Option(name: .customLong("json-field"), help: "Another JSON field to redact (repeatable).")
        var jsonFields: [String] = []

        @Option(name: .customLong("keep-cookie"), help: ArgumentHelp("A cookie whose value is kept in clear (repeatable).", valueName: "NAME"))
        var keptCookies: [String] = []

        func validate() throws {
            if let from, ForeignCassette.Format(rawValue: from.lowercased()) == nil {
                throw ValidationError("--from '\(from)' is no format import reads; use one of \(ForeignCassette.Format.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if noRedact && !(headers.isEmpty && queryItems.isEmpty && jsonFields.isEmpty && keptCookies.isEmpty) {
                throw ValidationError("--no-redact excludes --header, --query, --json-field and --keep-cookie")
            }
        }

        func run() throws {
            removeTemporariesOnSignal()
            if output != "-" {
                if samePath(input, output) {
                    printError("tapedeck: \(output) is the input itself: write the HAR cassette to another file (the input is never changed)")
                    throw ExitStatus.badInput
                }
                try refuseWhileRecording(output, what: "this import", elsewhere: "import into another file")
            }
            var cassette: Cassette
            let format: ForeignCassette.Format
            do throws(CassetteError) {
                let text = try CassetteFile.jsonText(of: URL(fileURLWithPath: input))
                let named = from.flatMap { ForeignCassette.Format(rawValue: $0.lowercased()) }
                // Undetected, the reader throws its own error, which says what it looked for.
                (cassette, format) = try ForeignCassette.readDetecting(text, file: input, format: named)
            } catch {
                throw ExitStatus.report(error)
            }
            for skipped in cassette.skipped { printError("tapedeck: warning: \(input): \(skipped)") }
            for note in cassette.notes { printError("tapedeck: warning: \(input): \(note)") }
            var redacted = 0
            if !noRedact {
                var redactor = Redactor(extraHeaders: Set(headers), extraQueryItems: Set(queryItems), extraJSONFields: Set(jsonFields))
                redactor.keptCookies = Set(keptCookies)
                let before = cassette.interactions
                cassette.interactions = before.map(redactor.redact)
                redacted = zip(before, cassette.interactions).count { $0 != $1 }
            }
            let toStandardOutput = output == "-"
            let compression = gzip ? .gzip : (toStandardOutput ? CassetteFile.Compression.none : .forPath(output))
            do throws(CassetteError) {
                let data = CassetteFile.encode(cassette, compression: compression)
                if toStandardOutput { try writeStandardOutput(data) } else { try CassetteFile.atomicWrite(data, to: URL(fileURLWithPath: output)) }
            } catch {
                throw ExitStatus.report(error)
            }
            let skipped = cassette.skipped.isEmpty ? "" : ", \(cassette.skipped.count) left out"
            let secrets = noRedact ? "not redacted (--no-redact)" : "\(redacted) redacted"
            let summary = "\(toStandardOutput ? "standard output" : output): \(entries(cassette.interactions.count)) from a \(format.title) cassette (\(secrets)\(skipped))"
            if toStandardOutput { printError("tapedeck: " + summary) } else { print(summary) }
        }
    }
}
