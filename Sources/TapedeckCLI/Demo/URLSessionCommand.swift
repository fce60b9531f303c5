import ArgumentParser
import TapedeckScheduling

struct URLSessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "urlsession",
        abstract: "A real URLSession client on a simulated network with injected faults.",
        discussion: """
            A plain URLSessionDataDelegate client, its callbacks on a simulated root queue, sends \
            requests to a simulated API: jittered latency, a gzip body, a redirect, a slow endpoint \
            with a 2 s timeout, 503s and connection resets injected at random from the seed. The \
            client retries 503s and resets with exponential backoff (0.5 s, 1 s, 2 s) on virtual time. \
            Prints one line per request and the trace hash.
            """
    )

    @OptionGroup var options: DemoOptions

    @Option(help: "Number of requests.")
    var requests: Int = 12

    func validate() throws {
        guard (1...10_000).contains(requests) else {
            throw ValidationError("--requests must be between 1 and 10000 (got \(requests))")
        }
    }

    func run() throws {
        let scheduler = SimulatedScheduler(seed: options.seed, violationPolicy: .record)
        let demo = URLSessionDemo(requests: requests)
        let lines = try demo.run(on: scheduler)
        for line in lines { print(line) }
        try options.finish(scheduler) { scheduler in
            _ = try URLSessionDemo(requests: requests).run(on: scheduler)
        }
    }
}
