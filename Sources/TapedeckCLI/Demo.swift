import ArgumentParser
import TapedeckScheduling

/// `tapedeck demo`: runs a Session-shaped queue tree on the simulated scheduler and prints what happened.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate two Session-shaped queue trees (with a 60 s retry backoff) and print the trace.",
        discussion: """
            Each session has a rootQueue with a requestQueue and a serializationQueue targeting it, \
            as Alamofire's Session does. Requests are set up on requestQueue, wait for a simulated \
            response on rootQueue, fail once with a 503 and retry after 60 s of virtual time, then \
            serialize on serializationQueue. Every queue rule is checked as it runs.
            """
    )

    @Option(help: "Seed for the interleaving of roots ready at the same instant (0 = plain FIFO).")
    var seed: UInt64 = 1

    @Option(help: "Requests per session.")
    var requests: Int = 3

    @Flag(help: "Print every step of the trace.")
    var trace = false

    @Option(help: "Also run the simulation this many times and compare the traces (a determinism check).")
    var check: Int?

    func validate() throws {
        guard (1...1_000).contains(requests) else {
            throw ValidationError("--requests must be between 1 and 1000 (got \(requests))")
        }
        if let check, check < 2 {
            throw ValidationError("--check needs at least 2 runs (got \(check))")
        }
    }

    func run() throws {
        let scheduler = SimulatedScheduler(seed: seed, violationPolicy: .record)
        let outcome = SessionDemo(requestsPerSession: requests).start(on: scheduler)
        let summary = try scheduler.runUntilIdle()

        if trace {
            for step in scheduler.trace { print(step) }
        }
        for line in outcome.lines { print(line) }
        print("virtual time: \(summary.end)  jobs: \(summary.jobs)  steps: \(scheduler.traceCount)")
        print("queue violations: \(scheduler.violations.count)")
        for violation in scheduler.violations { print("  \(violation)") }
        print("seed: \(seed)  trace hash: \(scheduler.traceHash)")

        if let check {
            let report = try DeterminismCheck.run(seed: seed, runs: check) { scheduler in
                _ = SessionDemo(requestsPerSession: requests).start(on: scheduler)
                try scheduler.runUntilIdle()
            }
            print(report)
            if !report.isDeterministic { throw ExitCode(1) }
        }
        if !scheduler.violations.isEmpty { throw ExitCode(1) }
    }
}
