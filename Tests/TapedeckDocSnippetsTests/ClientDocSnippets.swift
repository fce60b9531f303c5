// The Swift snippet of docs/client.md, as written inside a function (its `Item` is the one it
// declares), with the page's import lines and no others. The line added for the test is marked
// `// (test)`; ClientDocSnippetTests.swift runs it.

import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

/// docs/client.md, "Example".
func client_example(results: Box<[(Result<[ClientDocItem], AFError>, onRootQueue: Bool)]>) throws -> SimulatedScheduler {
    struct Item: Decodable, Sendable { let id: Int; let name: String }

    let scheduler = SimulatedScheduler(seed: 7)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/items",
                 options: RouteOptions(latency: .fixed(.milliseconds(80))),
                 .json(200, #"[{"id":1,"name":"a"}]"#))
    let harness = Harness(network: network)
    let session = Session(provider: harness, scheduler: scheduler, interceptor: .retryPolicy)

    session.request("http://api.test/items")
        .validate()
        .responseDecodable(of: [Item].self) { response in
            print(response.result)        // on session.rootQueue
            results.withLock { $0.append((response.result.map { $0.map { ClientDocItem(id: $0.id, name: $0.name) } }, session.rootQueue.isCurrent)) }   // (test)
        }
    try scheduler.runUntilIdle()          // 80 ms of virtual time, microseconds of wall time
    return scheduler
}

/// What the example's `Item` decoded, outside the function that declares it.
struct ClientDocItem: Equatable, Sendable {
    let id: Int
    let name: String
}
