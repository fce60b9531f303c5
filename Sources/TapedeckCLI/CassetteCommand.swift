import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckHTTP
import TapedeckScenarios

/// Exit statuses of every tapedeck command: 0 ok; 1 the check found something; 2 bad input file;
/// 64 bad usage (swift-argument-parser's own); 3 anything else (I/O, network).
enum ExitStatus {
    static let found = ExitCode(1)
    static let badInput = ExitCode(2)
    static let otherFailure = ExitCode(3)

    /// Prints `error` to standard error and returns the matching exit code.
    static func report(_ error: CassetteError) -> ExitCode {
        printError("tapedeck: \(error)")
        return error.isBadInput ? badInput : otherFailure
    }
}

/// A host as it goes into a URL: an IPv6 address in brackets (`[::1]`).
func urlHost(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
}

/// Writes a line to standard error, after what was printed to standard output so far: stdout is
/// buffered when it is a pipe or a file, so without the flush `tapedeck run … 2>&1 | less` shows a
/// `--report` that cannot be written above the results the run printed before it.
func printError(_ text: String) {
    fflush(nil)   // every output stream (naming `stdout` is not concurrency-safe in Swift 6 on Linux)
    try? FileHandle.standardError.write(contentsOf: Data((terminalSafe(text) + "\n").utf8))
}

/// `text` with every control character but its line breaks and tabs written as an escape: what
/// a file says (a HAR's creator, method or failure text) reaches a terminal or a CI log without
/// recolouring or clearing it. (A tab stays: a quoted source line keeps its caret's column.)
func terminalSafe(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) else { return text }
    return text.split(separator: "\n", omittingEmptySubsequences: false)
        .map { line in line.split(separator: "\t", omittingEmptySubsequences: false).map { OutcomeText.printable(String($0)) }.joined(separator: "\t") }
        .joined(separator: "\n")
}

/// Writes a cassette to standard output; a failed write (a full disk, a closed pipe) is an error
/// naming it, not a trap, nor a success reported over a cut output.
func writeStandardOutput(_ data: Data) throws(CassetteError) {
    do {
        try FileHandle.standardOutput.write(contentsOf: data)
    } catch {
        throw CassetteError(.io, file: "standard output", reason: "the write failed: \(error.localizedDescription)", hint: "check where standard output goes")
    }
}

/// `print`, with ``terminalSafe(_:)``: for lines that show what a file holds.
func printSafe(_ text: String) {
    print(terminalSafe(text))
}

struct CassetteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cassette",
        abstract: "Inspect, check, redact and convert HAR cassettes (.har and .har.gz); import and export other tools' cassettes.",
        discussion: """
        Exit status: 0 ok; 1 the check found something (e.g. a secret); 2 bad input file (unreadable \
        as a cassette: corrupt, truncated, wrong version); 64 bad usage; 3 any other failure.
        """,
        subcommands: [Inspect.self, Validate.self, Redact.self, Convert.self, Import.self, Export.self, JournalWriter.self]
    )
}

/// `1 entry`, `3 entries`.
func entries(_ count: Int) -> String {
    "\(count) \(count == 1 ? "entry" : "entries")"
}

/// ` (2 skipped entries left out)` when the cassette skipped any, else nothing.
private func leftOut(_ cassette: Cassette) -> String {
    cassette.skipped.isEmpty ? "" : " (\(cassette.skipped.count) skipped \(cassette.skipped.count == 1 ? "entry" : "entries") left out)"
}

/// Reads a cassette for a command, turning errors into exit statuses. An interrupted recording's
/// journal is shown merged into what the command sees, but not merged on disk (these commands
/// never change their input): a first recording killed before it finished has only its journal,
/// and that is what there is to inspect or check for secrets. Skipped entries are printed as
/// warnings to standard error (`strict`: the first is an error, exit 2). Another tool's cassette
/// is read as it is, unless `foreign` refuses it (a command about to write over its input).
private func load(_ path: String, strict: Bool = false, warn: Bool = true, foreign: CassetteFile.ForeignFiles = .convert) throws -> Cassette {
    try loadWithBase(path, strict: strict, warn: warn, foreign: foreign).merged
}

/// Says on standard error that the cassette at `path` is another tool's, read as it is, with what
/// its reader said about the file as a whole; nothing for a HAR file.
func noteForeign(_ cassette: Cassette, path: String) {
    guard let format = cassette.foreignFormat else { return }
    printError("tapedeck: note: \(path) is \(format.fileNoun), read as it is (tapedeck cassette import converts it to HAR)")
    for remark in cassette.remarks { printError("tapedeck: note: \(path): \(remark)") }
    let stubs = cassette.interactions.count(where: \.answersByPatternOnly)
    if stubs > 0 {
        printError("tapedeck: note: \(path): \(stubs == 1 ? "1 stub matches" : "\(stubs) stubs match") by pattern: replay answers by "
                   + "\(stubs == 1 ? "it" : "them"), but HAR cannot hold a pattern, so import, convert and export leave \(stubs == 1 ? "it" : "them") out")
    }
}

/// ``load(_:strict:warn:foreign:)``, also returning what the file alone holds (`base`: empty when only a
/// journal exists), whose interactions come first in `merged`.
func loadWithBase(_ path: String, strict: Bool = false, warn: Bool = true, foreign: CassetteFile.ForeignFiles = .convert) throws -> (base: Cassette, merged: Cassette) {
    let url = URL(fileURLWithPath: path)
    let journal = CassetteJournal.journalURL(for: url)
    let hasJournal = FileManager.default.fileExists(atPath: journal.path)
    do {
        let base = hasJournal && !FileManager.default.fileExists(atPath: url.path) ? Cassette() : try CassetteFile.read(url, strict: strict, foreign: foreign)
        if warn {
            noteForeign(base, path: path)
            for skipped in base.skipped { printError("tapedeck: warning: \(path): \(skipped)") }
            for note in base.notes { printError("tapedeck: warning: \(path): \(note)") }
        }
        guard hasJournal else { return (base, base) }
        let preview: (merged: Cassette, added: Int, droppedBytes: Int)
        do {
            preview = try CassetteJournal.preview(cassette: url, base: base)
        } catch {
            // A journal that cannot be read does not hide the cassette beside it.
            printError("tapedeck: warning: \(journal.path) cannot be read (\(error)); showing the cassette without it")
            return (base, base)
        }
        let (merged, added, dropped) = preview
        if warn {
            for skipped in merged.skipped.dropFirst(base.skipped.count) { printError("tapedeck: warning: \(journal.path): \(skipped)") }
        }
        let interactions = "\(added) interaction\(added == 1 ? "" : "s") not in the cassette"
        if let pid = CassetteJournal.liveRecorder(of: url) {
            // Its recorder holds the cassette's lock: the recording is running, not interrupted.
            let writing = dropped > 0 ? "; \(dropped) bytes at its end are a record still being written, not shown" : ""
            printError("tapedeck: note: \(journal.path) holds a recording in progress\(pid > 0 ? " (pid \(pid))" : "") (\(interactions) yet\(writing)); "
                + "shown here as merged. Its recorder merges it into \(path) when it stops")
        } else {
            let torn = dropped > 0 ? "; \(dropped) bytes at its end are a torn record, kept aside when it is merged" : ""
            printError("tapedeck: note: \(journal.path) holds an interrupted recording (\(interactions)\(torn)); shown here as merged. Replaying (tapedeck serve, a Tape, tapedeck run) or recording into it merges it into \(path)")
        }
        return (base, merged)
    } catch {
        throw ExitStatus.report(error)
    }
}

extension CassetteCommand {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that a cassette reads cleanly and holds nothing that looks like a secret.")

        @Argument(help: "The cassette.")
        var file: String

        @Flag(help: "Treat entries that cannot be replayed as errors (exit 2), and bodies that cannot be checked as findings (exit 1), instead of warnings.")
        var strict = false

        @Option(name: .customLong("keep-cookie"), help: ArgumentHelp(
            "A cookie recorded in clear on purpose (`tapedeck record --keep-cookie`): its value is not reported (repeatable).", valueName: "NAME"))
        var keptCookies: [String] = []

        func run() throws {
            let cassette = try load(file, strict: strict)
            if cassette.interactions.isEmpty, !cassette.skipped.isEmpty {
                // Not "ok": nothing in it replays, and what was skipped was not checked for secrets either.
                printError("tapedeck: \(file): every entry (\(cassette.skipped.count)) was skipped (see the warnings), so nothing in it replays "
                           + "and nothing was checked for secrets")
                throw ExitStatus.badInput
            }
            var rules = Redactor()
            rules.keptCookies = Set(keptCookies)
            let findings = SecretScanner.scan(cassette, rules: rules)
            // Bodies under a coding Tapedeck cannot undo: never called clean.
            let unread = SecretScanner.unreadBodies(in: cassette)
            for body in unread { printError("tapedeck: warning: \(file): \(body)") }
            let unreadNote = unread.isEmpty ? ""
                : "; \(unread.count) bod\(unread.count == 1 ? "y" : "ies") could not be checked (see the warnings): check them by hand, or remove those entries"
            guard findings.isEmpty else {
                for finding in findings { printSafe("\(file): \(finding)") }
                // Say what `redact` would leave, so its hint never sends anyone round in a loop.
                var redacted = cassette
                redacted.interactions = cassette.interactions.map { rules.redact($0) }
                let left = SecretScanner.scan(redacted, rules: rules).count
                let fixed = max(0, findings.count - left)
                var line = "\(file): \(findings.count) possible secret(s)"
                if fixed > 0 { line += "; `tapedeck cassette redact \(file)` replaces \(left == 0 ? "them" : "\(fixed) of them")" }
                if left > 0 {
                    line += (left == findings.count ? "; the default rules replace none of them" : "; \(left) the default rules do not replace")
                        + ": name them with `tapedeck cassette redact \(file) --header NAME --query NAME --json-field NAME`, or edit the entries"
                }
                print(line + unreadNote)
                throw ExitStatus.found
            }
            if !unread.isEmpty {
                print("\(file): \(entries(cassette.interactions.count)), no secrets found in what could be read\(unreadNote)")
                if strict { throw ExitStatus.found }
            } else if cassette.creator.lowercased() == "tapedeck" && cassette.foreignFormat == nil && cassette.skipped.isEmpty {
                print("\(file): ok, \(entries(cassette.interactions.count)), no secrets found")
            } else {
                // Another tool's file may hold what no replay reads: said, not claimed clean.
                let skipped = cassette.skipped.isEmpty ? "" : " (\(cassette.skipped.count) skipped, see the warnings)"
                print("\(file): ok, \(entries(cassette.interactions.count))\(skipped), no secrets found in what replays; skipped entries and parts no replay reads "
                      + "(cookie lists, pages, redirectURL, WebSocket messages) are not checked — `tapedeck cassette redact` leaves them out")
            }
        }
    }

    struct Redact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace secrets (credential headers, query items, JSON fields) with REDACTED.",
            discussion: """
            The cassette is rewritten in Tapedeck's form: what replays is kept, while pages, comments, \
            cookie lists, server addresses and other tools' own fields (which may hold secrets too) \
            are left out.
            """)

        @Argument(help: "The cassette.")
        var file: String

        @Option(name: .shortAndLong, help: "Where to write (default: in place, atomically; - for standard output).")
        var output: String?

        @OptionGroup var redaction: RedactionFlags

        func run() throws {
            // First: every write below (the journal's merge too) leaves no temporary file on a signal.
            removeTemporariesOnSignal()
            let inPlace = output.map { samePath($0, file) } ?? true
            if inPlace, CassetteFile.isStream(file) {
                // `redact <(zcat x.har.gz)`: a pipe is read once and cannot take the result back.
                printError("tapedeck: \(file) is no regular file (a pipe or a device): nothing can be redacted in place — write the redacted copy elsewhere with --output FILE")
                throw ExitStatus.badInput
            }
            // Into a cassette a recorder holds (in place or not): its stop would overwrite the result.
            if output != "-" { try refuseWhileRecording(output ?? file, what: "this redaction", elsewhere: "write elsewhere with --output FILE") }
            // In place, another tool's cassette would be rewritten as HAR: refused (it says how to import it).
            var cassette = try load(file, foreign: inPlace ? .refuse : .convert)
            if inPlace && !cassette.skipped.isEmpty {
                // Rewriting in place would drop the entries that could not be read.
                printError("tapedeck: \(file): \(entries(cassette.skipped.count)) cannot be read, and rewriting the file in place would drop them — write the redacted copy elsewhere with --output")
                throw ExitStatus.badInput
            }
            if inPlace {
                // A journal an interrupted recording left is merged (under the recorders' lock) and
                // deleted, so no unredacted copy of its interactions stays beside the redacted file.
                do {
                    if let recovery = try CassetteJournal.recover(cassette: URL(fileURLWithPath: file)) {
                        printError("tapedeck: note: merged \(recovery.recovered) interaction\(recovery.recovered == 1 ? "" : "s") of an interrupted recording's journal into \(file) first"
                                   + (recovery.keptAside.map { "; its damaged end was kept aside in \($0), unredacted: delete it when it is not needed" } ?? ""))
                        cassette = try load(file, warn: false)
                    }
                } catch let error as CassetteError {
                    throw ExitStatus.report(error)
                }
            }
            let redactor = redaction.redactor
            let before = cassette
            cassette.interactions = cassette.interactions.map(redactor.redact)
            let destination = output ?? file
            let attached = inPlace ? attachedBodyFiles(of: file) : []
            do {
                if destination == "-" {
                    // `-o -`: the cassette on standard output (plain JSON), as convert writes it.
                    try writeStandardOutput(CassetteFile.encode(cassette, compression: .none))
                } else {
                    try CassetteFile.write(cassette, to: URL(fileURLWithPath: destination),
                                           compression: output == nil ? CassetteFile.storedCompression(of: URL(fileURLWithPath: file)) : nil)
                }
            } catch {
                throw ExitStatus.report(error)
            }
            let changed = zip(before.interactions, cassette.interactions).count { $0 != $1 }
            let summary = "\(destination == "-" ? "standard output" : destination): redacted \(changed) of \(entries(cassette.interactions.count))\(leftOut(cassette))"
            if destination == "-" { printError("tapedeck: " + summary) } else { print(summary) }
            if !attached.isEmpty {
                // The redacted file embeds those bodies; the files it no longer names still hold them in clear.
                let shown = attached.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (attached.count > 3 ? " and \(attached.count - 3) more" : "")
                printError("tapedeck: note: \(file) now embeds, redacted, the bodies attached as files beside it; those files (\(shown)) "
                           + "still hold them unredacted and nothing names them any more: delete them")
            }
        }
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert between .har and .har.gz (the output's format follows its name unless told).",
            discussion: """
            A cassette that reads whole keeps its JSON text byte for byte; only the compression \
            changes. It is rewritten in Tapedeck's form (what replays is kept; pages, comments, \
            cookie lists and other tools' own fields are not) when it must be: to merge a journal \
            left beside it, to leave out entries that cannot be read, to embed bodies attached as \
            files (_file), or with --normalize-timings.
            """)

        @Argument(help: "The cassette to read.")
        var input: String

        @Argument(help: "Where to write it ('-': standard output, plain JSON unless --gzip).")
        var output: String

        @Flag(help: "Force gzip output.")
        var gzip = false

        @Flag(help: "Force plain JSON output.")
        var plain = false

        @Flag(help: "Write every start time as the epoch and every duration as zero (stable diffs).")
        var normalizeTimings = false

        func validate() throws {
            if gzip && plain { throw ValidationError("--gzip and --plain exclude each other") }
        }

        func run() throws {
            removeTemporariesOnSignal()
            // Into a cassette a recorder holds (itself or another): its stop would overwrite the result.
            if output != "-" { try refuseWhileRecording(output, what: "this conversion", elsewhere: "convert into another file") }
            // Onto itself, another tool's cassette would become HAR under its own name: refused.
            let cassette = try load(input, foreign: samePath(input, output) ? .refuse : .convert)
            let toStandardOutput = output == "-"
            let compression = gzip ? .gzip : (plain || toStandardOutput ? CassetteFile.Compression.none : .forPath(output))
            let outputURL = URL(fileURLWithPath: output)
            // The summary goes where it cannot mix with the cassette's bytes.
            let say: (String) -> Void = toStandardOutput ? { printError("tapedeck: " + $0) } : { print($0) }
            func put(_ data: Data) throws(CassetteError) {
                if toStandardOutput { try writeStandardOutput(data) } else { try CassetteFile.atomicWrite(data, to: outputURL) }
            }
            let inputURL = URL(fileURLWithPath: input)
            let hasJournal = FileManager.default.fileExists(atPath: CassetteJournal.journalURL(for: inputURL).path)
            do {
                // A file that reads whole keeps its JSON text as written (other tools' pages,
                // comments, cookie lists and own fields included): only the compression changes.
                // Rewriting in Tapedeck's form is for what a byte copy cannot do: merging a
                // journal, leaving out skipped entries, embedding attached bodies, zeroing timings.
                // (Not from a pipe: read once already, it has nothing left — a FIFO would wait for ever.)
                // (Nor another tool's file: its bytes are no HAR.)
                if !normalizeTimings, !hasJournal, cassette.skipped.isEmpty, cassette.foreignFormat == nil, !CassetteFile.isStream(input),
                   let json = try? CassetteFile.jsonText(of: inputURL), json.firstRange(of: Data(#""_file""#.utf8)) == nil,
                   let data = compression == .gzip ? try? Zlib.compress(json, format: .gzip) : json {
                    try put(data)
                    say("\(output): \(entries(cassette.interactions.count)), the JSON as written")
                    return
                }
                try put(CassetteFile.encode(cassette, compression: compression, options: HARCodec.WriteOptions(normalizesTimings: normalizeTimings)))
            } catch {
                throw ExitStatus.report(error)
            }
            // (Stubs matching by pattern have no HAR form: noted when the file was read.)
            say("\(output): \(entries(cassette.interactions.count { !$0.answersByPatternOnly }))\(leftOut(cassette)), rewritten in Tapedeck's form "
                  + "(what replays is kept; pages, comments, cookie lists, server addresses, blocked/dns/ssl timings and other tools' own fields are not)")
        }
    }

    /// Test support (hidden): journals `count` interactions, printing `appended N` after each is
    /// durable, so a test can kill this process mid-recording and check recovery.
    struct JournalWriter: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "_journal-writer", shouldDisplay: false)

        @Argument var file: String
        @Option var count: Int = 1_000
        @Option var bodyBytes: Int = 2_000

        func run() throws {
            do throws(CassetteError) {
                let journal = try CassetteJournal(cassette: URL(fileURLWithPath: file))
                let filler = String(repeating: "x", count: bodyBytes)
                for index in 0..<count {
                    let interaction = Interaction(
                        index: index,
                        request: RecordedRequest(method: "GET", url: URL(string: "http://journal.test/items/\(index)")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")],
                                                            body: Data(#"{"index":\#(index),"filler":"\#(filler)"}"#.utf8))))
                    try journal.append(interaction)
                    try? FileHandle.standardOutput.write(contentsOf: Data("appended \(index)\n".utf8))   // unbuffered
                }
            } catch {
                throw ExitStatus.report(error)   // the exit statuses every tapedeck command keeps
            }
        }
    }
}
