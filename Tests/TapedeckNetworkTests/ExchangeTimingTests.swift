import Foundation
import Testing
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

@Suite("Simulated network: responses on virtual time")
struct ExchangeTimingTests {
    @Test("a stub answers after its fixed latency; head, body and finish at exact instants")
    func fixedLatency() throws {
        let fixture = NetworkFixture()
        fixture.network.stub(.get, host: "api.test", path: "/items", options: RouteOptions(latency: .fixed(.milliseconds(250))),
                             .json(200, #"{"items":[1,2,3]}"#))
        fixture.start(1, "GET", "http://api.test/items")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.events == ["0.25s #1 head 200 /items", "0.25s #1 data 17", "0.25s #1 finish ok"])
        #expect(String(decoding: fixture.sink.body(1), as: UTF8.self) == #"{"items":[1,2,3]}"#)
        let metrics = try #require(fixture.sink.finish(1)?.metrics)
        #expect(metrics.taskDuration == .milliseconds(250))
        #expect(metrics.transactions.count == 1)
        #expect(metrics.transactions[0].responseStart == seconds(0.25))
        #expect(metrics.transactions[0].bytesReceived == 17)
        #expect(fixture.scheduler.now == seconds(0.25), "no timer (such as the idle timeout) may drag the clock on")
    }

    @Test("bandwidth cuts the body into chunks spread over virtual time; send time counts too")
    func bandwidthSpreadsBody() throws {
        let fixture = NetworkFixture()
        let body = Data(repeating: 7, count: 40_000)
        fixture.network.stub(.post, path: "/upload", options: RouteOptions(latency: .fixed(.seconds(1)), connect: .milliseconds(100), bandwidth: 10_000, chunkSize: 10_000),
                             ResponsePlan(status: 200, body: body))
        fixture.start(1, "POST", "http://x.test/upload", body: Data(repeating: 1, count: 5_000))
        try fixture.scheduler.runUntilIdle()
        // connect 0.1 s, send 5 kB at 10 kB/s = 0.5 s, wait 1 s → head at 1.6 s; 4 chunks of 1 s each
        #expect(fixture.sink.events == [
            "1.6s #1 head 200 /upload", "2.6s #1 data 10000", "3.6s #1 data 10000", "4.6s #1 data 10000",
            "5.6s #1 data 10000", "5.6s #1 finish ok",
        ])
        let transaction = try #require(fixture.sink.finish(1)?.metrics.transactions.first)
        #expect(transaction.connectStart == .zero && transaction.connectEnd == seconds(0.1))
        #expect(transaction.requestStart == seconds(0.1) && transaction.requestEnd == seconds(0.6))
        #expect(transaction.responseStart == seconds(1.6) && transaction.responseEnd == seconds(5.6))
        #expect(transaction.bytesSent == 5_000 && transaction.bytesReceived == 40_000)
    }

    @Test("the plan's own chunks arrive in order with the recorded receive time spread over them")
    func recordedTimingsAndChunks() throws {
        let fixture = NetworkFixture()
        let plan = ResponsePlan(
            head: ResponseHead(status: 200), body: Data(repeating: 0, count: 300), chunkSizes: [100, 200],
            timings: ExchangeTimings(connect: .milliseconds(20), send: .milliseconds(10), wait: .milliseconds(200), receive: .milliseconds(600)))
        fixture.network.stub(path: "/rec", options: RouteOptions(latency: .recorded(scale: 1)), plan)
        fixture.network.stub(path: "/half", options: RouteOptions(latency: .recorded(scale: 0.5)), plan)
        fixture.network.stub(path: "/instant", options: RouteOptions(latency: .recorded(scale: 0)), plan)
        fixture.start(1, "GET", "http://x.test/rec")
        fixture.start(2, "GET", "http://x.test/half")
        fixture.start(3, "GET", "http://x.test/instant")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.finish(1)?.time == seconds(0.83))
        #expect(fixture.sink.finish(2)?.time == seconds(0.415))
        #expect(fixture.sink.finish(3)?.time == .zero)
        #expect(fixture.sink.events.filter { $0.contains("#1 data") } == ["0.43s #1 data 100", "0.83s #1 data 200"])
    }

    @Test("a body with no pace of its own, cut after N of its bytes, drops when those N are in, not at its whole receive time")
    func cutArrivesInProportion() throws {
        let fixture = NetworkFixture()
        let plan = ResponsePlan(head: ResponseHead(status: 200), body: Data(repeating: 7, count: 4_000),
                                timings: ExchangeTimings(wait: .milliseconds(100), receive: .seconds(8)))
        fixture.network.stub(options: RouteOptions(latency: .recorded(scale: 1)), plan)
        fixture.network.faults = FaultRules([
            .init(.responseHead, .resetAfter(bytes: 1_000), matching: RouteMatcher(path: "/reset")),
            .init(.responseHead, .truncate(bytes: 3_000), matching: RouteMatcher(path: "/truncate")),
        ])
        fixture.start(1, "GET", "http://x.test/reset")
        fixture.start(2, "GET", "http://x.test/truncate")
        fixture.start(3, "GET", "http://x.test/whole")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.sink.body(1).count == 1_000 && fixture.sink.finish(1)?.failure == .networkConnectionLost)
        #expect(fixture.sink.finish(1)?.time == seconds(2.1), "a quarter of the bytes: a quarter of the 8 s")
        #expect(fixture.sink.body(2).count == 3_000 && fixture.sink.finish(2)?.time == seconds(6.1))
        #expect(fixture.sink.finish(3)?.time == seconds(8.1) && fixture.sink.body(3).count == 4_000)
    }

    @Test("jittered latency comes from the seed: the same seed repeats it, another seed differs")
    func jitterIsSeeded() throws {
        func finishTimes(seed: UInt64) throws -> [VirtualInstant] {
            let fixture = NetworkFixture(seed: seed)
            fixture.network.stub(options: RouteOptions(latency: .jittered(base: .milliseconds(100), jitter: .milliseconds(50))), .text(200, "ok"))
            for id in 1...8 { fixture.start(id, "GET", "http://x.test/\(id)") }
            try fixture.scheduler.runUntilIdle()
            return (1...8).map { fixture.sink.finish($0)!.time }
        }
        let first = try finishTimes(seed: 3)
        #expect(try finishTimes(seed: 3) == first)
        #expect(try finishTimes(seed: 4) != first)
        #expect(first.allSatisfy { $0 >= seconds(0.1) && $0 <= seconds(0.15) })
        #expect(Set(first).count > 4)
    }
}
