import ArgumentParser
import Foundation
import TapedeckCassettes
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
            Prints one line per request and the trace hash. With --cassette, a recording answers \
            instead (its timings on the virtual clock) and 503s and resets are injected into it.
            """
    )

    @OptionGroup var options: DemoOptions

    @Option(help: "Number of requests.")
    var requests: Int = 12

    @Option(help: "Answer from this cassette (.har or .har.gz) instead of the built-in API: the client asks for its GET URLs in turn.")
    var cassette: String?

    func validate() throws {
        guard (1...10_000).contains(requests) else {
            throw ValidationError("--requests must be between 1 and 10000 (got \(requests))")
        }
    }

    func run() throws {
        var demo = URLSessionDemo(requests: requests)
        if let cassette {
            do {
                demo.cassette = try CassetteFile.read(URL(fileURLWithPath: cassette))
            } catch {
                throw ExitStatus.report(error)
            }
            guard let loaded = demo.cassette, !URLSessionDemo.replayURLs(loaded).isEmpty else {
                printError("tapedeck: \(cassette): the cassette holds no GET request the client could start with — record one first")
                throw ExitStatus.badInput
            }
        }
        let scheduler = SimulatedScheduler(seed: options.seed, violationPolicy: .record)
        let lines = try demo.run(on: scheduler)
        for line in lines { print(line) }
        try options.finish(scheduler) { scheduler in
            _ = try demo.run(on: scheduler)
        }
    }
}
