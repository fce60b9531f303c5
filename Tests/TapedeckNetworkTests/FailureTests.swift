import Foundation
import Synchronization
import Testing
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

@Suite("Simulated network: timeouts, transport failures, no route")
struct FailureTests {
    @Test("a server that never answers ends with timedOut exactly at the idle timeout")
    func stallTimesOut() throws {
        let fixture = NetworkFixture()
        fixture.network.route(path: "/never") { _, _ in .stall }
        fixture.start(1, "GET", "http://x.test/never", options: ExchangeOptions(idleTimeout: .seconds(7)))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.events == ["7s #1 finish \(URLError.timedOut.rawValue)"])
        #expect(fixture.scheduler.now == seconds(7))
    }

    @Test("body bytes reset the idle timer; a gap longer than the timeout fails at gap start + timeout")
    func idleTimerResetsOnData() throws {
        let fixture = NetworkFixture()
        let plan = ResponsePlan(head: ResponseHead(status: 200), body: Data(count: 300), chunkSizes: [100, 100, 100])
        // 300 bytes at 20 B/s: head at 0, chunks at 5 s, 10 s, 15 s
        fixture.network.stub(path: "/slow", options: RouteOptions(bandwidth: 20), plan)
        fixture.start(1, "GET", "http://x.test/slow", options: ExchangeOptions(idleTimeout: .seconds(6)))
        fixture.start(2, "GET", "http://x.test/slow", options: ExchangeOptions(idleTimeout: .seconds(4)))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.finish(1)?.failure == nil)
        #expect(fixture.sink.finish(1)?.time == seconds(15))
        #expect(fixture.sink.finish(2)?.failure?.urlErrorCode == .timedOut)
        #expect(fixture.sink.finish(2)?.failure?.description == "tapedeck: timed out (no data for 4s: the request timeout)")
        #expect(fixture.sink.finish(2)?.time == seconds(4))
    }

    @Test("a slow link without a chunk size delivers a tenth of a second's worth at a time: its bytes keep the idle timer from firing")
    func slowLinkKeepsTheIdleTimerAlive() throws {
        // 4,000 bytes at 100 B/s take 40 s; in 16 KiB chunks no byte would come for 40 s.
        let fixture = NetworkFixture()
        fixture.network.stub(path: "/slow", options: RouteOptions(bandwidth: 100), ResponsePlan(status: 200, body: Data(count: 4_000)))
        fixture.start(1, "GET", "http://x.test/slow", options: ExchangeOptions(idleTimeout: .seconds(5)))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.finish(1)?.failure == nil)
        #expect(fixture.sink.body(1).count == 4_000)
        #expect(fixture.sink.finish(1)?.time == seconds(40))
        #expect(RouteOptions(bandwidth: 100).chunkSize == 10 && RouteOptions(bandwidth: 100, chunkSize: 500).chunkSize == 500)
        #expect(RouteOptions().chunkSize == RouteOptions.defaultChunkSize)
    }

    @Test("the resource timeout bounds the whole exchange, however busy")
    func resourceTimeout() throws {
        let fixture = NetworkFixture()
        fixture.network.stub(path: "/slow", options: RouteOptions(bandwidth: 10, chunkSize: 10), ResponsePlan(status: 200, body: Data(count: 100)))
        fixture.start(1, "GET", "http://x.test/slow", options: ExchangeOptions(idleTimeout: .seconds(5), resourceTimeout: .seconds(3)))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.finish(1)?.failure?.urlErrorCode == .timedOut)
        #expect(fixture.sink.finish(1)?.failure?.description == "tapedeck: timed out (the resource timeout, 3s, passed)")
        #expect(fixture.sink.finish(1)?.time == seconds(3))
        // chunks at 1 s and 2 s; the one due at 3 s loses to the timeout set earlier for the same instant
        #expect(fixture.sink.body(1).count == 20)
    }

    @Test("transport failures are outcomes of their own, at the time the responder says")
    func transportFailures() throws {
        let fixture = NetworkFixture()
        fixture.network.route(host: "refused.test") { _, _ in .failure(.cannotConnectToHost, after: .milliseconds(30)) }
        fixture.network.route(host: "nxdomain.test") { _, _ in .failure(.cannotFindHost, after: .milliseconds(5)) }
        fixture.network.route(host: "offline.test") { _, _ in .failure(.notConnectedToInternet) }
        fixture.start(1, "GET", "http://refused.test/")
        fixture.start(2, "GET", "http://nxdomain.test/")
        fixture.start(3, "GET", "http://offline.test/")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.finish(1)?.failure == .cannotConnectToHost)
        #expect(fixture.sink.finish(1)?.time == seconds(0.03))
        #expect(fixture.sink.finish(2)?.failure?.urlErrorCode == .cannotFindHost)
        #expect(fixture.sink.finish(3)?.failure == .notConnectedToInternet)
        #expect(fixture.sink.finish(3)?.metrics.transactions.first?.status == nil)
        #expect(fixture.network.records.map(\.id).sorted() == [1, 2, 3])
    }

    @Test("no route is a typed failure that names the request and what was tried")
    func noRoute() throws {
        let fixture = NetworkFixture()
        fixture.network.stub(.get, host: "api.test", path: "/items", .text(200, "ok"))
        fixture.network.route(.post, host: "api.test", path: "/items") { _, _ in .noMatch(reason: "body did not match") }
        fixture.start(1, "POST", "http://api.test/items")
        fixture.start(2, "DELETE", "http://api.test/other")
        try fixture.scheduler.runUntilIdle()
        let first = try #require(fixture.sink.finish(1)?.failure)
        #expect(first.isNoRoute)
        #expect(first.urlErrorCode == .unsupportedURL)
        #expect(first.description == "tapedeck: no route: POST http://api.test/items: route POST api.test/items: body did not match")
        let second = try #require(fixture.sink.finish(2)?.failure)
        #expect(second.description == "tapedeck: no route: DELETE http://api.test/other: no route matches its method, host and path")
    }

    @Test("an exchange with no timeout that never ends is a stall that names it")
    func stallWithoutTimeoutIsReported() throws {
        let fixture = NetworkFixture()
        fixture.network.route(path: "/never") { _, _ in .stall }
        fixture.start(1, "GET", "http://x.test/never", options: ExchangeOptions(idleTimeout: nil))
        let error = #expect(throws: SimulationError.self) { try fixture.scheduler.runUntilIdle() }
        guard case let .stalled(report)? = error else {
            Issue.record("expected a stall, got \(String(describing: error))")
            return
        }
        #expect(report.pending.map(\.label) == ["exchange #1 GET http://x.test/never"])
    }

    @Test("a client that stops taking callbacks halts the exchange until it is abandoned")
    func haltAndAbandon() throws {
        let fixture = NetworkFixture(refuseAfterBytes: 100)
        fixture.network.stub(path: "/big", options: RouteOptions(bandwidth: 100, chunkSize: 100), ResponsePlan(status: 200, body: Data(count: 1_000)))
        fixture.start(1, "GET", "http://x.test/big")
        try fixture.scheduler.run(until: seconds(5))
        #expect(fixture.sink.body(1).count == 100)
        #expect(fixture.network.activeExchangeCount == 1)
        let network = fixture.network
        let abandoned = Log<AbandonedExchange?>()
        network.queue.async { abandoned.append(network.abandon(1)) }
        try fixture.scheduler.runUntilIdle()
        #expect(abandoned.values.first??.metrics.transactions.first?.bytesReceived == 100)
        #expect(network.records.first?.outcome == .cancelled)
        #expect(fixture.scheduler.now == seconds(5), "abandoning cancels every pending timer")
    }
}

final class Log<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
}
