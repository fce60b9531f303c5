import Foundation
import TapedeckBridge
import TapedeckClient
import TapedeckNetwork
import TapedeckScheduling

/// The full client pipeline (Session, request setup, validation, task ledger with metrics, a
/// Decodable serializer, handler on the rootQueue) against plain URLSession data tasks, both over
/// the lockstep bridge on the simulated network, sequentially and with 64 in flight.
func runPipelineBenchmark() throws {
    let requests = 4_000
    let body = #"{"method":"GET","path":"/get","query":""}"#
    for concurrency in [1, 64] {
        let pipeline = try medianSeconds(repetitions: 3) { try runThroughPipeline(requests: requests, concurrency: concurrency, body: body) }
        let plain = try medianSeconds(repetitions: 3) { try runThroughBridge(requests: requests, concurrency: concurrency, body: body) }
        report("pipeline", [
            "concurrency": String(concurrency),
            "requests": String(requests),
            "pipeline_rps": rate(requests, pipeline),
            "urlsession_rps": rate(requests, plain),
            "cost_ratio": fixed(pipeline / plain),
            "goal": "2",
        ])
    }
}

private struct Echo: Decodable, Sendable {
    let method: String
    let path: String
}

func runThroughPipeline(requests: Int, concurrency: Int, body: String) throws {
    let scheduler = SimulatedScheduler(seed: 1, traceMode: .hashOnly)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/get", .json(200, body))
    let harness = Harness(network: network)
    defer { harness.endSimulation() }   // frees the URLSession (and its sockets) between repetitions
    let session = Session(provider: harness, scheduler: scheduler)
    let url = URL(string: "http://api.test/get")!
    let loop = ClosedLoop(requests: requests) { finished in
        session.request(url).validate().responseDecodable(of: Echo.self) { response in
            precondition(response.value?.path == "/get", "pipeline request failed: \(String(describing: response.error))")
            finished()
        }
    }
    session.rootQueue.async { for _ in 0..<concurrency { loop.startNext() } }
    try scheduler.runUntilIdle()
    precondition(loop.done.wait(timeout: .now()) == .success, "not every pipeline request finished")
}
