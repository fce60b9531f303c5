import Dispatch
import Foundation
import Testing
@testable import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: request lifecycle (§2)")
struct LifecycleTests {
    private func lifetimeEvents(_ fixture: ClientFixture) -> [String] {
        fixture.events.names.filter {
            ["requestDidResume", "didResumeTask", "requestDidSuspend", "didSuspendTask", "requestDidCancel", "didCancelTask",
             "requestDidFinish"].contains($0)
        }
    }

    @Test("a response handler resumes the request automatically: one resume, one task resume, one finish")
    func automaticResume() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let calls = Box(0)
        let request = fixture.session.request("http://api.test/get").response { _ in calls.mutate { $0 += 1 } }
        try fixture.run()
        #expect(lifetimeEvents(fixture) == ["requestDidResume", "didResumeTask", "requestDidFinish"])
        #expect(calls.value == 1)
        #expect(request.state == .finished)
    }

    @Test("a request may resume itself when the session does not: shouldAutomaticallyResume(true)")
    func perRequestAutomaticResume() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.serveTestAPI()
        let plain = fixture.session.request("http://api.test/get").response { _ in }
        let eager = fixture.session.request("http://api.test/get").shouldAutomaticallyResume(true).response { _ in }
        try fixture.run()
        #expect(plain.state == .initialized)
        #expect(eager.state == .finished)
    }

    @Test("a handler plus a hundred extra resume() calls: still one of each lifetime event")
    func manyResumes() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get").response { _ in }
        for _ in 0..<100 { request.resume() }
        try fixture.run()
        #expect(lifetimeEvents(fixture) == ["requestDidResume", "didResumeTask", "requestDidFinish"])
        #expect(request.tasks.count == 1)
    }

    @Test("manually resumed without a handler, a hundred times: three events and finished")
    func manualResumeWithoutHandler() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get")
        for _ in 0..<100 { request.resume() }
        try fixture.run()
        #expect(lifetimeEvents(fixture) == ["requestDidResume", "didResumeTask", "requestDidFinish"])
        #expect(request.state == .finished)
    }

    @Test("an eager request suspended a hundred times: one suspend and one task suspend, stays suspended")
    func manySuspends() throws {
        let fixture = ClientFixture(startRequestsImmediately: false, requestSetup: .eager)
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get")
        try fixture.run()                         // eager: the task exists, not resumed
        for _ in 0..<100 { request.suspend() }
        try fixture.run()
        #expect(lifetimeEvents(fixture) == ["requestDidSuspend", "didSuspendTask"])
        #expect(request.state == .suspended)
    }

    @Test("cancel a hundred times once the task exists (also from many threads): one cancel, one task cancel, one handler call")
    func manyCancels() throws {
        for concurrently in [false, true] {
            let fixture = ClientFixture()
            fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(5))), .json(200, "{}"))
            let calls = Box(0)
            let request = fixture.session.request("http://api.test/slow").response { _ in calls.mutate { $0 += 1 } }
            try fixture.scheduler.run(until: seconds(1))
            #expect(request.task != nil)
            if concurrently {
                DispatchQueue.concurrentPerform(iterations: 100) { _ in request.cancel() }
            } else {
                for _ in 0..<100 { request.cancel() }
            }
            try fixture.run()
            #expect(fixture.events.count("requestDidCancel") == 1)
            #expect(fixture.events.count("didCancelTask") == 1)
            #expect(calls.value == 1)
            #expect(request.state == .cancelled)
        }
    }

    @Test("cancel from inside didResumeTask: every lifetime event, the cancelled error, state cancelled")
    func cancelFromDidResumeTask() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let requestBox = Box<DataRequest?>(nil)
        let monitor = ClosureEventMonitor { event in
            if event.name == "didResumeTask" { requestBox.value?.cancel() }
        }
        let fixture = ClientFixture(startRequestsImmediately: false, scheduler: scheduler)
        fixture.network.stub(host: "api.test", path: "/delay", options: RouteOptions(latency: .fixed(.seconds(5))), .json(200, "{}"))
        let session = Session(provider: fixture.harness, scheduler: scheduler, startRequestsImmediately: false,
                              eventMonitors: [monitor, fixture.events.monitor()])
        let result = Box<ClientError?>(nil)
        let request = session.request("http://api.test/delay")
        requestBox.value = request
        request.response { result.value = $0.error }
        request.resume()
        try fixture.run()
        let names = Set(fixture.events.names)
        for expected in ["urlSession.didFinishCollecting", "didCreateInitialURLRequest", "didCreateTask", "didGatherMetrics",
                         "didCompleteTask", "requestDidFinish", "requestDidResume", "didResumeTask", "didParseResponse",
                         "requestDidCancel", "didCancelTask"] {
            #expect(names.contains(expected), "\(expected) missing")
        }
        #expect(request.state == .cancelled)
        #expect(result.value?.isExplicitlyCancelledError == true)
        #expect(scheduler.now == .zero, "the 5 s response never had to be waited for")
    }

    @Test("a serializer appended to a cancelled request still runs; both handlers get explicitlyCancelled")
    func appendToCancelled() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(5))), .json(200, "{}"))
        let errors = Box<[Bool]>([])
        let request = fixture.session.request("http://api.test/slow")
        request.responseDecodable(of: ClientJSON.self) { first in
            errors.mutate { $0.append(first.error?.isExplicitlyCancelledError == true) }
            request.responseDecodable(of: ClientJSON.self) { second in
                errors.mutate { $0.append(second.error?.isExplicitlyCancelledError == true) }
            }
        }
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() }
        try fixture.run()
        #expect(errors.value == [true, true])
    }

    @Test("handlers appended after completion (inside or outside a handler) run against the stored data")
    func appendAfterCompletion() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let values = Box<[Bool]>([])
        let request = fixture.session.request("http://api.test/get")
        request.responseDecodable(of: ClientJSON.self) { first in
            values.mutate { $0.append(first.value != nil) }
            request.responseDecodable(of: ClientJSON.self) { second in
                values.mutate { $0.append(second.value != nil) }
            }
        }
        try fixture.run()
        request.responseDecodable(of: ClientJSON.self) { third in values.mutate { $0.append(third.value != nil) } }
        try fixture.run()
        #expect(values.value == [true, true, true])
        #expect(request.state == .finished)
        #expect(request.tasks.count == 1, "no new task: the stored data is used")
    }

    @Test("not started, cancelled, then resumed: the handler gets explicitlyCancelled and no task is created")
    func cancelThenResumeCreatesNoTask() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.serveTestAPI()
        let result = Box<ClientError?>(nil)
        let request = fixture.session.request("http://api.test/get")
        request.cancel()
        request.response { result.value = $0.error }
        request.resume()
        try fixture.run()
        #expect(result.value?.isExplicitlyCancelledError == true)
        #expect(request.tasks.isEmpty)
        #expect(request.state == .cancelled)
    }

    @Test("resumed then cancelled before the response: the handler runs once with explicitlyCancelled")
    func resumeThenCancel() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.network.stub(host: "api.test", path: "/delay", options: RouteOptions(latency: .fixed(.seconds(10))), .json(200, "{}"))
        let results = Box<[Bool]>([])
        let request = fixture.session.request("http://api.test/delay").response { results.mutate { $0.append($0.isEmpty && true) }; _ = $0 }
        request.resume()
        fixture.session.rootQueue.asyncAfter(delay: .seconds(2)) { request.cancel() }
        try fixture.run()
        #expect(results.value.count == 1)
        #expect(request.error?.isExplicitlyCancelledError == true)
        #expect(request.state == .cancelled)
    }

    @Test("finish() called a hundred times runs the serializer once")
    func manyFinishes() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.serveTestAPI()
        let calls = Box(0)
        let request = fixture.session.request("http://api.test/get").response { _ in calls.mutate { $0 += 1 } }
        fixture.session.rootQueue.async {
            for _ in 0..<100 { request.finish() }
        }
        try fixture.run()
        #expect(calls.value == 1)
    }

    @Test("cancel inside a successful handler: the handler is called exactly once, no retrier, nothing left behind")
    func cancelInsideCompletion() throws {
        let retrier = CountingInterceptor { _, _ in .retry }
        let fixture = ClientFixture(interceptor: retrier)
        fixture.serveTestAPI()
        let calls = Box(0)
        let request = fixture.session.request("http://api.test/get")
        request.responseDecodable(of: ClientJSON.self) { _ in
            calls.mutate { $0 += 1 }
            request.cancel()
        }
        try fixture.run()
        #expect(calls.value == 1)
        #expect(retrier.retries.value.isEmpty)
        #expect(fixture.session.activeRequestCount == 0)
        #expect(fixture.session.mappedTaskCount == 0)
    }

    @Test("eager setup creates the task before resume; the event order is the lazy one")
    func eagerSetup() throws {
        let fixture = ClientFixture(requestSetup: .eager)
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get")
        try fixture.run()
        #expect(request.tasks.count == 1)
        #expect(request.state == .initialized)
        request.response { _ in }
        try fixture.run()
        #expect(request.state == .finished)
    }

    @Test("a resume/suspend/resume burst sets the request up once (5.12's dedupe)")
    func resumeBurstPerformsOnce() throws {
        let fixture = ClientFixture(startRequestsImmediately: false)
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get")
        request.resume()
        request.suspend()
        request.resume()
        try fixture.run()
        #expect(request.tasks.count == 1)
        #expect(fixture.events.count("didCreateInitialURLRequest") == 1)
    }

    @Test("the request and its tasks, requests and metrics are kept per attempt")
    func perAttemptRecords() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy())
        fixture.sequence(path: "/twice") { n in n < 3 ? ResponsePlan(status: 503) : .json(200, "{}") }
        let request = fixture.session.request("http://api.test/twice").validate()
        request.response { _ in }
        try fixture.run()
        #expect(request.retryCount == 2)
        #expect(request.tasks.count == 3)
        #expect(request.requests.count == 6)
        #expect(request.allMetrics.count == 3)
        #expect(request.response?.statusCode == 200)
        #expect(fixture.scheduler.now == seconds(1.5))
    }
}
