import ArgumentParser
import Foundation
import TapedeckCassettes

extension CassetteCommand {
    /// `tapedeck cassette import`: another tool's cassette as a HAR cassette, redacted.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a vcrpy, VCR, Betamax, go-vcr, DVR or ExVCR cassette, a Talkback tape, a nock recording, a Postman collection's saved examples, WireMock mappings or a Hoverfly simulation into a HAR cassette.",
            discussion: """
            The format is recognised from the file's keys (or named with --from); JSON, YAML, and \
            VCR's zlib-compressed files are read. Every interaction becomes an entry, in order, so \
            identical requests replay their recorded answers in turn; one that cannot be read is \
            left out with a warning. Secrets are redacted as in a recording (the default rules, \
            changed with --keep-cookie, --header, --query, --json-field, or --no-redact). The input \
            is never changed. A Postman collection gives one entry per saved example response; its \
            {{variables}} come from the collection, an --environment export, or --variable. \
            WireMock mappings and Hoverfly pairs give one entry per stub that names one request \
            (one that matches by pattern is left out); their paths get --origin. A WireMock folder \
            (with mappings/ and __files/, or the mappings folder) becomes one cassette; any other \
            folder imports file by file into a folder of .har.gz files, keeping its layout.

            Example: tapedeck cassette import tests/cassettes/test_login.yaml fixtures/login.har.gz
            """)

        @Argument(help: "The other tool's cassette (or a folder of them).")
        var input: String

        @Argument(help: "The HAR cassette to write ('-': standard output, plain JSON unless --gzip); for a folder, the folder to write into.")
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

        @Option(name: .customLong("replace"), help: ArgumentHelp(
            "Put back the value a placeholder stands for, in every string of the file, as the tool that wrote it does when it replays "
                + "(VCR's filter_sensitive_data: --replace '<GITHUB_LOGIN>=octocat'; repeatable).", valueName: "TEXT=VALUE"))
        var replacements: [String] = []

        @Option(help: ArgumentHelp("The origin WireMock's and Hoverfly's paths are given: the URL your client calls (default \(ForeignCassette.defaultStubOrigin)).",
                                   valueName: "URL"))
        var origin: String = ForeignCassette.defaultStubOrigin

        func validate() throws {
            if let bad = variables.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
                throw ValidationError("--variable '\(bad)' is not NAME=VALUE")
            }
            if let bad = replacements.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
                throw ValidationError("--replace '\(bad)' is not TEXT=VALUE (the placeholder as the file spells it, then its value)")
            }
            if let from, ForeignCassette.Format(rawValue: from.lowercased()) == nil {
                throw ValidationError("--from '\(from)' is no format import reads; use one of \(ForeignCassette.Format.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let parsed = URL(string: origin), ["http", "https"].contains(parsed.scheme?.lowercased()), parsed.host?.isEmpty == false,
                  parsed.path.isEmpty || parsed.path == "/", parsed.query == nil else {
                throw ValidationError("--origin '\(origin)' is not an origin: give scheme, host and port only (http://localhost:8080)")
            }
            if noRedact && !redaction.isEmpty {
                throw ValidationError("--no-redact excludes --header, --query, --json-field and --keep-cookie")
            }
        }

        func run() throws {
            removeTemporariesOnSignal()
            let values = try variableValues()
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
                // A WireMock folder is one set of stubs: one cassette, not one per mapping file.
                if ForeignCassette.wireMockMappingsFolder(URL(fileURLWithPath: input)) != nil, from == nil || from?.lowercased() == "wiremock" {
                    try importFile(input, to: output, values: values, wireMockFolder: true)
                    return
                }
                try importFolder(values: values)
                return
            }
            try importFile(input, to: output, values: values)
        }
    }
}

extension CassetteCommand.Import {
    /// The placeholders `--replace` gives values to (split at the first `=`).
    var replacing: [String: String] {
        var values: [String: String] = [:]
        for pair in replacements {
            let equals = pair.firstIndex(of: "=")!
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return values
    }

    /// The Postman variables given: an environment export's, then `--variable`'s over them.
    private func variableValues() throws -> [String: String] {
        var values: [String: String] = [:]
        if let environment {
            do throws(CassetteError) {
                values = try ForeignCassette.postmanEnvironment(CassetteFile.jsonText(of: URL(fileURLWithPath: environment)), file: environment)
            } catch {
                throw ExitStatus.report(error)
            }
        }
        for pair in variables {
            let equals = pair.firstIndex(of: "=")!
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return values
    }

    /// Imports one file; exits with its status on failure. In a folder, a file that is no
    /// cassette is left alone (false), not an error.
    @discardableResult
    private func importFile(_ input: String, to output: String, values: [String: String], inFolder: Bool = false, wireMockFolder: Bool = false) throws -> Bool {
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
            let named = from.flatMap { ForeignCassette.Format(rawValue: $0.lowercased()) }
            let text = wireMockFolder ? Data() : try CassetteFile.jsonText(of: URL(fileURLWithPath: input))
            // Undetected, the reader throws its own error, which says what it looked for — but in
            // a folder, other documents (a conftest's JSON, a fixture that is no cassette) are left alone.
            guard let reading = try wireMockFolder ? ForeignCassette.loadWireMock(folder: URL(fileURLWithPath: input), origin: origin)
                    : inFolder ? ForeignCassette.loadIfCassette(text, file: input, format: named, variables: values, origin: origin, replacing: replacing)
                    : ForeignCassette.load(text, file: input, format: named, variables: values, origin: origin, replacing: replacing) else {
                printError("tapedeck: note: \(input): no cassette of a tool import reads; left alone")
                return false
            }
            (cassette, format) = (reading.cassette, reading.format)
            for remark in reading.remarks { printError("tapedeck: note: \(input): \(remark)") }
            if !replacements.isEmpty, wireMockFolder {
                printError("tapedeck: warning: \(input): --replace is not used for a WireMock folder (its mappings are read file by file); "
                           + "put the values into the mappings, or import a single mappings file")
            }
            if !variables.isEmpty || environment != nil, format != .postman {
                printError("tapedeck: warning: \(input): --variable and --environment fill a Postman collection's {{names}}, and this is "
                           + "\(format.fileNoun): they were not used (a placeholder another tool wrote takes --replace 'TEXT=VALUE')")
            }
        } catch {
            throw ExitStatus.report(error)
        }
        warnSkipped(cassette.skipped, of: input)
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
        let summary = "\(toStandardOutput ? "standard output" : output): \(entries(cassette.interactions.count)) from \(format.fileNoun) (\(secrets)\(skipped))"
        if toStandardOutput { printError("tapedeck: " + summary) } else { print(summary) }
        return true
    }

    /// `import FOLDER OUT`: every `.yaml`, `.yml`, `.json`, `.json5` and `.zz` file under the folder (a
    /// tool's cassette library) becomes `OUT/<its path>.har.gz`; one that fails does not stop the
    /// others, and the exit status is 2 if any did.
    private func importFolder(values: [String: String]) throws {
        var isDirectory: ObjCBool = false
        let lowered = output.lowercased()
        if output == "-" || FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && !isDirectory.boolValue
            || !isDirectory.boolValue && (lowered.hasSuffix(".har") || lowered.hasSuffix(".har.gz")) {
            printError("tapedeck: \(input) is a folder: give a folder to write its cassettes into, not \(output == "-" ? "standard output" : "the file \(output)")")
            throw ExitStatus.badInput
        }
        let base = URL(fileURLWithPath: input).standardizedFileURL
        let files = (FileManager.default.enumerator(atPath: base.path)?.allObjects as? [String] ?? [])
            .filter { ["yaml", "yml", "json", "json5", "zz"].contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
            .filter { !$0.hasSuffix(".postman_environment.json") }
            .sorted()
        guard !files.isEmpty else {
            printError("tapedeck: \(input): no .yaml, .yml, .json, .json5 or .zz file in this folder; nothing was written")
            throw ExitStatus.badInput
        }
        var imported = 0, leftAlone = 0, failed: [String] = []
        for file in files {
            let target = URL(fileURLWithPath: output).appendingPathComponent(URL(fileURLWithPath: file).deletingPathExtension().relativePath + ".har.gz")
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                if try importFile(base.appendingPathComponent(file).path, to: target.path, values: values, inFolder: true) { imported += 1 } else { leftAlone += 1 }
            } catch {
                failed.append(file)
            }
        }
        let alone = leftAlone == 0 ? "" : ", \(leftAlone) other file\(leftAlone == 1 ? "" : "s") left alone"
        print("\(output): \(imported) cassette\(imported == 1 ? "" : "s") imported from \(input)\(alone)"
              + (failed.isEmpty ? "" : "; \(failed.count) could not be (above): \(failed.prefix(5).joined(separator: ", "))\(failed.count > 5 ? ", …" : "")"))
        if !failed.isEmpty { throw ExitStatus.badInput }
    }
}

extension CassetteCommand.Import {
    /// The skipped entries, each on a line, but those of one reason (a variable nobody set, say,
    /// in six examples) said once with their count, the first of them and what to do.
    private func warnSkipped(_ skipped: [SkippedEntry], of input: String) {
        var order: [String] = []
        var byReason: [String: [SkippedEntry]] = [:]
        for entry in skipped {
            if byReason[entry.error.reason] == nil { order.append(entry.error.reason) }
            byReason[entry.error.reason, default: []].append(entry)
        }
        for reason in order {
            let entries = byReason[reason]!
            guard entries.count > 1 else {
                printError("tapedeck: warning: \(input): \(entries[0])")
                continue
            }
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
            } catch {
                throw ExitStatus.report(error)
            }
            for line in export.leftOut { printError("tapedeck: warning: \(input): left out \(line)") }
            // The other tool matches on the whole URL by default: a redacted query item never equals
            // the value the client sends, so those requests would miss there (Tapedeck's replay
            // lets a redacted value match any).
            let redactedQueries = cassette.interactions.count { $0.pattern == nil && ($0.request.url.query ?? "").contains(Redactor.placeholder) }
            if redactedQueries > 0 {
                let filter = format == .vcrpy ? "vcrpy's filter_query_parameters, or a match_on without query" : "a matcher that ignores those query items"
                printError("tapedeck: warning: \(input): \(redactedQueries == 1 ? "1 request carries" : "\(redactedQueries) requests carry") redacted query items "
                           + "(\(Redactor.placeholder)); \(format.title) matches on the whole URL by default, so the client's real values will miss them there — "
                           + "use \(filter)")
            }
            if export.written == 0, !export.leftOut.isEmpty {
                // Nothing the tool could replay: an empty cassette would only hide that.
                printError("tapedeck: \(input): none of its \(entries(export.leftOut.count)) can be written as a \(format.title) cassette (above); nothing was written")
                throw ExitStatus.badInput
            }
            do throws(CassetteError) {
                if output == "-" { try writeStandardOutput(export.data) } else { try CassetteFile.atomicWrite(export.data, to: URL(fileURLWithPath: output)) }
            } catch {
                throw ExitStatus.report(error)
            }
            let summary = "\(output == "-" ? "standard output" : output): \(entries(export.written)) as a \(format.title) cassette"
                + (export.leftOut.isEmpty ? "" : " (\(export.leftOut.count) left out)")
            if output == "-" { printError("tapedeck: " + summary) } else { print(summary) }
        }
    }
}
