import Foundation
import Synchronization
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckLoopback
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The provider live: real GCD queues (``LiveScheduler``), a real URLSession
/// (``LiveURLSessionProvider``) and the Hummingbird server on loopback. Nothing here waits on a
/// clock: every test awaits the completions it expects.
@Suite("Provider: live, against a loopback server", .serialized)
struct ProviderLiveTests {
    /// One server for the suite, started without blocking a thread: a `startBlocking()` here would
    /// hold a cooperative thread while the server's own task needs one, and with another suite doing
    /// the same on a two-core machine both would wait forever.
    static let server = _Concurrency.Task { try await LoopbackServer.start() }

    /// The server's base URL.
    static func base() async throws -> URL {
        try await server.value.baseURL
    }

    /// The loopback server's routes as a target.
    struct Loopback: TargetType, AccessTokenAuthorizable, CustomStringConvertible {
        enum Route: Sendable {
            case get([String: String])
            case headers
            case echo(Data)
            case status(Int)
            case delay(milliseconds: Int)
        }

        let baseURL: URL
        let route: Route

        init(_ baseURL: URL, _ route: Route) {
            self.baseURL = baseURL
            self.route = route
        }

        var path: String {
            switch route {
            case .get: "/get"
            case .headers: "/headers"
            case .echo: "/echo"
            case let .status(code): "/status/\(code)"
            case let .delay(milliseconds): "/delay/\(milliseconds)"
            }
        }
        var method: HTTPMethod {
            if case .echo = route { return .post }
            return .get
        }
        var task: TargetTask {
            switch route {
            case let .get(parameters): .requestParameters(parameters: parameters, encoding: .queryString)
            case let .echo(data): .requestData(data)
            default: .requestPlain
            }
        }
        var headers: [String: String]? { ["Accept": "application/json"] }
        var validationType: ValidationType { .successCodes }
        var authorizationType: AuthorizationType? {
            if case .headers = route { return .bearer }
            return nil
        }
        var description: String { path }
    }

    struct Echo: Decodable, Sendable {
        let method: String
        let path: String
        let query: String
    }

    static func session(requestSetup: Session.RequestSetup = .lazy) -> (Session, LiveScheduler) {
        let scheduler = LiveScheduler(violationPolicy: .record)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        return (Session(provider: LiveURLSessionProvider(), configuration: configuration, scheduler: scheduler, requestSetup: requestSetup),
                scheduler)
    }

    /// Waits for one completion (a real wait: this is the live transport).
    static func result(
        _ start: (@escaping MoyaProvider<Loopback>.Completion) -> Void
    ) async -> Result<Response, ProviderError> {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: $0) }
        }
    }

    @Test("try await provider.request: the plugins run in Moya's order and their prepared request is what the server receives")
    func asyncRequestWithPlugins() async throws {
        let base = try await Self.base()
        let (session, scheduler) = Self.session()
        let log = Box<[String]>([])
        let activity = Box<[String]>([])
        let provider = MoyaProvider<Loopback>(session: session, plugins: [
            RecordingPlugin(name: "a", log: log),
            AccessTokenPlugin(token: "live-token"),
            RecordingPlugin(name: "b", log: log),
            NetworkActivityPlugin { change, target in activity.mutate { $0.append("\(change) \(target)") } },
        ])

        let response = try await provider.request(Loopback(base, .headers))
        let received = try response.map([String: String].self)
        let fields = Dictionary(received.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(fields["authorization"] == "Bearer live-token")
        #expect(fields["x-prepared"] == "a,b")
        #expect(response.request?.value(forHTTPHeaderField: "X-Prepared") == "a,b", "the response carries the prepared request")
        #expect(response.statusCode == 200 && response.response?.statusCode == 200)
        #expect(log.value == [
            "a.prepare /headers", "b.prepare /headers",
            "a.willSend /headers prepared=a,b", "b.willSend /headers prepared=a,b",
            "a.didReceive /headers 200", "b.didReceive /headers 200",
            "a.process /headers 200", "b.process /headers 200",
        ])
        #expect(activity.value == ["began /headers", "ended /headers"])

        let echo = try await provider.request(Loopback(base, .get(["q": "a b", "page": "2"]))).map(Echo.self)
        #expect(echo.method == "GET" && echo.path == "/get" && echo.query == "page=2&q=a%20b")
        let payload = Data(LoopbackServer.bytes(50_000))
        #expect(try await provider.request(Loopback(base, .echo(payload))).data == payload)
        #expect(scheduler.violations.isEmpty, "\(scheduler.violations)")
    }

    @Test("a 404 from the server: ProviderError.underlying keeps the session's ClientError and the response; thrown typed from the async API")
    func validationFailureLive() async throws {
        let base = try await Self.base()
        let (session, _) = Self.session()
        let provider = MoyaProvider<Loopback>(session: session)
        do {
            _ = try await provider.request(Loopback(base, .status(404)))
            Issue.record("a 404 passes .successCodes validation")
        } catch let error as ProviderError {
            guard case let .underlying(underlying, response?) = error else {
                Issue.record("expected .underlying(_, response), got \(error)")
                return
            }
            #expect((underlying as? ClientError)?.isResponseValidationError == true)
            #expect(error.clientError?.responseCode == 404)
            #expect(response.statusCode == 404 && response.request?.url?.path == "/status/404")
        }
    }

    @Test("cancelling the token at willSend, while the server sleeps: explicitlyCancelled, one completion; cancelling the Swift task does the same")
    func cancellationLive() async throws {
        let base = try await Self.base()
        let (session, _) = Self.session()
        let latch = Latch()
        let calls = Box(0)
        let cancelAtWillSend = NetworkActivityPlugin { change, _ in
            if change == .began { latch.fire() }
        }
        let provider = MoyaProvider<Loopback>(session: session, plugins: [cancelAtWillSend])
        let target = Loopback(base, .delay(milliseconds: 3_000))
        let result = await Self.result { done in
            let token = provider.request(target) { result in
                calls.mutate { $0 += 1 }
                done(result)
            }
            latch.arm { token.cancel() }
        }
        #expect(result.failureError?.isExplicitlyCancelled == true, "\(result)")
        #expect(calls.value == 1)

        let taskLatch = Latch()
        let taskProvider = MoyaProvider<Loopback>(session: session, plugins: [
            NetworkActivityPlugin { change, _ in if change == .began { taskLatch.fire() } },
        ])
        let task = _Concurrency.Task { try await taskProvider.request(target) }
        taskLatch.arm { task.cancel() }
        let outcome = await task.result
        guard case let .failure(error as ProviderError) = outcome else {
            Issue.record("expected a ProviderError, got \(outcome)")
            return
        }
        #expect(error.isExplicitlyCancelled)
    }

    @Test("trackInflights live: 8 callers of one endpoint share one request, get the same Response object, each once")
    func inflightLive() async throws {
        let base = try await Self.base()
        let (session, scheduler) = Self.session()
        // The request closure holds the first caller's URLRequest until every caller has asked, so
        // all eight join the flight whatever the threads do (no reliance on the server being slow).
        let release = Latch()
        let mappings = Box(0)
        let provider = MoyaProvider<Loopback>(session: session, requestClosure: { endpoint, done in
            mappings.mutate { $0 += 1 }
            release.arm { MoyaProvider<Loopback>.defaultRequestMapping(for: endpoint, closure: done) }
        }, trackInflights: true)
        let target = Loopback(base, .get(["shared": "1"]))
        let responses = Box<[Int: Response]>([:])
        let counts = Box<[Int]>([Int](repeating: 0, count: 8))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for index in 0..<8 {
                provider.request(target) { result in
                    var last = false
                    responses.mutate { responses in
                        responses[index] = try? result.get()
                        last = responses.count == 8
                    }
                    counts.mutate { $0[index] += 1 }
                    if last { continuation.resume() }
                }
            }
            #expect(provider.inflightRequests.values.sorted() == [8])
            release.fire()
        }
        #expect(mappings.value == 1, "one request for eight callers")
        let first = try #require(responses.value[0])
        #expect(first.statusCode == 200)
        #expect(responses.value.values.allSatisfy { $0 === first })
        #expect(counts.value == [Int](repeating: 1, count: 8))
        #expect(provider.inflightRequests.isEmpty)
        #expect(scheduler.violations.isEmpty, "\(scheduler.violations)")
    }

    @Test("an eager session on real queues: created inside requestQueue.sync, 32 concurrent requests all reach willSend once")
    func eagerLive() async throws {
        let base = try await Self.base()
        let (session, scheduler) = Self.session(requestSetup: .eager)
        let sent = Box<[String]>([])
        let provider = MoyaProvider<Loopback>(session: session, plugins: [
            NetworkActivityPlugin { change, target in if change == .began { sent.mutate { $0.append("\(target)") } } },
        ])
        let count = 32
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Box(count)
            for index in 0..<count {
                provider.request(Loopback(base, .get(["i": "\(index)"]))) { result in
                    #expect((try? result.get())?.statusCode == 200, "\(result)")
                    var last = false
                    remaining.mutate { $0 -= 1; last = $0 == 0 }
                    if last { continuation.resume() }
                }
            }
        }
        #expect(sent.value.count == count && Set(sent.value) == ["/get"])
        #expect(scheduler.violations.isEmpty, "\(scheduler.violations)")
    }
}

/// Runs an action once both have happened: the action was armed, and it was fired — in either order
/// (the session's queues may reach a plugin before the test thread has stored what to cancel).
final class Latch: Sendable {
    private let state = Mutex<(fired: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    func arm(_ action: @escaping @Sendable () -> Void) {
        let fired = state.withLock { state -> Bool in
            state.action = action
            return state.fired
        }
        if fired { action() }
    }

    func fire() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.fired = true
            return state.action
        }
        action?()
    }
}
