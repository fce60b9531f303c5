import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: RetryPolicy (§4)")
struct RetryPolicyTests {
    /// Asks `policy` about `request` failing with `error`, as a Session would.
    private func decision(_ policy: RetryPolicy, _ request: Request, _ session: Session, _ error: any Error) -> String {
        let result = Box("")
        policy.retry(request, for: session, dueTo: error) { answer in
            switch answer {
            case .retry: result.value = "retry"
            case let .retryWithDelay(delay): result.value = "delay \(delay)"
            case .doNotRetry: result.value = "no"
            case .doNotRetryWithError: result.value = "error"
            }
        }
        return result.value
    }

    /// A finished request with `method`, after `failures` failed attempts (retryCount = failures - 1).
    private func failedRequest(method: HTTPMethod, status: Int? = nil, attempts: Int = 1) throws -> (Request, Session) {
        let fixture = ClientFixture()
        let answer = status.map { ResponsePlan(status: $0) }
        fixture.network.route(host: "api.test", path: "/x") { _, _ in answer.map { .response($0) } ?? .failure(.networkConnectionLost) }
        let counter = Box(0)
        let retrier = Retrier { _, _, _, completion in
            var n = 0
            counter.mutate { $0 += 1; n = $0 }
            completion(n < attempts ? .retry : .doNotRetry)
        }
        let request = fixture.session.request("http://api.test/x", method: method, interceptor: retrier).validate()
        request.response { _ in }
        try fixture.run()
        return (request, fixture.session)
    }

    @Test("defaults: 0.5 s, then 1 s, then no more (three attempts); a limit of 4 goes 0.5, 1, 2, 4")
    func backoff() throws {
        for (limit, expected) in [(UInt(2), ["delay 0.5", "delay 1.0", "no"]), (4, ["delay 0.5", "delay 1.0", "delay 2.0", "delay 4.0", "no"])] {
            let policy = RetryPolicy(retryLimit: limit)
            var answers: [String] = []
            for attempts in 1...expected.count {
                let (request, session) = try failedRequest(method: .get, attempts: attempts)
                #expect(request.retryCount == attempts - 1)
                answers.append(decision(policy, request, session, ClientError.sessionTaskFailed(error: URLError(.networkConnectionLost))))
            }
            #expect(answers == expected)
        }
    }

    @Test("only idempotent methods are retried")
    func idempotentMethods() throws {
        let policy = RetryPolicy()
        let error = ClientError.sessionTaskFailed(error: URLError(.timedOut))
        for method in [HTTPMethod.get, .head, .put, .delete, .options, .trace, .post, .patch, .connect] {
            let (request, session) = try failedRequest(method: method)
            let retried = decision(policy, request, session, error) != "no"
            #expect(retried == ![HTTPMethod.post, .patch, .connect].contains(method), "\(method.rawValue)")
        }
    }

    @Test("of all statuses only 408, 500, 502, 503 and 504 are retried, whatever the error")
    func retryableStatusCodes() throws {
        let policy = RetryPolicy()
        var retried: [Int] = []
        for status in [100, 200, 204, 301, 400, 401, 404, 408, 429, 500, 501, 502, 503, 504, 505, 599] {
            let (request, session) = try failedRequest(method: .get, status: status)
            if decision(policy, request, session, URLError(.unknown)) != "no" { retried.append(status) }
        }
        #expect(retried == [408, 500, 502, 503, 504])
    }

    @Test("exactly the 18 listed URLError codes are retried, bare or wrapped; others never")
    func retryableURLErrors() throws {
        let policy = RetryPolicy()
        let (request, session) = try failedRequest(method: .get)
        let listed = RetryPolicy.defaultRetryableURLErrorCodes
        #expect(listed.count == 18)
        let others: [URLError.Code] = [.cancelled, .badURL, .unknown, .resourceUnavailable, .userAuthenticationRequired,
                                       .httpTooManyRedirects, .serverCertificateUntrusted, .fileDoesNotExist]
        for code in Array(listed) + others {
            let bare = decision(policy, request, session, URLError(code))
            let wrapped = decision(policy, request, session, ClientError.sessionTaskFailed(error: URLError(code)))
            #expect(bare == wrapped)
            #expect((bare != "no") == listed.contains(code), "\(code.rawValue)")
        }
    }

    @Test("ConnectionLostRetryPolicy retries dropped connections only, never a status code")
    func connectionLostPolicy() throws {
        let policy = ConnectionLostRetryPolicy()
        #expect(policy.retryLimit == 2 && policy.exponentialBackoffBase == 2 && policy.exponentialBackoffScale == 0.5)
        #expect(policy.retryableHTTPStatusCodes.isEmpty)
        #expect(policy.retryableURLErrorCodes == [.networkConnectionLost])
        let (request, session) = try failedRequest(method: .get, status: 503)
        #expect(decision(policy, request, session, URLError(.timedOut)) == "no")
        #expect(decision(policy, request, session, URLError(.networkConnectionLost)) == "delay 0.5")
    }

    @Test("a request cancelled before it completes is never offered to the retrier")
    func cancelledIsNotRetried() throws {
        let retrier = CountingInterceptor { _, _ in .retry }
        let fixture = ClientFixture(interceptor: retrier)
        fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(3))), .json(200, "{}"))
        let request = fixture.session.request("http://api.test/slow")
        let result = Box<ClientError?>(nil)
        request.response { result.value = $0.error }
        fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() }
        try fixture.run()
        #expect(retrier.retries.value.isEmpty)
        #expect(request.state == .cancelled)
        #expect(result.value?.isExplicitlyCancelledError == true)
    }

    @Test("timeouts are retried once with a 0.1 s delay: two tasks, answers [delay 0.1, no]")
    func timeoutRetried() throws {
        let answers = Box<[String]>([])
        final class Recording: RetryPolicy, @unchecked Sendable {
            let answers: Box<[String]>
            init(answers: Box<[String]>) {
                self.answers = answers
                super.init(retryLimit: 1, exponentialBackoffScale: 0.1)
            }
            override func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
                super.retry(request, for: session, dueTo: error) { [answers] result in
                    answers.mutate { $0.append(result.retryRequiredDescription) }
                    completion(result)
                }
            }
        }
        let fixture = ClientFixture()
        fixture.network.route(host: "api.test", path: "/delay/1") { _, _ in .stall }
        var urlRequest = URLRequest(url: URL(string: "http://api.test/delay/1")!)
        urlRequest.timeoutInterval = 0.01
        let request = fixture.session.request(urlRequest, interceptor: Recording(answers: answers))
        request.response { _ in }
        try fixture.run()
        #expect(request.tasks.count == 2)
        #expect(answers.value == ["delay 0.1", "no"])
        #expect(fixture.scheduler.now == seconds(0.12), "0.01 s timeout, 0.1 s backoff, 0.01 s timeout")
    }

    @Test("always 503 with validate(): tasks at 0, 0.5 and 1.5 s of virtual time, then the validation error")
    func alwaysFailingTimeline() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy())
        fixture.network.stub(host: "api.test", path: "/down", ResponsePlan(status: 503))
        let request = fixture.session.request("http://api.test/down").validate()
        let result = Box<ClientError?>(nil)
        request.response { result.value = $0.error }
        try fixture.run()
        #expect(fixture.network.records.map(\.metrics.taskStart) == [seconds(0), seconds(0.5), seconds(1.5)])
        #expect(result.value?.responseCode == 503)
        #expect(request.retryCount == 2)
    }

    @Test("a 500 with an empty body and a data serializer is retried by the policy, then the value arrives")
    func serializerFailureRetried() throws {
        let fixture = ClientFixture()
        fixture.sequence(path: "/once") { n in n == 1 ? ResponsePlan(status: 500) : .json(200, #"{"v":1}"#) }
        let result = Box<Data?>(nil)
        fixture.session.request("http://api.test/once", interceptor: .retryPolicy).responseData { result.value = $0.value }
        try fixture.run()
        #expect(result.value == Data(#"{"v":1}"#.utf8))
    }
}

extension RetryResult {
    var retryRequiredDescription: String {
        switch self {
        case .retry: return "retry"
        case let .retryWithDelay(delay): return "delay \(delay)"
        case .doNotRetry: return "no"
        case .doNotRetryWithError: return "error"
        }
    }
}
