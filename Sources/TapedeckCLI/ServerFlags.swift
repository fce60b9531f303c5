import ArgumentParser
import Foundation
import TapedeckCassettes
import TapedeckServer

/// The listening and limit options `tapedeck serve` and `tapedeck record` share.
struct ServerFlags: ParsableArguments {
    @Option(help: "Where to listen: HOST:PORT, :PORT or PORT (port 0: any free one, printed at start).")
    var listen: String = "127.0.0.1:0"

    @Flag(help: "Allow a non-loopback --listen address (the server then answers anyone who can reach it).")
    var allowNonLoopback = false

    // `.unconditional`: a value that starts with '-' (`--max-body-bytes -1`) is taken as the value
    // and refused by `validate()` with the flag and its range, not read as a missing value.
    @Option(parsing: .unconditional, help: "The most connections open at once (one more gets 503).")
    var maxConnections: Int = 4_096

    @Option(parsing: .unconditional, help: "The most bytes of request head (more gets 431).")
    var maxHeaderBytes: Int = 32 * 1024

    @Option(parsing: .unconditional, help: "The most bytes of request body (more gets 413).")
    var maxBodyBytes: Int = 64 * 1024 * 1024

    @Option(parsing: .unconditional, help: "Seconds a connection may take to send a request head (then 408), or sit idle (then it is closed).")
    var headerTimeout: Double = 10

    @Option(parsing: .unconditional, help: "Event loop threads (0: one per core).")
    var threads: Int = 0

    func validate() throws {
        guard let (host, _) = ServerOptions.parseListen(listen) else {
            throw ValidationError("--listen takes HOST:PORT, :PORT or PORT (got '\(listen)')")
        }
        if !ServerOptions.isLoopback(host) && !allowNonLoopback {
            throw ValidationError("--listen \(listen) is not a loopback address; add --allow-non-loopback to serve other machines")
        }
        try Self.checkSeconds(headerTimeout, flag: "--header-timeout")
        try Self.check(maxConnections, flag: "--max-connections", atLeast: 1)
        try Self.check(maxHeaderBytes, flag: "--max-header-bytes", atLeast: 256)
        try Self.check(maxBodyBytes, flag: "--max-body-bytes", atLeast: 0)
        try Self.check(threads, flag: "--threads", atLeast: 0)
        if threads > Self.maxThreads {
            throw ValidationError("--threads takes a whole number from 0 to \(Self.maxThreads) (got \(threads))")
        }
    }

    /// The most event loop threads: each holds descriptors of its own (see ``descriptorsPerThread``),
    /// and a loop that cannot make them stops the process (NIO treats it as fatal).
    static let maxThreads = 1_024
    /// Descriptors one event loop thread holds (its epoll, eventfd and timerfd on Linux).
    static let descriptorsPerThread = 3
    /// Descriptors kept for the rest: standard streams, the listening socket, the cassette and its journal.
    static let reservedDescriptors = 64

    /// Refuses `value` below `minimum`, naming the flag, the value and the range.
    static func check(_ value: Int, flag: String, atLeast minimum: Int) throws {
        guard value < minimum else { return }
        throw ValidationError("\(flag) takes a whole number of at least \(minimum) (got \(value))")
    }

    /// Refuses a number of seconds that is not more than 0 and at most a day (86400), naming the flag.
    static func checkSeconds(_ seconds: Double, flag: String) throws {
        guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw ValidationError("\(flag) takes seconds more than 0 and at most 86400 (got \(shown(seconds)))")
        }
    }

    /// A number of seconds as the user would write it: `0`, `1.5`, `nan`.
    static func shown(_ seconds: Double) -> String {
        seconds.isFinite && seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : "\(seconds)"
    }

    /// The server options these flags describe (a warning printed for a non-loopback address).
    func options() -> ServerOptions {
        var options = ServerOptions()
        let (host, port) = ServerOptions.parseListen(listen) ?? ("127.0.0.1", 0)
        if !ServerOptions.isLoopback(host) {
            printError("tapedeck: warning: listening on \(host), not loopback: anyone who can reach it can use this server")
        }
        options.host = host
        options.port = port
        options.maxConnections = maxConnections
        options.maxHeaderBytes = maxHeaderBytes
        options.maxBodyBytes = maxBodyBytes
        options.headerTimeout = .milliseconds(Int64(headerTimeout * 1_000))
        options.threads = threads
        return options
    }
}

extension ServerFlags {
    /// Starts listening with `service`, or says why it cannot and fails with exit status 3. The
    /// connection limit is kept within the descriptors the process may open (raised to the
    /// system's hard limit first): past them accept fails, and NIO retried it in a busy loop with
    /// no 503 for anyone. `tracksUnwrittenAnswers` keeps the list of answers not yet written
    /// whole, which costs every request (only `record`'s stop needs it).
    func start(_ service: any ExchangeService, tracksUnwrittenAnswers: Bool = false) throws -> TapedeckHTTPServer {
        var options = options()
        options.tracksUnwrittenAnswers = tracksUnwrittenAnswers
        let (limit, forLoops) = try checkThreads()
        let usable = max(1, (limit - Self.reservedDescriptors - forLoops) / max(1, service.descriptorsPerConnection))
        if options.maxConnections > usable {
            printError("tapedeck: warning: --max-connections \(options.maxConnections) is more than this process can open "
                       + "(ulimit -n); using \(usable)")
            options.maxConnections = usable
        }
        do {
            return try TapedeckHTTPServer(service: service, options: options)
        } catch {
            let text = "\(error)"
            let reason = text.contains("Address already in use")
                ? "the address is in use (another process listens there) — choose another port, or port 0 for any free one"
                : text
            printError("tapedeck: cannot listen on \(listen): \(reason)")
            throw ExitStatus.otherFailure
        }
    }
}

extension ServerFlags {
    /// Raises the descriptor limit and checks that the event loop threads fit in it; returns the
    /// limit and the descriptors the loops take. Threads that do not fit are a usage error (64),
    /// said before any starts: NIO stops the process when a loop cannot open its descriptors.
    func checkThreads() throws -> (limit: Int, forLoops: Int) {
        let limit = Self.raiseDescriptorLimit()
        var wanted = ServerOptions()
        wanted.threads = threads
        let loops = wanted.loopThreads
        let forLoops = loops * Self.descriptorsPerThread
        guard forLoops + Self.reservedDescriptors < limit else {
            let most = max(0, (limit - Self.reservedDescriptors - 1) / Self.descriptorsPerThread)
            printError("tapedeck: \(threads > 0 ? "--threads \(threads)" : "one event loop thread per core (\(loops))") needs "
                       + "\(forLoops) descriptors (\(Self.descriptorsPerThread) a thread) besides \(Self.reservedDescriptors) for the rest, "
                       + "more than this process may open (ulimit -n \(limit)): give --threads \(most) or fewer, or raise ulimit -n")
            throw ExitCode.validationFailure
        }
        return (limit, forLoops)
    }

    /// Raises the soft limit on open descriptors to the hard one; returns the soft limit after.
    static func raiseDescriptorLimit() -> Int {
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        let ceiling = rlim_t(1 << 30)
        #else
        let resource = RLIMIT_NOFILE
        let ceiling = rlim_t(OPEN_MAX)   // Darwin refuses a soft limit above it (its hard one is RLIM_INFINITY)
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1_024 }
        let wanted = min(limit.rlim_max, ceiling)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: min(limit.rlim_cur, ceiling))
    }
}

/// SIGINT, SIGTERM and SIGHUP for a server command, taken synchronously so none can be lost.
///
/// ``block()`` runs first in the command, before any thread exists: the three signals are
/// blocked in the main thread, and every thread started afterwards (the event loops, the
/// upstream client's) inherits that, so a signal sent at any moment after — right after the
/// readiness line, or before it — stays pending until ``wait(onHangUp:)`` takes it. (A handler
/// installed after the readiness line left a window in which a signal was lost, or killed the
/// process with the default action.)
struct TerminationSignals {
    private var set = sigset_t()

    /// Blocks the signals in the calling thread and the threads it starts from now on.
    static func block() -> TerminationSignals {
        var signals = TerminationSignals()
        sigemptyset(&signals.set)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals.set, number) }
        pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Waits for SIGINT or SIGTERM (returning which), running `onHangUp` on every SIGHUP meanwhile;
    /// with `onHangUp` nil, a SIGHUP (the terminal closed) stops as they do.
    func wait(onHangUp: (() -> Void)?) -> Int32 {
        var set = self.set
        while true {
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { continue }
            if number == SIGHUP, let onHangUp {
                onHangUp()
                continue
            }
            return number
        }
    }

    /// A signal of the three sent since it was last taken, taken now (nil: none is pending).
    func takePending() -> Int32? {
        var pending = sigset_t()
        sigpending(&pending)
        for number in [SIGINT, SIGTERM, SIGHUP] where sigismember(&pending, number) == 1 {
            var one = sigset_t()
            sigemptyset(&one)
            sigaddset(&one, number)
            var taken: Int32 = 0
            if sigwait(&one, &taken) == 0 { return taken }
        }
        return nil
    }
}


/// Prints the readiness line tests and scripts wait for, and flushes it.
func announce(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
