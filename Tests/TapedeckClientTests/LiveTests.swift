import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckLoopback
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The same pipeline, live: real GCD queues (``LiveScheduler``), a real URLSession
/// (``LiveURLSessionProvider``) and a real HTTP server on loopback. These are also the tests the
/// Thread Sanitizer run covers (`swift test --sanitize=thread --filter LiveTests`, see docs/client.md).
@Suite("Pipeline: live, against a loopback server", .serialized)
struct LiveTests {
    /// One server for the suite, started without blocking a thread of the cooperative pool.
    static let server = Task { try await LoopbackServer.start() }

    struct Live {
        let scheduler = LiveScheduler(violationPolicy: .record)
        let events = EventLog()
        let session: Session
        let server: LoopbackServer

        init(interceptor: (any RequestInterceptor)? = nil, redirectHandler: (any RedirectHandler)? = nil) async throws {
            server = try await LiveTests.server.value
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 10
            session = Session(provider: LiveURLSessionProvider(), configuration: configuration, scheduler: scheduler,
                              interceptor: interceptor, redirectHandler: redirectHandler, eventMonitors: [events.monitor()])
        }

        func url(_ path: String) -> URL { server.url(path) }
    }

    /// Waits for a response handler (a real wait: this is the live transport).
    private func response<Value: Sendable>(
        _ start: (@escaping @Sendable (ClientDataResponse<Value>) -> Void) -> Void
    ) async -> ClientDataResponse<Value> {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: $0) }
        }
    }

    struct Echo: Decodable, Sendable {
        let method: String
        let path: String
        let query: String
    }

    @Test("a validated GET decodes, and the monitor on the rootQueue sees the event list in order, without metrics")
    func validatedGet() async throws {
        let live = try await Live()
        let result = await response { done in
            live.session.request(live.url("/get"), parameters: ["q": "1"]).validate().responseDecodable(of: Echo.self, completionHandler: done)
        }
        let echo = try #require(result.value)
        #expect(echo.path == "/get" && echo.query == "q=1" && echo.method == "GET")
        #expect(result.response?.statusCode == 200)
        #expect(result.metrics == nil, "corelibs URLSession delivers no metrics; the request completes at once")
        let names = live.events.names(without: ["urlSession."])
        #expect(names == [
            "requestDidResume", "didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask", "didResumeTask",
            "didValidateRequest", "didValidateRequest",   // validate(): status, then content type
            "didCompleteTask", "requestDidFinish", "didParseResponse",
        ])
        #expect(live.scheduler.violations.isEmpty, "\(live.scheduler.violations)")
    }

    @Test("503 three times: RetryPolicy retries on real queues with real (short) delays, then validation fails")
    func retryLive() async throws {
        let live = try await Live(interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01))
        let request = live.session.request(live.url("/status/503")).validate()
        let result = await response { done in request.responseData(completionHandler: done) }
        #expect(result.error?.isResponseValidationError == true)
        #expect(request.retryCount == 2)
        #expect(request.tasks.count == 3)
        #expect(live.events.count("requestIsRetrying") == 2)
        #expect(live.scheduler.violations.isEmpty)
    }

    @Test("a gzip body arrives decoded (libcurl decodes it); a POST body is echoed byte for byte")
    func gzipAndPost() async throws {
        let live = try await Live()
        let gzip = await response { done in live.session.request(live.url("/gzip")).responseDecodable(of: Echo.self, completionHandler: done) }
        #expect(gzip.value?.path == "/gzip")
        let payload = Data(LoopbackServer.bytes(100_000))
        let echo = await response { done in
            live.session.request(live.url("/echo"), method: .post) { $0.httpBody = payload }.responseData(completionHandler: done)
        }
        #expect(echo.value == payload)
    }

    @Test("async onHTTPResponse live: an awaited .cancel of a 503 leaves no body and a cancelled request; .allow lets the body through")
    func asyncHeadHandlerLive() async throws {
        let live = try await Live()
        let refused = await response { done in
            live.session.request(live.url("/status/503"))
                .onHTTPResponse { (response: HTTPURLResponse) async -> Request.ResponseDisposition in
                    await Task.yield()
                    return response.statusCode == 200 ? .allow : .cancel
                }
                .responseData(completionHandler: done)
        }
        #expect(refused.error?.isExplicitlyCancelledError == true)
        #expect(refused.data?.isEmpty ?? true)
        let allowed = await response { done in
            live.session.request(live.url("/bytes/64"))
                .onHTTPResponse { (response: HTTPURLResponse) async -> Request.ResponseDisposition in
                    await Task.yield()
                    return response.statusCode == 200 ? .allow : .cancel
                }
                .responseData(completionHandler: done)
        }
        #expect(allowed.data == Data(LoopbackServer.bytes(64)))
    }

    @Test("cancel while the server is still thinking: explicitlyCancelled, one handler call")
    func cancelLive() async throws {
        let live = try await Live()
        let calls = Box(0)
        let request = live.session.request(live.url("/delay/3000"))
        let result = await response { done in
            request.response { calls.mutate { $0 += 1 }; done($0) }
            live.session.rootQueue.asyncAfter(delay: .milliseconds(100)) { request.cancel() }
        }
        #expect(result.error?.isExplicitlyCancelledError == true)
        #expect(request.state == .cancelled)
        #expect(calls.value == 1)
    }

    @Test("redirect policies live: URLSession asks the session's handler; follow, or stop at the 302")
    func redirectsLive() async throws {
        let following = try await Live(redirectHandler: Redirector.follow)
        let followed = await response { done in following.session.request(following.url("/redirect/2")).responseData(completionHandler: done) }
        #expect(followed.response?.statusCode == 200)
        let stopping = try await Live(redirectHandler: Redirector.doNotFollow)
        let stopped = await response { done in stopping.session.request(stopping.url("/redirect/2")).response(completionHandler: done) }
        #expect(stopped.response?.statusCode == 302)
    }

    @Test("64 requests in flight on real queues: each completes once, no queue rule broken")
    func concurrentLive() async throws {
        let live = try await Live()
        let count = 64
        let calls = Box([Int](repeating: 0, count: count))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Box(count)
            for index in 0..<count {
                let path = index.isMultiple(of: 2) ? "/get?i=\(index)" : "/bytes/\(1_000 + index)"
                live.session.request(live.url(path)).validate().responseData { response in
                    calls.mutate { $0[index] += 1 }
                    #expect(response.error == nil, "\(path): \(String(describing: response.error))")
                    if !path.hasPrefix("/get") {
                        #expect(response.value == Data(LoopbackServer.bytes(1_000 + index)))
                    }
                    var last = false
                    remaining.mutate { $0 -= 1; last = $0 == 0 }
                    if last { continuation.resume() }
                }
            }
        }
        #expect(calls.value == [Int](repeating: 1, count: count))
        #expect(live.scheduler.violations.isEmpty, "\(live.scheduler.violations)")
    }
}
