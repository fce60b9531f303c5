import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: adapters, retriers and their order (§3)")
struct InterceptorTests {
    private func adaptationError(_ error: ClientError?) -> (any Error)? {
        guard case let .requestAdaptationFailed(inner)? = error else { return nil }
        return inner
    }

    @Test("an adapter's error is always wrapped in requestAdaptationFailed, even a ClientError; the event fires")
    func adapterErrorsAreWrapped() throws {
        let failing = Adapter { _, _, completion in completion(.failure(ClientError.invalidURL(url: "/nope"))) }
        for placement in ["session", "request"] {
            let fixture = ClientFixture(interceptor: placement == "session" ? failing : nil)
            fixture.serveTestAPI()
            let result = Box<ClientError?>(nil)
            fixture.session.request("http://api.test/get", interceptor: placement == "request" ? failing : nil)
                .response { result.value = $0.error }
            try fixture.run()
            guard case let .invalidURL(url)? = adaptationError(result.value) as? ClientError else {
                Issue.record("\(placement): expected requestAdaptationFailed(invalidURL), got \(String(describing: result.value))")
                continue
            }
            #expect(url as? String == "/nope")
            #expect(fixture.events.count("didFailToAdaptURLRequest") == 1)
        }
    }

    @Test("an adapter that fails first goes through the retrier; the second attempt adds credentials and succeeds")
    func adaptErrorIsRetried() throws {
        let interceptor = CountingInterceptor(decide: { call, _ in call < 2 ? .retry : .doNotRetry }) { call, request in
            if call == 1 { throw ClientError.invalidURL(url: "/adapt/error/1") }
            var request = request
            request.headers.update(.authorization(username: "user", password: "password"))
            return request
        }
        let fixture = ClientFixture(interceptor: interceptor)
        fixture.serveTestAPI()
        let result = Box<ClientDataResponse<ClientJSON>?>(nil)
        fixture.session.request("http://api.test/basic-auth").validate().responseDecodable(of: ClientJSON.self) { result.value = $0 }
        try fixture.run()
        #expect(interceptor.adaptations.value == 2)
        #expect(interceptor.retries.value == ["requestAdaptationFailed"])
        #expect(result.value?.value?["authenticated"] == .bool(true))
        #expect(fixture.session.activeRequestCount == 0 && fixture.session.mappedTaskCount == 0)
    }

    @Test("the adapter chain runs again on every attempt: 401 then 200 with credentials from the second adaptation")
    func adapterRunsOnRetry() throws {
        let interceptor = CountingInterceptor(decide: { call, _ in call == 1 ? .retry : .doNotRetry }) { call, request in
            guard call > 1 else { return request }
            var request = request
            request.headers.update(.authorization(username: "user", password: "password"))
            return request
        }
        let fixture = ClientFixture(interceptor: interceptor)
        fixture.serveTestAPI()
        let result = Box<String>("")
        let request = fixture.session.request("http://api.test/basic-auth").validate()
        request.response { result.value = $0.error.map { "\($0)" } ?? "success" }
        try fixture.run()
        #expect(interceptor.adaptations.value == 2)
        #expect(interceptor.retries.value == ["unacceptableStatusCode(401)"])
        #expect(request.retryCount == 1)
        #expect(result.value == "success")
    }

    @Test("a cancel while a retry's attempt is adapted ends the request once, as cancelled (inside the adapter, or while it waits)")
    func cancelDuringRetryAdaptation() throws {
        for inside in [true, false] {
            let sent = Box<Request?>(nil)
            let interceptor = CountingInterceptor(decide: { call, _ in call == 1 ? .retry : .doNotRetry }) { call, request in
                // The second adaptation is the retry's: cancel from inside it (as a plugin's willSend can).
                if call == 2 && inside { sent.value?.cancel() }
                return request
            }
            let fixture = ClientFixture(interceptor: Interceptor(adapters: [interceptor, SlowSecondAdapter(waits: !inside)],
                                                                   retriers: [interceptor]))
            fixture.serveTestAPI()
            let results = Box<[ClientError?]>([])
            let request = fixture.session.request("http://api.test/basic-auth").validate()
            sent.value = request
            request.response { response in results.mutate { $0.append(response.error) } }
            if !inside { fixture.session.rootQueue.asyncAfter(delay: .seconds(1)) { request.cancel() } }
            try fixture.run()
            #expect(results.value.count == 1, "inside: \(inside): the handler ran \(results.value.count) times")
            #expect(results.value.first??.isExplicitlyCancelledError == true, "inside: \(inside): \(results.value)")
            #expect(request.retryCount == 1 && request.tasks.count == 1, "the retry's attempt made no task")
        }
    }

    @Test("retry with delay whose second adaptation throws: retrier called three times, retryCount 1, adaptation error")
    func delayedRetryThenAdaptationFailure() throws {
        for delay in [0.01, 0] {
            // Like Alamofire's test handler, whose counter starts at 1: it retries once.
            let interceptor = CountingInterceptor(decide: { call, _ in call == 1 ? (delay > 0 ? .retryWithDelay(delay) : .retry) : .doNotRetry }) { call, request in
                if call == 2 { throw ClientError.invalidURL(url: "/adapt/error/2") }
                return request
            }
            let fixture = ClientFixture(interceptor: interceptor)
            fixture.serveTestAPI()
            let result = Box<ClientError?>(nil)
            let request = fixture.session.request("http://api.test/basic-auth").validate()
            request.responseDecodable(of: ClientJSON.self) { result.value = $0.error }
            try fixture.run()
            // attempt 1: 401 → retrier; attempt 2: adaptation fails → retrier; serializer-stage → retrier
            #expect(interceptor.adaptations.value == 2)
            #expect(interceptor.retries.value.count == 3, "\(interceptor.retries.value)")
            #expect(request.retryCount == 1)
            guard case let .invalidURL(url)? = adaptationError(result.value) as? ClientError else {
                Issue.record("expected the adaptation error, got \(String(describing: result.value))")
                continue
            }
            #expect(url as? String == "/adapt/error/2")
        }
    }

    @Test("a GET with a body is invalid: bare when built that way, wrapped when an adapter added it")
    func getWithBody() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        var request = URLRequest(url: URL(string: "http://api.test/get")!)
        request.httpBody = Data("body".utf8)
        let bare = Box<ClientError?>(nil)
        fixture.session.request(request).response { bare.value = $0.error }
        let adding = Adapter { request, _, completion in
            var request = request
            request.httpBody = Data("added".utf8)
            completion(.success(request))
        }
        let wrapped = Box<ClientError?>(nil)
        fixture.session.request("http://api.test/get", interceptor: adding).response { wrapped.value = $0.error }
        try fixture.run()
        guard case .urlRequestValidationFailed(.bodyDataInGETRequest(let data))? = bare.value else {
            Issue.record("expected bodyDataInGETRequest, got \(String(describing: bare.value))")
            return
        }
        #expect(data == Data("body".utf8))
        guard case .urlRequestValidationFailed? = adaptationError(wrapped.value) as? ClientError else {
            Issue.record("expected requestAdaptationFailed(urlRequestValidationFailed), got \(String(describing: wrapped.value))")
            return
        }
    }

    @Test("the session's adapter runs before the request's; the session's retrier is asked first")
    func sessionBeforeRequest() throws {
        let order = Box<[String]>([])
        let sessionSide = Interceptor(
            adaptHandler: { request, _, completion in order.mutate { $0.append("session adapt") }; completion(.success(request)) },
            retryHandler: { _, _, _, completion in order.mutate { $0.append("session retry") }; completion(.doNotRetry) })
        let requestSide = Interceptor(
            adaptHandler: { request, _, completion in order.mutate { $0.append("request adapt") }; completion(.success(request)) },
            retryHandler: { _, _, _, completion in order.mutate { $0.append("request retry") }; completion(.retry) })
        let fixture = ClientFixture(interceptor: sessionSide)
        fixture.network.route(host: "api.test", path: "/first-times-out") { _, context in
            context.exchange == 1 ? .stall : .response(.json(200, "{}"))
        }
        var urlRequest = URLRequest(url: URL(string: "http://api.test/first-times-out")!)
        urlRequest.timeoutInterval = 0.0001
        let result = Box<String>("")
        fixture.session.request(urlRequest, interceptor: requestSide).response { result.value = $0.error.map { "\($0)" } ?? "success" }
        try fixture.run()
        #expect(order.value == ["session adapt", "request adapt", "session retry", "request retry", "session adapt", "request adapt"])
        #expect(result.value == "success")
    }

    @Test("per-request interceptors added later run after earlier ones, all after the session's")
    func addedInOrder() throws {
        let order = Box<[String]>([])
        func stamp(_ name: String) -> Adapter {
            Adapter { request, _, completion in order.mutate { $0.append(name) }; completion(.success(request)) }
        }
        let fixture = ClientFixture(interceptor: stamp("session"))
        fixture.serveTestAPI()
        fixture.session.request("http://api.test/get", interceptor: stamp("first"))
            .adapt(using: stamp("second")).interceptor(stamp("third")).response { _ in }
        try fixture.run()
        #expect(order.value == ["session", "first", "second", "third"])
    }

    @Test("a composite's retriers stop at retry, retryWithDelay and doNotRetryWithError; doNotRetry moves on")
    func compositeRetrierChain() throws {
        let fixture = ClientFixture()
        let request = fixture.session.request("http://api.test/get")
        func answer(_ results: [RetryResult]) throws -> (String, [Int]) {
            let calls = Box<[Int]>([])
            let retriers = results.enumerated().map { index, result in
                Retrier { _, _, _, completion in calls.mutate { $0.append(index) }; completion(result) }
            }
            let outcome = Box<String>("")
            Interceptor(retriers: retriers).retry(request, for: fixture.session, dueTo: TestError(id: 0)) { result in
                switch result {
                case .retry: outcome.value = "retry"
                case let .retryWithDelay(delay): outcome.value = "retryWithDelay(\(delay))"
                case .doNotRetry: outcome.value = "doNotRetry"
                case let .doNotRetryWithError(error): outcome.value = "doNotRetryWithError(\((error as? TestError)?.id ?? -1))"
                }
            }
            return (outcome.value, calls.value)
        }
        #expect(try answer([.doNotRetryWithError(TestError(id: 7)), .retry]) == ("doNotRetryWithError(7)", [0]))
        #expect(try answer([.retry, .doNotRetry]) == ("retry", [0]))
        #expect(try answer([.retryWithDelay(1.0), .retry]) == ("retryWithDelay(1.0)", [0]))
        #expect(try answer([.doNotRetry, .retry]) == ("retry", [0, 1]))
        #expect(try answer([]) == ("doNotRetry", []))
    }

    @Test("a composite's adapters chain their outputs; the first failure wins; an empty one passes through")
    func compositeAdapterChain() throws {
        let fixture = ClientFixture()
        let input = URLRequest(url: URL(string: "http://api.test/get")!)
        func adapt(_ adapters: [Adapter]) -> Result<URLRequest, any Error>? {
            let result = Box<Result<URLRequest, any Error>?>(nil)
            Interceptor(adapters: adapters).adapt(input, for: fixture.session) { result.value = $0 }
            return result.value
        }
        let addA = Adapter { request, _, completion in var r = request; r.headers.update(name: "A", value: "1"); completion(.success(r)) }
        let addB = Adapter { request, _, completion in var r = request; r.headers.update(name: "B", value: r.headers["A"] ?? "none"); completion(.success(r)) }
        let fail = Adapter { _, _, completion in completion(.failure(TestError(id: 3))) }
        #expect(try adapt([addA, addB])?.get().headers["B"] == "1")
        guard case let .failure(error)? = adapt([addA, fail, addB]) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? TestError == TestError(id: 3))
        #expect(try adapt([])?.get() == input)
    }

    @Test("the state-based adapt passes the request's deterministic identifier and the session")
    func adapterState() throws {
        struct Recorder: RequestInterceptor {
            let ids: Box<[UUID]>
            func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
                ids.mutate { $0.append(state.requestID) }
                completion(.success(urlRequest))
            }
        }
        func ids() throws -> [UUID] {
            let recorded = Box<[UUID]>([])
            let fixture = ClientFixture(interceptor: Recorder(ids: recorded))
            fixture.serveTestAPI()
            let requests = (0..<3).map { _ in fixture.session.request("http://api.test/get").response { _ in } }
            try fixture.run()
            #expect(recorded.value == requests.map(\.id))
            return recorded.value
        }
        let first = try ids()
        #expect(Set(first).count == 3)
        #expect(try ids() == first, "request identifiers are the same in every run")
    }
}

/// An adapter whose second adaptation completes 5 s later (when `waits`), so a cancel can come
/// while a retry's attempt is still being adapted.
private struct SlowSecondAdapter: RequestInterceptor {
    let waits: Bool
    let calls = Box(0)

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var call = 0
        calls.mutate { $0 += 1; call = $0 }
        guard waits && call == 2 else { return completion(.success(urlRequest)) }
        session.rootQueue.asyncAfter(delay: .seconds(5)) { completion(.success(urlRequest)) }
    }
}

extension InterceptorTests {
    @Test("DeflateRequestCompressor sends the body as a zlib stream with Content-Encoding: deflate; a request naming an encoding fails, is skipped or replaced as told")
    func deflateCompressor() throws {
        let body = Data(String(repeating: #"{"event":"tap","at":1}"#, count: 40).utf8)
        func send(_ compressor: DeflateRequestCompressor, encoding: String? = nil) throws -> (sent: (coding: String?, body: Data)?, error: ClientError?) {
            let fixture = ClientFixture(interceptor: compressor)
            let seen = Box<(String?, Data)?>(nil)
            fixture.network.route(host: "api.test", path: "/events") { request, _ in
                seen.value = (request.headerFields[.contentEncoding], request.body ?? Data())
                return .response(ResponsePlan(status: 204))
            }
            var request = URLRequest(url: URL(string: "http://api.test/events")!)
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if let encoding { request.setValue(encoding, forHTTPHeaderField: "Content-Encoding") }
            let result = Box<ClientError?>(nil)
            fixture.session.request(request).response { result.value = $0.error }
            try fixture.run()
            return (seen.value.map { (coding: $0.0, body: $0.1) }, result.value)
        }
        let plain = try send(.deflateCompressor)
        #expect(plain.sent?.coding == "deflate" && plain.error == nil)
        #expect(try Zlib.decompress(try #require(plain.sent?.body), format: .zlib) == body, "RFC 1950: what Content-Encoding: deflate means")
        #expect((plain.sent?.body.count ?? .max) < body.count)

        let refused = try send(.deflateCompressor, encoding: "gzip")
        #expect(refused.sent == nil, "nothing is sent")
        guard case let .requestAdaptationFailed(inner)? = refused.error else { Issue.record("\(String(describing: refused.error))"); return }
        #expect(inner is DeflateRequestCompressor.DuplicateHeaderError)
        #expect(try send(.deflateCompressor(duplicateHeaderBehavior: .skip), encoding: "gzip").sent?.body == body)
        #expect(try send(.deflateCompressor(duplicateHeaderBehavior: .replace), encoding: "gzip").sent?.coding == "deflate")
        #expect(try send(.deflateCompressor(shouldCompressBodyData: { $0.count > 10_000 })).sent.map { $0.coding == nil && $0.body == body } == true)
        #expect(AFInfo.version == "5.12.0")
    }
}
