import Foundation
import Testing
import TapedeckClient
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

    @Test("retrying after a failed response that had a body works (Alamofire traps in Progress on Linux)")
    func retryAfterBodyOnFailure() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy())
        fixture.sequence(path: "/flaky") { n in
            n == 1 ? ResponsePlan(status: 500, headers: [("Content-Type", "text/plain")], body: Data("internal error".utf8))
                   : .json(200, #"{"ok":true}"#)
        }
        let result = Box<ClientDataResponse<JSON>?>(nil)
        let request = fixture.session.request("http://api.test/flaky").validate()
        request.responseDecodable(of: JSON.self) { result.value = $0 }
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
