import Foundation
import Testing
@testable import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: where Tapedeck deliberately does better than Alamofire 5.12")
struct ImprovementTests {
    @Test("cancel during the retry delay completes the request at once with explicitlyCancelled (5.12.0 hangs)")
    func cancelDuringRetryDelay() throws {
        let fixture = ClientFixture(interceptor: Retrier { _, _, _, completion in completion(.retryWithDelay(60)) })
        fixture.network.stub(host: "api.test", path: "/down", ResponsePlan(status: 503))
        let request = fixture.session.request("http://api.test/down").validate()
        let result = Box<ClientError?>(nil)
        request.response { result.value = $0.error }
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() }
        try fixture.run()
        #expect(result.value?.isExplicitlyCancelledError == true)
        #expect(request.state == .cancelled)
        #expect(request.tasks.count == 1)
        #expect(fixture.scheduler.now == seconds(1), "the 60 s retry never fires")
        #expect(fixture.events.names.suffix(3) == ["requestDidCancel", "requestDidFinish", "didParseResponse"])
    }

    @Test("a cancel that ends a serializer-stage retry still calls every handler once, with explicitlyCancelled",
          arguments: [false, true])
    func cancelEndsSerializerStageRetry(decisionStillPending: Bool) throws {
        // The retrier answers at once with a 60 s delay, or takes 2 s to answer "retry now"; either
        // way the cancel at 1 s lands while the retry asked for by the failing serializer is pending.
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let clock = scheduler.makeQueue(label: "slow retrier", target: nil)
        let retrier = Retrier { _, _, _, completion in
            if decisionStillPending {
                clock.asyncAfter(delay: .seconds(2)) { completion(.retry) }
            } else {
                completion(.retryWithDelay(60))
            }
        }
        let fixture = ClientFixture(interceptor: retrier, scheduler: scheduler)
        fixture.network.stub(host: "api.test", path: "/created", ResponsePlan(status: 201))
        let results = Box<[String]>([])
        let request = fixture.session.request("http://api.test/created")
            .responseJSON { r in results.mutate { $0.append("json \(r.error?.isExplicitlyCancelledError == true)") } }
            .responseString { r in results.mutate { $0.append("string \(r.error?.isExplicitlyCancelledError == true)") } }
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() }
        try fixture.run()
        #expect(results.value == ["json true", "string true"])
        #expect(request.state == .cancelled)
        #expect(request.tasks.count == 1, "no second attempt")
        #expect(fixture.scheduler.violations.isEmpty)
    }

    @Test("a cancel while the retrier decides ends the request at once, explicitly cancelled; the retrier's later answer changes nothing (5.12.0 waits for it and reports the retrier's error)",
          arguments: [false, true], [false, true])
    func cancelWhileRetrierDecides(adaptationFails: Bool, retrierFails: Bool) throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let clock = scheduler.makeQueue(label: "slow retrier", target: nil)
        // The retrier takes 2 s to answer (a token refresh, say), then asks for a retry in 60 s or fails.
        let interceptor = Interceptor(
            adapter: Adapter { request, _, completion in
                completion(adaptationFails ? .failure(TestError(id: 1)) : .success(request))
            },
            retrier: Retrier { _, _, _, completion in
                clock.asyncAfter(delay: .seconds(2)) { completion(retrierFails ? .doNotRetryWithError(TestError(id: 2)) : .retryWithDelay(60)) }
            })
        let fixture = ClientFixture(interceptor: interceptor, scheduler: scheduler)
        fixture.network.stub(host: "api.test", path: "/down", ResponsePlan(status: 503))
        let calls = Box<[String]>([])
        let request = fixture.session.request("http://api.test/down").validate()
            .response { r in
                calls.mutate { $0.append("\(r.error?.isExplicitlyCancelledError == true) at \(fixture.scheduler.now)") }
            }
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() }
        try fixture.run()
        #expect(calls.value == ["true at \(seconds(1))"], "one handler call, at the cancel, explicitly cancelled")
        #expect(fixture.events.count("requestDidFinish") == 1, "finished once")
        #expect(request.tasks.count == (adaptationFails ? 0 : 1), "no second attempt")
        #expect(request.state == .cancelled)
        #expect(fixture.scheduler.violations.isEmpty)
    }

    @Test("a long-lived session forgets the tasks of requests nobody holds (the ledger does not grow)")
    func ledgerDoesNotGrow() throws {
        let fixture = ClientFixture(monitors: false)   // the test's event log would keep every request
        fixture.serveTestAPI()
        let done = Box(0)
        for _ in 0..<200 {
            fixture.session.request("http://api.test/get").responseData { _ in done.mutate { $0 += 1 } }
        }
        try fixture.run()
        #expect(done.value == 200)
        let tracked = fixture.session.state.read { ($0.ledger.entries.count, $0.retiredTasks.count) }
        #expect(tracked.0 < 5 && tracked.1 < 5, "\(tracked)")
    }

    @Test("retrying after a failed response that had a body works (Alamofire traps in Progress on Linux)")
    func retryAfterBodyOnFailure() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy())
        fixture.sequence(path: "/flaky") { n in
            n == 1 ? ResponsePlan(status: 500, headers: [("Content-Type", "text/plain")], body: Data("internal error".utf8))
                   : .json(200, #"{"ok":true}"#)
        }
        let result = Box<ClientDataResponse<ClientJSON>?>(nil)
        let request = fixture.session.request("http://api.test/flaky").validate()
        request.responseDecodable(of: ClientJSON.self) { result.value = $0 }
        try fixture.run()
        #expect(result.value?.value?["ok"] == .bool(true))
        #expect(request.retryCount == 1)
        #expect(request.data == Data(#"{"ok":true}"#.utf8), "the failed attempt's body is gone")
    }

    @Test("nothing defaults to a main queue: handlers and monitors run on the rootQueue unless told otherwise")
    func noMainQueueDefaults() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let onRoot = Box<[Bool]>([])
        let monitor = ClosureEventMonitor { _ in onRoot.mutate { $0.append(fixture.session.rootQueue.isCurrent) } }
        #expect(monitor.queue == nil)
        fixture.session.request("http://api.test/get").eventMonitor(monitor).response { _ in
            onRoot.mutate { $0.append(fixture.session.rootQueue.isCurrent) }
        }
        try fixture.run()
        #expect(!onRoot.value.isEmpty && onRoot.value.allSatisfy { $0 })
        #expect(fixture.session.defaultResponseQueue === fixture.session.rootQueue)
    }

    @Test("a handler queue given per call is honoured")
    func handlerQueue() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let other = fixture.scheduler.makeQueue(label: "app.results", target: nil)
        let seen = Box(false)
        fixture.session.request("http://api.test/get").responseData(queue: other) { _ in seen.value = other.isCurrent }
        try fixture.run()
        #expect(seen.value)
    }
}
