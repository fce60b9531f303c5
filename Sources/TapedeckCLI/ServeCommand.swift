import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckScenarios
import TapedeckServer

/// `tapedeck serve FILE.har.gz`: replays a cassette to any HTTP client over real sockets.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Replay a cassette to any HTTP client on a local port, with seeded socket faults.",
        discussion: """
        Answers from the cassette with the same matching and in-order consumption as in-process \
        replay. A request nothing matches gets --on-miss (404 by default) with the closest entries \
        in its body, and is logged. Prints 'tapedeck serve: listening on http://HOST:PORT' when \
        ready. Admin: GET /__tapedeck/health, POST /__tapedeck/reset (also SIGHUP), \
        GET /__tapedeck/misses, GET /__tapedeck/faults. SIGINT/SIGTERM stop it (exit 0). A Host \
        recorded under both http and https is matched by X-Forwarded-Proto, --scheme, or the \
        recording's order; an absolute-form target (proxy style) is matched as it stands.
        """
    )

    @Argument(help: "The cassette (.har or .har.gz; or another tool's: vcrpy, VCR, Betamax, go-vcr, DVR, Postman, WireMock (a file or its folder), Hoverfly: read as it is).")
    var cassette: String

    @OptionGroup var server: ServerFlags

    @OptionGroup var match: MatchFlags

    @Option(help: "Timings: recorded, instant or scale=X.")
    var timing: String = "recorded"

    @Option(help: "A fault plan: a YAML file with a 'faults:' list (a scenario file's faults section).")
    var faults: String?

    @Option(parsing: .unconditional, help: "The fault plan's seed (default: the plan's 'seed', else 1).", transform: parseSeed)
    var seed: UInt64?

    @Option(help: "On a miss: 404, 502 or passthrough=URL (forwarded there, not recorded).")
    var onMiss: String = "404"

    @Option(help: "When a Host was recorded under both http and https: the scheme to replay it as (http or https), unless the request's X-Forwarded-Proto says.")
    var scheme: String?

    @Flag(help: "Do not log misses and faults to standard error (nor the cassette's warnings at start).")
    var quiet = false

    func validate() throws {
        if ReplayService.Timing(parsing: timing) == nil { throw ValidationError("--timing takes recorded, instant or scale=X (got '\(timing)')") }
        if ReplayService.OnMiss(parsing: onMiss) == nil { throw ValidationError("--on-miss takes 404, 502 or passthrough=ORIGIN, an http(s) origin without a path such as passthrough=http://127.0.0.1:8080 (got '\(onMiss)')") }
        if let scheme, !["http", "https"].contains(scheme.lowercased()) { throw ValidationError("--scheme takes http or https (got '\(scheme)')") }
    }

    /// Merges a journal an interrupted recording left, saying so (and what it could not keep);
    /// leaves alone the journal of a recording still running in another process, saying that too.
    /// A first recording still running (only its journal exists) leaves nothing to serve: that is
    /// said, and the command fails with exit status 2.
    private func recoverJournal(_ url: URL) throws {
        if let pid = CassetteJournal.liveRecorder(of: url) {
            guard FileManager.default.fileExists(atPath: url.path) else {
                printError("tapedeck serve: \(cassette) has nothing finished to serve yet: its first recording is in progress"
                    + "\(pid > 0 ? " (pid \(pid))" : "") and only its journal exists — stop the recorder (SIGINT or SIGTERM) "
                    + "or wait for it to finish, then serve it")
                throw ExitStatus.badInput
            }
            printError("tapedeck serve: warning: another process\(pid > 0 ? " (pid \(pid))" : "") is recording \(cassette): serving it as last "
                + "finished, without what that recording journals meanwhile (restart serve once it has stopped)")
            return
        }
        guard let recovery = try CassetteJournal.recover(cassette: url), !quiet else { return }
        printError(recovery.summary(by: "tapedeck serve"))
    }

    func run() throws {
        let signals = TerminationSignals.block()   // before any thread starts (see TerminationSignals)
        var options = ReplayService.Options(timing: ReplayService.Timing(parsing: timing)!, onMiss: ReplayService.OnMiss(parsing: onMiss)!)
        options.preferredScheme = scheme?.lowercased()
        options.rules = match.rules
        if let faults {
            let plan: FaultPlan
            do {
                plan = try FaultPlan.load(URL(fileURLWithPath: faults))
            } catch {
                printError("tapedeck: \(error)")
                throw ExitStatus.badInput
            }
            let socketFaults = SocketFaults(plan: plan, seed: seed ?? plan.seed ?? 1)
            for name in socketFaults.unsupported where !quiet {
                printError("tapedeck: warning: fault \(name) is a client-side effect a server cannot cause; ignored")
            }
            options.faults = socketFaults
        }
        if !quiet { options.log = { printError("tapedeck serve: \($0)") } }
        let service: ReplayService
        do {
            try recoverJournal(URL(fileURLWithPath: cassette))
            service = try ReplayService(contentsOf: URL(fileURLWithPath: cassette), options: options)
        } catch let error as CassetteError {
            throw ExitStatus.report(error)
        }
        if !quiet {
            noteForeign(service.cassette, path: cassette)
            for skipped in service.cassette.skipped { printError("tapedeck: warning: \(cassette): \(skipped)") }
            for note in service.cassette.notes { printError("tapedeck: warning: \(cassette): \(note)") }
            // A route no entry answers can never fire: misses get no faults. (A GET entry answers a HEAD too;
            // which requests a stub matching by pattern answers cannot be told, so none is warned about then.)
            let hasPatternStubs = service.cassette.interactions.contains { $0.pattern != nil }
            for site in service.options.faults?.sites ?? [] where !hasPatternStubs {
                guard let pattern = site.pattern, !service.cassette.interactions.contains(where: {
                    pattern.matches(method: $0.request.method, url: $0.request.url)
                        || $0.request.method.uppercased() == "GET" && pattern.matches(method: "HEAD", url: $0.request.url)
                }) else { continue }
                printError("tapedeck: warning: fault \(site.name): its route \(pattern) matches no entry of \(cassette), so it never fires "
                           + "(a miss gets no fault); `tapedeck cassette inspect \(cassette)` lists the entries")
            }
        }
        let http = try server.start(service)
        // A fault window counts from when requests can arrive, not from before the cassette loaded.
        service.options.faults?.startClock()
        announce("tapedeck serve: listening on http://\(urlHost(http.options.host)):\(http.port) (\(service.cassette.interactions.count) interaction\(service.cassette.interactions.count == 1 ? "" : "s"))")
        let signal = signals.wait { service.reset() }
        try? http.shutdown()
        // Since the start, resets and all (the admin reset and SIGHUP start the counts over).
        let counts = service.lifetimeCounts
        var line = "tapedeck serve: stopped (signal \(signal)); \(counts.played) interaction\(counts.played == 1 ? "" : "s") played, "
            + "\(counts.misses) miss\(counts.misses == 1 ? "" : "es")"
        if counts.resets > 0 {
            line += " (\(counts.resets) reset\(counts.resets == 1 ? "" : "s"); since the last: \(service.playedCount) played, \(service.missCount) missed)"
        }
        printError(line)
    }
}
