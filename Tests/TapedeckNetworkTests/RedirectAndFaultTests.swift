import Foundation
import Testing
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

@Suite("Simulated network: redirects, faults, content codings")
struct RedirectAndFaultTests {
    private func redirect(_ status: Int, to location: String) -> ResponsePlan {
        ResponsePlan(status: status, headers: [("Location", location)])
    }

    @Test("redirects are followed as the client decides; the chain is in the metrics")
    func followedChain() throws {
        let fixture = NetworkFixture()
        fixture.network.stub(path: "/a", options: RouteOptions(latency: .fixed(.milliseconds(10))), redirect(302, to: "/b"))
        fixture.network.stub(path: "/b", options: RouteOptions(latency: .fixed(.milliseconds(10))), redirect(303, to: "http://other.test/c"))
        fixture.network.stub(host: "other.test", path: "/c", options: RouteOptions(latency: .fixed(.milliseconds(10))), .text(200, "done"))
        fixture.start(1, "POST", "http://x.test/a", body: Data("x=1".utf8))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.events == [
            "0.01s #1 redirect 302 /a → GET /b", "0.02s #1 redirect 303 /b → GET /c",
            "0.03s #1 head 200 /c", "0.03s #1 data 4", "0.03s #1 finish ok",
        ])
        let metrics = try #require(fixture.sink.finish(1)?.metrics)
        #expect(metrics.redirectCount == 2)
        #expect(metrics.transactions.map(\.status) == [302, 303, 200])
        #expect(metrics.transactions.map(\.method) == [.post, .get, .get])
        #expect(metrics.transactions.map(\.url.absoluteString) == ["http://x.test/a", "http://x.test/b", "http://other.test/c"])
        #expect(metrics.transactions[1].bytesSent == 0, "a redirect to GET drops the body")
    }

    @Test("a redirect the client refuses is the final response; 307 keeps the method and body")
    func refusedAndPreserving() throws {
        let fixture = NetworkFixture(redirectPolicy: { proposed in proposed.url.path == "/stop-here" ? .stop : .follow(proposed) })
        fixture.network.stub(path: "/a", redirect(301, to: "/stop-here"))
        fixture.network.stub(path: "/p", redirect(307, to: "/q"))
        fixture.network.route(path: "/q") { request, _ in .response(.text(200, "\(request.method.rawValue) \(request.body?.count ?? 0)")) }
        fixture.start(1, "GET", "http://x.test/a")
        fixture.start(2, "PUT", "http://x.test/p", body: Data(count: 12))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.events.contains("0s #1 head 301 /a"))
        #expect(fixture.sink.finish(1)?.metrics.redirectCount == 0)
        #expect(String(decoding: fixture.sink.body(2), as: UTF8.self) == "PUT 12")
    }

    @Test("an endless redirect loop fails with httpTooManyRedirects")
    func redirectLoop() throws {
        let fixture = NetworkFixture()
        fixture.network.stub(path: "/loop", redirect(302, to: "/loop"))
        fixture.start(1, "GET", "http://x.test/loop")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.finish(1)?.failure?.urlErrorCode == .httpTooManyRedirects)
        #expect(fixture.sink.finish(1)?.metrics.transactions.count == 17)
    }

    @Test("faults: status override, failure before the response, reset after N bytes, stall")
    func faultCatalogue() throws {
        let fixture = NetworkFixture()
        fixture.network.stub(options: RouteOptions(bandwidth: 1_000, chunkSize: 100), ResponsePlan(status: 200, body: Data(count: 1_000)))
        fixture.network.faults = FaultRules([
            .init(.responseHead, .overrideStatus(503), matching: RouteMatcher(path: "/status")),
            .init(.beforeConnect, .fail(.cannotConnectToHost), matching: RouteMatcher(path: "/refuse")),
            .init(.responseHead, .resetAfter(bytes: 250), matching: RouteMatcher(path: "/reset")),
            .init(.bodyChunk, .stall, matching: RouteMatcher(path: "/stall")),
        ])
        fixture.start(1, "GET", "http://x.test/status")
        fixture.start(2, "GET", "http://x.test/refuse")
        fixture.start(3, "GET", "http://x.test/reset")
        fixture.start(4, "GET", "http://x.test/stall", options: ExchangeOptions(idleTimeout: .seconds(2)))
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.events.contains("0s #1 head 503 /status"))
        #expect(fixture.sink.finish(1)?.failure == nil)
        #expect(fixture.sink.finish(2)?.failure == .cannotConnectToHost)
        #expect(fixture.sink.finish(2)?.time == .zero)
        #expect(fixture.sink.body(3).count == 250)
        #expect(fixture.sink.finish(3)?.failure == .networkConnectionLost)
        #expect(fixture.sink.finish(3)?.time == seconds(0.3))
        #expect(fixture.sink.body(4).isEmpty)
        #expect(fixture.sink.finish(4)?.failure?.urlErrorCode == .timedOut)
        #expect(fixture.sink.finish(4)?.time == seconds(2))
        #expect(fixture.scheduler.trace.contains { $0.event == "net.fault" && $0.payload == "#3 responseHead: reset after 250 bytes" })
    }

    @Test("metrics delivery order: FIFO seed before, injected by fault, seeded otherwise")
    func metricsDeliveryOrder() throws {
        let fifo = NetworkFixture(seed: SimulatedScheduler.fifoSeed)
        fifo.network.stub(path: "/*", .text(200, "ok"))
        fifo.network.faults = FaultRules([.init(.metricsDelivery, .deliverMetrics(.duplicate), matching: RouteMatcher(path: "/dup"))])
        fifo.start(1, "GET", "http://x.test/plain")
        fifo.start(2, "GET", "http://x.test/dup")
        try fifo.scheduler.runUntilIdle()
        #expect(fifo.sink.finish(1)?.delivery == .beforeCompletion)
        #expect(fifo.sink.finish(2)?.delivery == .duplicate)

        var orders = Set<MetricsDelivery>()
        for seed in UInt64(1)...20 {
            let fixture = NetworkFixture(seed: seed)
            fixture.network.stub(path: "/*", .text(200, "ok"))
            fixture.start(1, "GET", "http://x.test/")
            try fixture.scheduler.runUntilIdle()
            orders.insert(fixture.sink.finish(1)!.delivery)
        }
        #expect(orders == [.beforeCompletion, .afterCompletion])
    }

    @Test("gzip bodies are handed over decoded (headers kept) unless decoding is off")
    func contentCodings() throws {
        let text = String(repeating: "tapedeck ", count: 200)
        let gzipped = try Zlib.compress(Data(text.utf8), format: .gzip)
        let fixture = NetworkFixture()
        fixture.network.stub(path: "/wire", options: RouteOptions(bandwidth: 100, chunkSize: 50),
                             ResponsePlan(status: 200, headers: [("Content-Encoding", "gzip")], body: gzipped))
        fixture.network.stub(path: "/decoded", ResponsePlan(
            head: ResponseHead(status: 200, headerFields: [.contentEncoding: "gzip"]), body: Data(text.utf8), bodyForm: .decoded))
        fixture.network.stub(path: "/corrupt", ResponsePlan(status: 200, headers: [("Content-Encoding", "gzip")], body: Data([0x1F, 0x8B, 1, 2, 3])))
        fixture.start(1, "GET", "http://x.test/wire")
        fixture.start(2, "GET", "http://x.test/wire", options: ExchangeOptions(decodesContentEncoding: false))
        fixture.start(3, "GET", "http://x.test/decoded")
        fixture.start(4, "GET", "http://x.test/decoded", options: ExchangeOptions(decodesContentEncoding: false))
        fixture.start(5, "GET", "http://x.test/corrupt")
        try fixture.scheduler.runUntilIdle()
        #expect(String(decoding: fixture.sink.body(1), as: UTF8.self) == text)
        #expect(fixture.sink.finish(1)?.metrics.transactions[0].bytesReceived == gzipped.count)
        #expect(fixture.sink.body(2) == gzipped)
        #expect(String(decoding: fixture.sink.body(3), as: UTF8.self) == text)
        #expect(String(decoding: try Zlib.decompress(fixture.sink.body(4)), as: UTF8.self) == text)
        // As URLSession on Linux reports it: URLError.unknown in libcurl's words with zlib's reason.
        let corrupt = try #require(fixture.sink.finish(5)?.failure)
        #expect(corrupt.urlErrorCode == .unknown)
        #expect(corrupt.description.hasPrefix("Error while processing content unencoding: "), "\(corrupt)")
    }

    @Test("many exchanges with tied and jittered latencies: same seed, same trace")
    func networkIsDeterministic() throws {
        let report = try DeterminismCheck.run(seed: 9, runs: 10) { scheduler in
            let network = SimulatedNetwork(scheduler: scheduler)
            let sink = RecordingSink(scheduler: scheduler)
            network.stub(path: "/tied", options: RouteOptions(latency: .fixed(.milliseconds(20))), .text(200, "t"))
            network.stub(path: "/jitter", options: RouteOptions(latency: .jittered(base: .zero, jitter: .milliseconds(30)), bandwidth: 50),
                         ResponsePlan(status: 200, body: Data(count: 40)))
            network.faults = FaultRules([.init(.responseHead, .overrideStatus(500), probability: (1, 5))])
            for id in 1...40 {
                let request = RequestSnapshot(method: .get, url: URL(string: "http://x.test/\(id % 2 == 0 ? "tied" : "jitter")")!)
                network.queue.async { network.start(id, request: request, options: ExchangeOptions(), sink: sink) }
            }
            try scheduler.runUntilIdle()
        }
        #expect(report.isDeterministic, "\(report)")
    }
}
