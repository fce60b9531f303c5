import ArgumentParser
import Dispatch
import Foundation
import TapedeckServer

/// The listening and limit options `tapedeck serve` and `tapedeck record` share.
struct ServerFlags: ParsableArguments {
    @Option(help: "Where to listen: HOST:PORT, :PORT or PORT (port 0: any free one, printed at start).")
    var listen: String = "127.0.0.1:0"

    @Flag(help: "Allow a non-loopback --listen address (the server then answers anyone who can reach it).")
    var allowNonLoopback = false

    @Option(help: "The most connections open at once (one more gets 503).")
    var maxConnections: Int = 4_096

    @Option(help: "The most bytes of request head (more gets 431).")
    var maxHeaderBytes: Int = 32 * 1024

    @Option(help: "The most bytes of request body (more gets 413).")
    var maxBodyBytes: Int = 64 * 1024 * 1024

    @Option(help: "Seconds a connection may take to send a request head, or sit idle (then 408).")
    var headerTimeout: Double = 10

    @Option(help: "Event loop threads (0: one per core).")
    var threads: Int = 0

    func validate() throws {
        guard let (host, _) = ServerOptions.parseListen(listen) else {
            throw ValidationError("--listen takes HOST:PORT, :PORT or PORT (got '\(listen)')")
        }
        if !ServerOptions.isLoopback(host) && !allowNonLoopback {
            throw ValidationError("--listen \(listen) is not a loopback address; add --allow-non-loopback to serve other machines")
        }
        guard headerTimeout.isFinite, headerTimeout > 0, headerTimeout <= 86_400 else {
            throw ValidationError("--header-timeout takes seconds between 0 and 86400 (got \(headerTimeout))")
        }
        if maxConnections < 1 || maxHeaderBytes < 256 || maxBodyBytes < 0 || threads < 0 {
            throw ValidationError("limits must be positive (--max-header-bytes at least 256)")
        }
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
    /// Starts listening with `service`, or says why it cannot and fails with exit status 3.
    func start(_ service: any ExchangeService) throws -> TapedeckHTTPServer {
        do {
            return try TapedeckHTTPServer(service: service, options: options())
        } catch {
            printError("tapedeck: cannot listen on \(listen): \(error)")
            throw ExitStatus.otherFailure
        }
    }
}

/// Waits for SIGINT or SIGTERM (returning which), running `onHangUp` on every SIGHUP meanwhile.
func waitForTermination(onHangUp: @escaping @Sendable () -> Void) -> Int32 {
    let queue = DispatchQueue(label: "tapedeck.signals")
    let done = DispatchSemaphore(value: 0)
    final class Box: @unchecked Sendable { var signal: Int32 = 0 }   // written once, on `queue`, before `done` is signalled
    let box = Box()
    var sources: [any DispatchSourceSignal] = []
    for number in [SIGINT, SIGTERM, SIGHUP] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
            if number == SIGHUP { return onHangUp() }
            guard box.signal == 0 else { return }
            box.signal = number
            done.signal()
        }
        source.resume()
        sources.append(source)
    }
    done.wait()
    return queue.sync { box.signal }
}

/// Prints the readiness line tests and scripts wait for, and flushes it.
func announce(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
