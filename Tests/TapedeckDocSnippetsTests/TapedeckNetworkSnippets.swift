// The Swift snippets of TapedeckNetwork's documentation: its DocC article
// (TapedeckNetwork.docc/TapedeckNetwork.md) and the `///` examples of its public declarations.
// One function (or type) per snippet, as written plus the least scaffolding; lines added for a
// test are marked `// (test)`. The tests send requests through TapedeckClient on a harness, which
// is the test's doing, not the snippets'.

import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

// MARK: - Snippets

/// TapedeckNetwork.docc/TapedeckNetwork.md, "Overview".
private func networkArticle_overview() -> (SimulatedScheduler, SimulatedNetwork) {
    let scheduler = SimulatedScheduler(seed: 7)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/hello", .text(200, "hi"))
    network.route(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(2)))) { _, _ in
        .response(.json(200, #"{"ok":true}"#))
    }
    network.faults = FaultRules([.init(.beforeConnect, .fail(.networkConnectionLost), probability: (1, 10))])
    return (scheduler, network)
}

/// `NetworkChoiceHook`.
private final class NoJitter: NetworkChoiceHook {
    func jitter(_ drawn: Int64, upTo range: Int64, context: FaultContext) -> Int64 { 0 }
    func metricsDelivery(_ drawn: MetricsDelivery, context: FaultContext) -> MetricsDelivery { .beforeCompletion }
}

/// `NetworkChoiceHook`, the line after the class.
private func networkChoiceHook(network: SimulatedNetwork) {
    network.choices = NoJitter()
}

/// `RouteOptions.chunkSize(forBandwidth:limit:)`.
private func chunkSize() -> Int {
    RouteOptions.chunkSize(forBandwidth: 100)   // 10
}

/// `SimulatedNetwork`.
private func simulatedNetwork(scheduler: SimulatedScheduler) -> SimulatedNetwork {
    let network = SimulatedNetwork(scheduler: scheduler)
    network.route(.get, host: "api.test", path: "/items", options: RouteOptions(latency: .fixed(.milliseconds(80)))) { _, _ in
        .response(.json(200, #"{"items":[]}"#))
    }
    network.faults = FaultRules([.init(.responseHead, .overrideStatus(503), probability: (1, 4))])
    return network
}

// MARK: - Tests

@Suite("TapedeckNetwork's DocC and /// snippets compile and do what they say")
struct TapedeckNetworkSnippetTests {
    @Test("The article's network: /hello answers hi, /slow answers after 2 s, some connects fail")
    func overview() throws {
        // Given the article's network
        let (scheduler, network) = networkArticle_overview()
        // When twenty clients each ask for /hello and /slow
        let session = Session(provider: Harness(network: network), scheduler: scheduler)
        let answers = Box<[String: (status: Int?, error: Bool, at: VirtualInstant)]>([:])
        for index in 0..<20 {
            for path in ["/hello", "/slow"] {
                session.request("http://api.test\(path)").responseData { response in
                    answers.withLock { $0["\(path)#\(index)"] = (response.response?.statusCode, response.error != nil, scheduler.now) }
                }
            }
        }
        try scheduler.runUntilIdle()
        // Then every request ended; those that connected got hi at once or the JSON after 2 s; a few lost their connection
        let all = answers.withLock { $0 }
        #expect(all.count == 40)
        #expect(all.filter { $0.key.hasPrefix("/slow") && !$0.value.error }.allSatisfy { $0.value.at >= VirtualInstant.zero.advanced(by: .seconds(2)) })
        #expect(all.filter { $0.key.hasPrefix("/hello") && !$0.value.error }.allSatisfy { $0.value.status == 200 })
        #expect(all.values.contains { $0.error }, "a one-in-ten connection loss over 40 requests")
        #expect(all.values.contains { !$0.error })
    }

    @Test("NoJitter: with the hook, a jittered route answers at its base latency")
    func noJitter() throws {
        // Given a route with 80 ms ± 40 ms of latency and NetworkChoiceHook's example installed
        let scheduler = SimulatedScheduler(seed: 3)
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(.get, host: "api.test", path: "/j",
                     options: RouteOptions(latency: .jittered(base: .milliseconds(80), jitter: .milliseconds(40))), .text(200, "j"))
        networkChoiceHook(network: network)
        let session = Session(provider: Harness(network: network), scheduler: scheduler)
        // When five requests start together
        let finished = Box<[VirtualInstant]>([])
        for _ in 0..<5 {
            session.request("http://api.test/j").responseData { _ in finished.withLock { $0.append(scheduler.now) } }
        }
        try scheduler.runUntilIdle()
        // Then none was jittered: all ended at the base latency
        #expect(Set(finished.withLock { $0 }) == [VirtualInstant.zero.advanced(by: .milliseconds(80))])
    }

    @Test("chunkSize(forBandwidth: 100) is 10")
    func chunks() {
        #expect(chunkSize() == 10)
    }

    @Test("SimulatedNetwork's example: /items answers after 80 ms, some heads overridden to 503")
    func network() throws {
        // Given the example's network, When twenty clients ask for /items
        let scheduler = SimulatedScheduler(seed: 11)
        let network = simulatedNetwork(scheduler: scheduler)
        let session = Session(provider: Harness(network: network), scheduler: scheduler)
        let statuses = Box<[Int?]>([])
        for _ in 0..<20 {
            session.request("http://api.test/items").responseData { response in
                statuses.withLock { $0.append(response.response?.statusCode) }
            }
        }
        try scheduler.runUntilIdle()
        // Then each got the 200 or, for about one in four, the overridden 503, after 80 ms
        let seen = statuses.withLock { $0 }
        #expect(seen.count == 20)
        #expect(Set(seen) == [200, 503])
        #expect(scheduler.now >= VirtualInstant.zero.advanced(by: .milliseconds(80)))
    }
}
