import ArgumentParser
import Foundation
import TapedeckCassettes

extension CassetteCommand {
    /// `tapedeck cassette import`: another tool's cassette as a HAR cassette, redacted.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a vcrpy, VCR, Betamax, go-vcr or DVR cassette, or a Postman collection's saved examples, into a HAR cassette.",
            discussion: """
            The format is recognised from the file's keys (or named with --from); JSON, YAML, and \
            VCR's zlib-compressed files are read. Every interaction becomes an entry, in order, so \
            identical requests replay their recorded answers in turn; one that cannot be read is \
            left out with a warning. Secrets are redacted as in a recording (the default rules, \
            changed with --keep-cookie, --header, --query, --json-field, or --no-redact). The input \
            is never changed. A Postman collection gives one entry per saved example response; its \
            {{variables}} come from the collection, an --environment export, or --variable.

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

        @OptionGroup var redaction: RedactionFlags

        @Option(name: .customLong("variable"), help: ArgumentHelp("A Postman variable's value, over the collection's and the environment's (repeatable).",
                                                                   valueName: "NAME=VALUE"))
        var variables: [String] = []

        @Option(help: ArgumentHelp("A Postman environment export whose variables the collection's {{names}} use.", valueName: "FILE"))
        var environment: String?

        func validate() throws {
            if let bad = variables.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
                throw ValidationError("--variable '\(bad)' is not NAME=VALUE")
            }
            if let from, ForeignCassette.Format(rawValue: from.lowercased()) == nil {
                throw ValidationError("--from '\(from)' is no format import reads; use one of \(ForeignCassette.Format.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if noRedact && !redaction.isEmpty {
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
                var values: [String: String] = [:]
                if let environment {
                    values = try ForeignCassette.postmanEnvironment(CassetteFile.jsonText(of: URL(fileURLWithPath: environment)), file: environment)
                }
                for pair in variables {
                    let equals = pair.firstIndex(of: "=")!
                    values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
                }
                // Undetected, the reader throws its own error, which says what it looked for.
                let reading = try ForeignCassette.load(text, file: input, format: named, variables: values)
                (cassette, format) = (reading.cassette, reading.format)
                for remark in reading.remarks { printError("tapedeck: note: \(input): \(remark)") }
            } catch {
                throw ExitStatus.report(error)
            }
            warnSkipped(cassette.skipped)
            for note in cassette.notes { printError("tapedeck: warning: \(input): \(note)") }
            if cassette.interactions.isEmpty, cassette.skipped.isEmpty, format == .postman {
                printError("tapedeck: \(input): the collection holds no saved example response, so there is nothing to replay; nothing was written "
                           + "(save a response to each request in Postman — \"Save Response\" — and export again)")
                throw ExitStatus.badInput
            }
            if cassette.interactions.isEmpty, !cassette.skipped.isEmpty {
                // Nothing to replay: an empty cassette would only hide that.
                let which = cassette.skipped.count == 1 ? "its one entry cannot" : "none of its \(cassette.skipped.count) entries can"
                printError("tapedeck: \(input): \(which) be imported (above); nothing was written")
                throw ExitStatus.badInput
            }
            var redacted = 0
            if !noRedact {
                let redactor = redaction.redactor
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
            let summary = "\(toStandardOutput ? "standard output" : output): \(entries(cassette.interactions.count)) from a \(format.title)\(format == .postman ? "" : " cassette") (\(secrets)\(skipped))"
            if toStandardOutput { printError("tapedeck: " + summary) } else { print(summary) }
        }
    }
}

extension CassetteCommand.Import {
    /// The skipped entries, each on a line; past ten, those of one reason (a variable nobody
    /// set, say, in a hundred examples) are said once with their count and the first of them.
    private func warnSkipped(_ skipped: [SkippedEntry]) {
        guard skipped.count > 10 else {
            for entry in skipped { printError("tapedeck: warning: \(input): \(entry)") }
            return
        }
        var order: [String] = []
        var byReason: [String: [SkippedEntry]] = [:]
        for entry in skipped {
            if byReason[entry.error.reason] == nil { order.append(entry.error.reason) }
            byReason[entry.error.reason, default: []].append(entry)
        }
        for reason in order {
            let entries = byReason[reason]!
            let hint = entries[0].error.hint.isEmpty ? "" : " — \(entries[0].error.hint)"
            printError("tapedeck: warning: \(input): left out \(entries.count) (first: \(entries[0]))\(hint)")
        }
    }
}

extension CassetteCommand {
    /// `tapedeck cassette export`: a HAR cassette as a vcrpy or VCR cassette.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a HAR cassette as a vcrpy (Python) or VCR (Ruby) cassette, for a team's other clients.",
            discussion: """
            Every interaction is written in order, so identical requests replay their answers in \
            turn; transport failures and responses that broke off, which those tools cannot replay, \
            are left out with a warning. The cassette is written as it is: redact it first \
            (`tapedeck cassette validate` says whether it holds secrets). A body stored decoded is \
            written decoded, without its Content-Encoding.

            Example: tapedeck cassette export fixtures/cassettes/api.har.gz tests/cassettes/test_api.yaml --to vcrpy
            """)

        @Argument(help: "The HAR cassette (.har or .har.gz).")
        var input: String

        @Argument(help: "The file to write ('-': standard output).")
        var output: String

        @Option(help: ArgumentHelp("The format to write: \(ForeignCassette.exportFormats.map(\.rawValue).joined(separator: " or ")).", valueName: "FORMAT"))
        var to: String

        func validate() throws {
            guard let format = ForeignCassette.Format(rawValue: to.lowercased()), ForeignCassette.exportFormats.contains(format) else {
                throw ValidationError("--to '\(to)' is no format export writes; use \(ForeignCassette.exportFormats.map(\.rawValue).joined(separator: " or "))")
            }
        }

        func run() throws {
            removeTemporariesOnSignal()
            if output != "-", samePath(input, output) {
                printError("tapedeck: \(output) is the input itself: write the \(to) cassette to another file")
                throw ExitStatus.badInput
            }
            let cassette = try loadWithBase(input).merged
            let format = ForeignCassette.Format(rawValue: to.lowercased())!
            let export: ForeignCassette.Export
            do throws(CassetteError) {
                export = try ForeignCassette.export(cassette, as: format)
                if output == "-" { try writeStandardOutput(export.data) } else { try CassetteFile.atomicWrite(export.data, to: URL(fileURLWithPath: output)) }
            } catch {
                throw ExitStatus.report(error)
            }
            for line in export.leftOut { printError("tapedeck: warning: \(input): left out \(line)") }
            let summary = "\(output == "-" ? "standard output" : output): \(entries(export.written)) as a \(format.title) cassette"
                + (export.leftOut.isEmpty ? "" : " (\(export.leftOut.count) left out)")
            if output == "-" { printError("tapedeck: " + summary) } else { print(summary) }
        }
    }
}
