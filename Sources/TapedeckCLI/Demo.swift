import ArgumentParser
import TapedeckScheduling

/// `tapedeck demo`: small simulations that show what the harness does, until scenario files exist.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a built-in simulation and print its timeline, trace hash and determinism check.",
        subcommands: [URLSessionCommand.self, QueuesCommand.self],
        defaultSubcommand: URLSessionCommand.self
    )
}

/// Options every demo takes.
struct DemoOptions: ParsableArguments {
    @Option(help: "Seed for interleavings, jitter and faults (0 = plain FIFO, no randomness in order).")
    var seed: UInt64 = 1

    @Flag(help: "Print every step of the trace.")
    var trace = false

    @Option(help: "Run the simulation this many times more and compare the traces (a determinism check).")
    var check: Int?

    func validate() throws {
        if let check, check < 2 {
            throw ValidationError("--check needs at least 2 runs (got \(check))")
        }
    }

    /// Prints the trace if asked, the hash, and the determinism check; exits 1 if it fails.
    func finish(_ scheduler: SimulatedScheduler, rerun: (SimulatedScheduler) throws -> Void) throws {
        if trace {
            for step in scheduler.trace { print(step) }
        }
        print("seed: \(seed)  virtual time: \(scheduler.now)  jobs: \(scheduler.jobsExecuted)  trace hash: \(scheduler.traceHash)")
        if !scheduler.violations.isEmpty {
            print("queue violations: \(scheduler.violations.count)")
            for violation in scheduler.violations { print("  \(violation)") }
        }
        if let check {
            let report = try DeterminismCheck.run(seed: seed, runs: check, rerun)
            print(report)
            if !report.isDeterministic { throw ExitCode(1) }
        }
        if !scheduler.violations.isEmpty { throw ExitCode(1) }
    }
}

struct QueuesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queues",
        abstract: "Two Session-shaped queue trees with a 60 s retry backoff, scheduler only.",
        discussion: """
            Each session has a rootQueue with a requestQueue and a serializationQueue targeting it, \
            as Alamofire's Session does. Requests are set up on requestQueue, wait for a simulated \
            response on rootQueue, fail once with a 503 and retry after 60 s of virtual time, then \
            serialize on serializationQueue. Every queue rule is checked as it runs.
            """
    )

    @OptionGroup var options: DemoOptions

    @Option(help: "Requests per session.")
    var requests: Int = 3

    func validate() throws {
        guard (1...1_000).contains(requests) else {
            throw ValidationError("--requests must be between 1 and 1000 (got \(requests))")
        }
    }

    func run() throws {
        let scheduler = SimulatedScheduler(seed: options.seed, violationPolicy: .record)
        let outcome = QueueTreeDemo(requestsPerSession: requests).start(on: scheduler)
        try scheduler.runUntilIdle()
        for line in outcome.lines { print(line) }
        try options.finish(scheduler) { scheduler in
            _ = QueueTreeDemo(requestsPerSession: requests).start(on: scheduler)
            try scheduler.runUntilIdle()
        }
    }
}
