import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckScheduling
import TapedeckServer

/// `tapedeck record --upstream URL --cassette FILE`: a recording reverse proxy.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record any HTTP client's traffic to one upstream into a cassette, as a reverse proxy.",
        discussion: """
        Forwards every request to --upstream (only there: never an open relay) and journals each \
        completed interaction (fsynced) before the client gets its answer, redacted as in-process \
        recording is (the default rules; --keep-cookie, --redact-header/-query/-json-field and \
        --no-redact change them). Prints 'tapedeck record: listening on http://HOST:PORT → UPSTREAM, recording' (or 'replaying …') when ready. \
        SIGINT/SIGTERM merge the journal into the cassette and exit 0; after SIGKILL the next \
        open of the cassette recovers the journal.
        """
    )

    @Option(help: "The upstream origin, e.g. http://127.0.0.1:8080.")
    var upstream: String

    @Option(help: "The cassette to record into (.har or .har.gz).")
    var cassette: String

    @Option(help: "once (record when the cassette does not exist), new_episodes or all.")
    var mode: String = "once"

    @OptionGroup var server: ServerFlags

    @OptionGroup var match: MatchFlags

    @Option(parsing: .unconditional, help: "Seconds an upstream request may go without data (recorded as a timeout failure).")
    var upstreamTimeout: Double = 60

    @Option(help: ArgumentHelp("A PEM file of certificate authorities an https upstream's certificate may chain to, besides the system's (repeatable).",
                               valueName: "FILE.pem"))
    var upstreamCa: [String] = []

    @Option(name: .customLong("keep-cookie"), help: ArgumentHelp(
        "A cookie whose value is recorded in clear in Cookie and Set-Cookie fields (repeatable; the name as sent). Every other cookie's value is redacted.",
        valueName: "NAME"))
    var keptCookies: [String] = []

    @Option(name: .customLong("redact-header"), help: ArgumentHelp("Another header to redact (repeatable).", valueName: "NAME"))
    var redactHeaders: [String] = []

    @Option(name: .customLong("redact-query"), help: ArgumentHelp("Another query item (or form field) to redact (repeatable).", valueName: "NAME"))
    var redactQueryItems: [String] = []

    @Option(name: .customLong("redact-json-field"), help: ArgumentHelp("Another JSON field to redact (repeatable).", valueName: "NAME"))
    var redactJSONFields: [String] = []

    @Flag(help: "Record every byte as sent and received: no redaction at all (the cassette then holds your secrets; check it with tapedeck cassette validate).")
    var noRedact = false

    /// The redaction rules the flags ask for: the defaults with the named additions and kept
    /// cookies, or none at all.
    var redactor: Redactor {
        if noRedact { return .none }
        var redactor = Redactor(extraHeaders: Set(redactHeaders), extraQueryItems: Set(redactQueryItems), extraJSONFields: Set(redactJSONFields))
        redactor.keptCookies = Set(keptCookies)
        return redactor
    }

    func validate() throws {
        if noRedact, !(keptCookies.isEmpty && redactHeaders.isEmpty && redactQueryItems.isEmpty && redactJSONFields.isEmpty) {
            throw ValidationError("--no-redact records everything in clear: it does not go with --keep-cookie or --redact-header/-query/-json-field")
        }
        guard let url = URL(string: upstream), ReplayService.isOrigin(url) else {
            throw ValidationError("--upstream takes an http(s) origin such as http://127.0.0.1:8080 (a port from 1 to 65535), without a path or query: "
                + "each request goes to its own path there (got '\(upstream)')")
        }
        guard let mode = CassetteRecorder.Mode(parsing: mode), mode != .replayOnly else {
            throw ValidationError("--mode takes once, new_episodes or all (got '\(mode)'); to replay, use tapedeck serve")
        }
        try ServerFlags.checkSeconds(upstreamTimeout, flag: "--upstream-timeout")
        if !upstreamCa.isEmpty, URL(string: upstream)?.scheme?.lowercased() != "https" {
            throw ValidationError("--upstream-ca is for an https upstream (got '\(upstream)')")
        }
    }

    /// The `--upstream-ca` files' contents, each checked to hold certificates; a file that cannot
    /// be read or holds none is bad input (exit 2), said with what to do.
    private func trustedCertificates() throws -> [Data] {
        try upstreamCa.map { path in
            var isDirectory: ObjCBool = false
            let problem: String?
            var pem = Data()
            if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                problem = "there is no such file"
            } else if isDirectory.boolValue {
                problem = "it is a directory; name the PEM file in it"
            } else {
                // At most 4 MiB: a CA bundle is far smaller, and a device such as /dev/zero never ends.
                switch Result(catching: { try FileStream.read(atPath: path, limit: 4 << 20) }) {
                case let .success(read?): pem = read; problem = nil
                case .success(.none): problem = "it is larger than 4 MiB, too large for a certificate file"
                case .failure(is FileStream.CannotOpen): problem = "it cannot be opened (check its permissions)"
                case let .failure(error): problem = "it cannot be read (\(error.localizedDescription))"
                }
            }
            if let problem {
                printError("tapedeck: --upstream-ca \(path): \(problem)")
                throw ExitStatus.badInput
            }
            do {
                _ = try UpstreamClient.certificates(inPEM: pem)
            } catch let error as UpstreamTrustError {
                printError("tapedeck: --upstream-ca \(path): \(error.message)")
                throw ExitStatus.badInput
            } catch {
                printError("tapedeck: --upstream-ca \(path): no certificate could be read from it — give a PEM file of CA certificates "
                           + "(lines like -----BEGIN CERTIFICATE-----); convert a DER file with `openssl x509 -inform der -in FILE -out FILE.pem`")
                throw ExitStatus.badInput
            }
            return pem
        }
    }

    func run() throws {
        let signals = TerminationSignals.block()   // before any thread starts (see TerminationSignals)
        var options = CassetteRecorder.Options(mode: CassetteRecorder.Mode(parsing: mode)!)
        options.live = LiveForwarder.Options(timeout: .milliseconds(Int64(upstreamTimeout * 1_000)))
        options.rules = match.rules
        options.redactor = redactor
        let trusted = try trustedCertificates()
        _ = try server.checkThreads()   // before the cassette is opened and locked
        let service: RecordService
        do {
            service = try RecordService(upstream: URL(string: upstream)!, cassette: URL(fileURLWithPath: cassette), options: options,
                                        trusting: trusted, log: { printError("tapedeck record: " + $0) })
        } catch {
            throw ExitStatus.report(error)
        }
        if let recovery = service.recorder.recovery { printError(recovery.summary(by: "tapedeck record")) }
        // The stop names the answers it cuts off, which needs the list of those not yet written.
        let http = try server.start(service, tracksUnwrittenAnswers: true)
        let existing = service.recorder.base.interactions.count
        if options.mode == .all, existing > 0 {
            printError("tapedeck record: warning: --mode all replaces the cassette's \(existing) entr\(existing == 1 ? "y" : "ies") with this recording when it stops; --mode new_episodes adds to them instead")
        } else if service.recorder.isRecording, existing > 0 {
            // New entries are redacted; the ones already there are kept as they are (another
            // tool's HAR may hold tokens in clear).
            let found = SecretScanner.scan(service.recorder.base, rules: options.redactor)
            if let first = found.first {
                printError("tapedeck record: warning: the cassette's existing entries hold \(found.count) thing\(found.count == 1 ? "" : "s") that look\(found.count == 1 ? "s" : "") like "
                    + "secrets (e.g. \(first)), kept as they are: new entries are redacted, old ones are not — run `tapedeck cassette redact \(cassette)` after this recording")
            }
        }
        if options.mode != .all, let warning = service.recorder.foreignFileWarning { printError("tapedeck record: warning: " + warning) }
        let recording = service.recorder.isRecording ? "recording" : "replaying (the cassette exists; --mode new_episodes or all to record)"
        announce("tapedeck record: listening on http://\(urlHost(http.options.host)):\(http.port) → \(upstream), \(recording)")
        // SIGHUP too: a closed terminal must not leave the proxy holding its port and the cassette.
        let signal = signals.wait(onHangUp: nil)
        // Stop taking requests and let those under way finish: each is bounded by the upstream
        // timeout, so the drain waits that long and a little more — for the answers still being
        // written to slow clients too, within the same time. Then merge the journal.
        http.stopAccepting()
        let drain = Duration.milliseconds(Int64(upstreamTimeout * 1_000)) + .seconds(2)
        // The list of bodies arriving first: a request leaves it only once counted in flight.
        // Then the answers being made, then those not yet written whole (an answer is on that
        // list from its request's dispatch until its last byte is with the kernel: once there,
        // the closing connection loses none of it). The recorder last: a client that hung up
        // leaves the server's counts at once, while its upstream exchange still runs to the journal.
        let drained = { http.receiving.isEmpty && http.inFlight == 0 && http.unwrittenAnswers == 0 && service.settled }
        if !drained() {
            // Said at once: an endless stream (an event feed) would otherwise keep the stop silent.
            printError("tapedeck record: stopping (signal \(signal)): waiting up to \(drain) for the requests under way "
                + "(a second signal cuts them off now)")
        }
        // (A SIGHUP is no second signal: a closing terminal sends one, and its shell another.)
        // (A second signal ends the wait early: the messages give the time waited, not the limit.)
        let waited = Self.wait(upTo: drain) { drained() || signals.takePending().map { $0 != SIGHUP } == true }
        // Named as the cut-off ones are: the target redacted (a token in its query stays out of logs).
        let redactor = service.recorder.options.redactor
        let stillSending = http.receiving.map { Self.shown($0, redactor) }.sorted()
        if !stillSending.isEmpty {
            // Their bodies never came whole: nothing was forwarded, so nothing is recorded.
            let count = stillSending.count == 1 ? "1 request was" : "\(stillSending.count) requests were"
            printError("tapedeck record: \(count) still sending \(stillSending.count == 1 ? "its body" : "their bodies") after \(Self.seconds(waited)) and cut off: "
                + "not forwarded, not recorded: \(stillSending.joined(separator: ", "))")
        }
        cutOff(service, http, after: waited)
        do {
            // Before the event loops stop: the upstream connections close on them.
            defer { try? http.shutdown() }
            let summary = try service.finish()
            printError("tapedeck record: stopped (signal \(signal)); \(summary.recorded) recorded"
                + (summary.journal.map { " in \($0.fsyncs) fsyncs" } ?? "") + ", \(summary.replayed) replayed"
                + (summary.recordedFailures.isEmpty ? "" : ", \(summary.recordedFailures.count) upstream failures recorded")
                + (service.unrecordedFailures == 0 ? "" : ", \(service.unrecordedFailures) upstream failures answered 502 and not recorded")
                + (summary.misses.isEmpty ? "" : ", \(summary.misses.count) miss\(summary.misses.count == 1 ? "" : "es")")
                + (summary.written.map { ", cassette has \($0.interactions.count) interaction\($0.interactions.count == 1 ? "" : "s")" } ?? ", nothing to write"))
            for skipped in summary.written?.skipped ?? [] {
                printError("tapedeck record: warning: the journal's \(skipped); the journal is kept beside the cassette as .damaged")
            }
        } catch {
            printError("tapedeck record: \(error) (the journal beside the cassette keeps what was recorded)")
            throw ExitStatus.otherFailure
        }
    }

    /// Polls `done` every 10 ms until it holds or `limit` has passed (the live shutdown path: wall
    /// time is what a stopping proxy has); returns the time it waited.
    @discardableResult
    private static func wait(upTo limit: Duration, until done: () -> Bool) -> Duration {
        let start = ContinuousClock.now
        let deadline = start + limit
        while !done() && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return ContinuousClock.now - start
    }

    /// A wait as people read it: `0.6 seconds`, `32.0 seconds`.
    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f seconds", duration.timeInterval)
    }

    /// A request as the server lists it (`GET /x?token=…`), its target redacted for a log line.
    private static func shown(_ name: String, _ redactor: Redactor) -> String {
        guard let space = name.firstIndex(of: " ") else { return name }
        return name[..<space] + " " + redactor.redactURLText(String(name[name.index(after: space)...]))
    }

    /// Cuts off what is still under way after the drain, each named, its client's connection
    /// reset (a cut-off answer, never one that looks complete): exchanges whose upstream side
    /// has not completed are cancelled and not recorded — a stop is not the upstream's failure,
    /// and kept as one it would replay as a 502 — and answers complete but still being written
    /// to a slow client are named with what became of them (the cassette holds a recorded one
    /// whole). Then waits until the recorder has heard of every cancel, so that finishing
    /// reports nothing still running: a cancel is heard at once, but an exchange the upstream
    /// completed just before the cut is journalled first (it cannot be stopped halfway) — said
    /// when that takes a while, since the announced wait is over.
    private func cutOff(_ service: RecordService, _ http: TapedeckHTTPServer, after drain: Duration) {
        // The answers first, before the recorder's cut resets its streams (which takes them
        // off the server's list unnamed); reset once the recorder's cut has counted its own.
        let unwritten = http.takeUnwritten()
        let live = service.cutOff()
        for answer in unwritten { answer.reset() }
        guard !live.isEmpty || !unwritten.isEmpty else { return }
        Self.wait(upTo: .milliseconds(200)) { service.settled }
        if !service.settled {
            let journalling = service.recorder.liveRequests
            printError("tapedeck record: finishing the journal: \(journalling == 1 ? "1 exchange" : "\(journalling) exchanges") the upstream "
                + "completed just before the cut \(journalling == 1 ? "is" : "are") being written to it")
        }
        Self.wait(upTo: .seconds(60)) { service.settled }
        let cut = service.cutOffNotRecorded
        if !cut.isEmpty {
            let count = cut.count == 1 ? "1 request was" : "\(cut.count) requests were"
            printError("tapedeck record: \(count) still under way after \(Self.seconds(drain)) and cut off: not recorded, "
                + "\(cut.count == 1 ? "its client's connection" : "their clients' connections") reset: \(cut.joined(separator: ", "))")
        }
        // Read after the wait: an exchange journalled after the cut is noted so by then.
        let redactor = service.recorder.options.redactor
        let written = unwritten.compactMap { answer -> String? in
            switch answer.noted {
            case .forwarding: return nil   // never completed: named above
            case .unsaid: return Self.shown(answer.name, redactor)
            case let .said(what): return Self.shown(answer.name, redactor) + " (\(what))"
            }
        }
        guard !written.isEmpty else { return }
        let count = written.count == 1 ? "1 answer was still being written to its client" : "\(written.count) answers were still being written to their clients"
        printError("tapedeck record: \(count) after \(Self.seconds(drain)) and cut off, \(written.count == 1 ? "its connection" : "their connections") reset: "
            + written.joined(separator: ", "))
    }
}
