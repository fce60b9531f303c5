import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: event order on the rootQueue (§8)")
struct EventOrderTests {
    static let attempt = ["didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask", "didResumeTask",
                          "urlSession.didReceiveResponse", "urlSession.didReceiveData", "urlSession.didFinishCollecting",
                          "didGatherMetrics", "urlSession.didCompleteWithError"]

    @Test("a successful validated request emits the full event list in order, metrics before completion")
    func successfulRequest() throws {
        // Given a session with a monitor on its rootQueue and a GET that succeeds
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let result = Box<String?>(nil)
        // When it is validated and serialized
        fixture.session.request("http://api.test/get").validate().responseString { response in
            result.value = response.value
        }
        try fixture.run()
        // Then every event arrives, once, in §8.1's order
        #expect(fixture.events.names == ["requestDidResume"] + Self.attempt + [
            "didValidateRequest", "didValidateRequest", "didCompleteTask", "requestDidFinish", "didParseResponse",
        ])
        #expect(result.value?.contains(#""method":"GET""#) == true)
        #expect(fixture.scheduler.violations.isEmpty, "\(fixture.scheduler.violations)")
        #expect(fixture.session.activeRequestCount == 0)
        #expect(fixture.session.mappedTaskCount == 0)
    }

    @Test("session monitors see everything; a request's own monitor sees the request-level events, after them")
    func sessionAndRequestMonitors() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let shared = Box<[String]>([])
        let requestMonitor = ClosureEventMonitor { event in shared.mutate { $0.append("request " + event.name) } }
        let sessionMonitor = ClosureEventMonitor { event in shared.mutate { $0.append("session " + event.name) } }
        let session = Session(provider: fixture.harness, scheduler: fixture.scheduler, eventMonitors: [sessionMonitor])
        session.request("http://api.test/get").eventMonitor(requestMonitor).responseDecodable(of: ClientJSON.self) { _ in }
        try fixture.run()
        let sessionSide = shared.value.filter { $0.hasPrefix("session ") }.map { String($0.dropFirst(8)) }
        let requestSide = shared.value.filter { $0.hasPrefix("request ") }.map { String($0.dropFirst(8)) }
        #expect(sessionSide == ["requestDidResume"] + Self.attempt + ["didCompleteTask", "requestDidFinish", "didParseResponse"])
        #expect(requestSide == sessionSide.filter { !$0.hasPrefix("urlSession.") })
        // for each shared event, the session monitor's copy comes first
        for name in requestSide {
            let first = shared.value.firstIndex(of: "session " + name)!
            let second = shared.value.firstIndex(of: "request " + name)!
            #expect(first < second, "\(name)")
        }
    }

    @Test("two monitors added to one request fire in the order they were added")
    func requestMonitorsInOrder() throws {
        let fixture = ClientFixture(monitors: false)
        fixture.serveTestAPI()
        let shared = Box<[String]>([])
        let first = ClosureEventMonitor { event in shared.mutate { $0.append("1 \(event.name)") } }
        let second = ClosureEventMonitor { event in shared.mutate { $0.append("2 \(event.name)") } }
        fixture.session.request("http://api.test/get").eventMonitor(first).eventMonitor(second).response { _ in }
        try fixture.run()
        // Alamofire's own test counts 8: its inspector monitor cannot receive didCompleteTask.
        #expect(shared.value.filter { $0.hasPrefix("1 ") }.map { String($0.dropFirst(2)) } == [
            "requestDidResume", "didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask", "didResumeTask",
            "didGatherMetrics", "didCompleteTask", "requestDidFinish", "didParseResponse",
        ])
        #expect(shared.value.count == 2 * 9)
        for pair in stride(from: 0, to: shared.value.count, by: 2) {
            #expect(shared.value[pair].hasPrefix("1 ") && shared.value[pair + 1].hasPrefix("2 "))
            #expect(shared.value[pair].dropFirst(2) == shared.value[pair + 1].dropFirst(2))
        }
    }

    @Test("fails once, retried after a delay, then succeeds: one resume, one finish, retry after the delay")
    func retriedRequest() throws {
        let fixture = ClientFixture()
        fixture.sequence(path: "/flaky") { n in n == 1 ? ResponsePlan(status: 500) : .json(200, #"{"ok":true}"#) }
        let retrier = CountingInterceptor { call, _ in call == 1 ? .retryWithDelay(0.2) : .doNotRetry }
        let request = fixture.session.request("http://api.test/flaky", interceptor: retrier).validate()
        let retryTime = Box<VirtualInstant?>(nil)
        request.responseData { _ in }
        fixture.session.rootQueue.async {}
        try fixture.run()
        let names = fixture.events.names
        #expect(names == ["requestDidResume", "didCreateInitialURLRequest", "didAdaptInitialRequest", "didCreateURLRequest",
                          "didCreateTask", "didResumeTask", "urlSession.didReceiveResponse", "urlSession.didFinishCollecting",
                          "didGatherMetrics", "urlSession.didCompleteWithError", "didValidateRequest", "didCompleteTask",
                          "requestIsRetrying", "didCreateInitialURLRequest", "didAdaptInitialRequest", "didCreateURLRequest",
                          "didCreateTask", "didResumeTask", "urlSession.didReceiveResponse", "urlSession.didReceiveData",
                          "urlSession.didFinishCollecting", "didGatherMetrics", "urlSession.didCompleteWithError",
                          "didValidateRequest", "didValidateRequest", "didCompleteTask", "requestDidFinish", "didParseResponse"])
        #expect(fixture.events.details(of: "didValidateRequest") == ["unacceptableStatusCode(500)", "ok", "ok"])
        #expect(request.retryCount == 1)
        #expect(request.tasks.count == 2)
        #expect(request.requests.count == 4)
        #expect(request.allMetrics.count == 2)
        _ = retryTime
        #expect(fixture.scheduler.now == seconds(0.2), "the retry waited 0.2 s of virtual time")
    }

    @Test("cancelled while running: cancel, task cancel, metrics, completion, finish — Darwin's order")
    func cancelledWhileRunning() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(5))), .json(200, "{}"))
        let request = fixture.session.request("http://api.test/slow")
        let result = Box<ClientError?>(nil)
        request.response { result.value = $0.error }
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() }
        try fixture.run()
        #expect(fixture.events.names == ["requestDidResume", "didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask",
                                         "didResumeTask", "requestDidCancel", "didCancelTask", "urlSession.didFinishCollecting",
                                         "didGatherMetrics", "urlSession.didCompleteWithError", "didCompleteTask",
                                         "requestDidFinish", "didParseResponse"])
        #expect(fixture.events.details(of: "didCompleteTask") == ["sessionTaskFailed(URLError(-999))"])
        #expect(result.value?.isExplicitlyCancelledError == true)
        #expect(request.state == .cancelled)
        #expect(fixture.scheduler.now == seconds(1))
    }

    @Test("cancelled before resume: cancel, finish, parse — and no task, ever")
    func cancelledBeforeResume() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get")
        let result = Box<ClientError?>(nil)
        request.response { result.value = $0.error }
        request.cancel()
        request.resume()
        try fixture.run()
        #expect(fixture.events.names == ["requestDidCancel", "requestDidFinish", "didParseResponse"])
        #expect(result.value?.isExplicitlyCancelledError == true)
        #expect(request.tasks.isEmpty)
        #expect(request.state == .cancelled)
    }

    @Test("an adapter that always fails, with RetryPolicy(limit 1): two failed adaptations, no task")
    func failingAdapterRetried() throws {
        let fixture = ClientFixture(interceptor: Adapter { _, _, completion in completion(.failure(URLError(.timedOut))) })
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get", interceptor: RetryPolicy(retryLimit: 1))
        let result = Box<ClientError?>(nil)
        request.response { result.value = $0.error }
        try fixture.run()
        #expect(fixture.events.names == ["requestDidResume", "didCreateInitialURLRequest", "didFailToAdaptURLRequest",
                                         "requestIsRetrying", "didCreateInitialURLRequest", "didFailToAdaptURLRequest",
                                         "requestDidFinish", "didParseResponse"])
        guard case let .requestAdaptationFailed(error)? = result.value else {
            Issue.record("expected requestAdaptationFailed, got \(String(describing: result.value))")
            return
        }
        #expect((error as? URLError)?.code == .timedOut)
        #expect(request.retryCount == 1)
        #expect(request.tasks.isEmpty)
        #expect(fixture.scheduler.now == seconds(0.5))
    }

    @Test("no validation, a 503 with an empty body: responseData fails, RetryPolicy retries from the serializer stage")
    func serializerStageRetry() throws {
        let fixture = ClientFixture()
        fixture.sequence(path: "/busy") { n in n == 1 ? ResponsePlan(status: 503) : .json(200, #"{"ok":1}"#) }
        let request = fixture.session.request("http://api.test/busy", interceptor: RetryPolicy(retryLimit: 1))
        let result = Box<ClientDataResponse<Data>?>(nil)
        request.responseData { result.value = $0 }
        try fixture.run()
        let names = fixture.events.names(without: ["urlSession.", "didCreate", "didResume", "didAdapt", "didGather"])
        #expect(names == ["requestDidResume", "didCompleteTask", "requestDidFinish", "didParseResponse", "requestIsRetrying",
                          "didCompleteTask", "requestDidFinish", "didParseResponse"])
        #expect(request.retryCount == 1)
        #expect(result.value?.value == Data(#"{"ok":1}"#.utf8))
    }

    @Test("a plain response handler never consults the retrier: the 503 is delivered as it is")
    func plainResponseDoesNotRetry() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/busy", ResponsePlan(status: 503))
        let retrier = CountingInterceptor { _, _ in .retry }
        let result = Box<ClientDataResponse<Data?>?>(nil)
        fixture.session.request("http://api.test/busy", interceptor: retrier).response { result.value = $0 }
        try fixture.run()
        #expect(retrier.retries.value.isEmpty)
        #expect(result.value?.error == nil)
        #expect(result.value?.response?.statusCode == 503)
    }

    @Test("a decoding failure without validation consults the retrier once, and nothing retries")
    func decodingFailureConsultsRetrierOnce() throws {
        struct Item: Decodable, Sendable { let id: Int }
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/bad", .json(200, #"{"name":"no id"}"#))
        let retrier = CountingInterceptor()
        let result = Box<ClientError?>(nil)
        fixture.session.request("http://api.test/bad", interceptor: retrier).responseDecodable(of: Item.self) { result.value = $0.error }
        try fixture.run()
        #expect(retrier.retries.value == ["decodingFailed"])
        #expect(fixture.events.count("requestIsRetrying") == 0)
        #expect(result.value?.isResponseSerializationError == true)
    }
}
