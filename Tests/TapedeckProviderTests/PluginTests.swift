import Foundation
import Logging
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The four hooks in Moya's order, request modification, where hooks run, and the built-in plugins.
@Suite("Provider: plugins")
struct PluginTests {
    @Test("network path: prepare (all) → willSend (all) → didReceive (all) → process (folded), and the network sees the prepared request")
    func orderOnTheNetwork() throws {
        let world = World()
        let log = Box<[String]>([])
        let minusOne: @Sendable (Result<Response, ProviderError>) -> Result<Response, ProviderError> = { result in
            result.map { Response(statusCode: -1, data: $0.data, request: $0.request, response: $0.response) }
        }
        let provider = MoyaProvider<API>(session: world.session, plugins: [
            RecordingPlugin(name: "a", log: log, rewrite: minusOne), RecordingPlugin(name: "b", log: log),
        ])
        let result = Box<Result<Response, ProviderError>?>(nil)
        provider.request(.zen) { result.value = $0 }
        try world.run()
        #expect(log.value == [
            "a.prepare zen", "b.prepare zen",
            "a.willSend zen prepared=a,b", "b.willSend zen prepared=a,b",
            "a.didReceive zen 200", "b.didReceive zen 200",
            "a.process zen 200", "b.process zen -1",
        ])
        let response = try #require(try? result.value?.get())
        #expect(response.statusCode == -1, "b's process saw a's output, the completion b's")
        #expect(response.request?.value(forHTTPHeaderField: "X-Prepared") == "a,b")
        let sent = try #require(world.network.records.first?.request.urlRequest())
        #expect(sent.value(forHTTPHeaderField: "X-Prepared") == "a,b", "what prepare returned is what went out")
        #expect(sent.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(world.steps.filter { $0.hasPrefix("provider.") && $0.contains(" ") } == [
            "provider.willSend GET http://api.test/zen", "provider.didReceive GET http://api.test/zen 200", "provider.result caller 1 -1",
        ], "the provider's events in the trace")
    }

    @Test("stub path: the same order, with prepare and willSend on the session's requestQueue and the rest on the callback queue")
    func orderOnAStubAndQueues() throws {
        let world = World()
        let queues = Box<[String]>([])
        let callback = world.scheduler.makeQueue(label: "app.callbacks", target: nil)
        let plugin = QueuePlugin(session: world.session, callback: callback, seen: queues)
        for behavior in [StubBehavior.never, .immediate] {
            let provider = MoyaProvider<API>(session: world.session, stubClosure: { _ in behavior }, callbackQueue: callback,
                                               plugins: [plugin])
            let onCallback = Box(false)
            provider.request(.zen) { _ in onCallback.value = callback.isCurrent }
            try world.run()
            #expect(onCallback.value, "\(behavior)")
            #expect(queues.value == ["prepare requestQueue", "willSend requestQueue", "didReceive callback", "process callback"], "\(behavior)")
            queues.value = []
        }
    }

    @Test("prepare and willSend run once per attempt (a session RetryPolicy retries 503s twice), didReceive and process once")
    func perAttempt() throws {
        let world = World(interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.5))
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, plugins: [RecordingPlugin(name: "p", log: log)])
        let result = Box<Result<Response, ProviderError>?>(nil)
        provider.request(.status(503)) { result.value = $0 }
        try world.run()
        let hooks = log.value.map { $0.components(separatedBy: " ")[0] }
        #expect(hooks == ["p.prepare", "p.willSend", "p.prepare", "p.willSend", "p.prepare", "p.willSend", "p.didReceive", "p.process"])
        #expect(world.network.records.count == 3)
        #expect(result.value?.failureError?.clientError?.responseCode == 503)
    }

    @Test("a request that cannot be made reaches only process and the completion (no willSend, no didReceive)")
    func mappingFailure() throws {
        let world = World()
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(
            session: world.session,
            endpointClosure: { target in
                let endpoint = MoyaProvider.defaultEndpointMapping(for: target)
                return Endpoint(url: "http://bad host/zen", sampleResponseClosure: endpoint.sampleResponseClosure, method: endpoint.method,
                                task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
            },
            plugins: [RecordingPlugin(name: "p", log: log)])
        let result = Box<Result<Response, ProviderError>?>(nil)
        provider.request(.zen) { result.value = $0 }
        try world.run()
        #expect(log.value == ["p.process zen error"])
        guard case let .failure(.requestMapping(url))? = result.value else {
            Issue.record("expected requestMapping, got \(String(describing: result.value))")
            return
        }
        #expect(url == "http://bad host/zen")
        #expect(world.network.records.isEmpty)
    }

    @Test("access token: Bearer, Basic and custom schemes replace the header; plain targets and MultiTarget forwarding")
    func accessToken() throws {
        let world = World()
        let seen = Box<[String]>([])
        let plugin = AccessTokenPlugin { target in
            seen.mutate { $0.append("\(target)") }
            return "t0"
        }
        let provider = MoyaProvider<MultiTarget>(session: world.session, plugins: [plugin])
        let results = Box<[String: String]>([:])
        let custom = StubbedTarget(.get, "http://api.test/secure", headers: ["Authorization": "stale"], authorizationType: .custom("Token"))
        for (name, target) in [("bearer", MultiTarget(API.secure)), ("basic", MultiTarget(API.basic)), ("plain", MultiTarget(API.zen)),
                               ("custom", MultiTarget(custom))] {
            provider.request(target) { result in
                let header = (try? result.get())?.request?.value(forHTTPHeaderField: "Authorization") ?? "none"
                results.mutate { $0[name] = header }
            }
        }
        try world.run()
        #expect(results.value == ["bearer": "Bearer t0", "basic": "Basic t0", "plain": "none", "custom": "Token t0"])
        #expect(seen.value == ["secure", "basic", "GET /secure"], "the closure receives the wrapped target, only when a header is wanted")
        let fixed = AccessTokenPlugin(token: "abc").prepare(URLRequest(url: URL(string: "http://api.test")!), target: API.secure)
        #expect(fixed.value(forHTTPHeaderField: "Authorization") == "Bearer abc")
    }

    @Test("network activity: began at willSend, ended at didReceive — also for a cancelled request")
    func activity() throws {
        let world = World()
        let changes = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, plugins: [
            NetworkActivityPlugin { change, target in changes.mutate { $0.append("\(change) \(target)") } },
        ])
        provider.request(.zen) { _ in }
        let token = provider.request(.user("x")) { _ in }
        world.scheduler.makeQueue(label: "app", target: nil).asyncAfter(deadline: seconds(0.05)) { token.cancel() }
        try world.run()
        #expect(changes.value.sorted() == ["began user(\"x\")", "began zen", "ended user(\"x\")", "ended zen"])
        #expect(changes.value.firstIndex(of: "began zen")! < changes.value.firstIndex(of: "ended zen")!)
    }

    @Test("network logger: request, header fields, method, body and response lines through swift-log, with no timestamps")
    func logger() throws {
        let world = World()
        let lines = Box<[String]>([])
        let logger = Logger(label: "api") { _ in MemoryLogHandler(messages: lines) }
        let provider = MoyaProvider<API>(session: world.session, plugins: [NetworkLoggerPlugin(logger: logger, options: .verbose)])
        provider.request(.create(Item(id: 1, name: "a"))) { _ in }
        try world.run()
        #expect(lines.value == [
            "info Request: http://api.test/items",
            "info Request Headers: [Accept: application/json, Content-Type: application/json]",
            "info HTTP Request Method: POST",
            #"info Request Body: {"id":1,"name":"a"}"#,
            "info Response: 201 http://api.test/items",
            #"info Response Body: {"id":1,"name":"a"}"#,
        ])
        lines.value = []
        let curl = MoyaProvider<API>(session: world.session, plugins: [
            NetworkLoggerPlugin(logger: logger, level: .debug, options: [.formatRequestAscURL]),
        ])
        curl.request(.status(500)) { _ in }
        try world.run()
        #expect(lines.value == [
            "debug Request: $ curl -v \\\n\t-X GET \\\n\t-H \"Accept: application/json\" \\\n\t\"http://api.test/status/500\"",
            "debug Response: 500 http://api.test/status/500",
            "debug Error: response validation failed: unacceptableStatusCode(code: 500)",
        ])
    }

    @Test("network logger configured as Moya's: entries through the formatter, bodies through its data closures, one output call per hook with the target")
    func loggerConfiguration() throws {
        let world = World()
        let calls = Box<[String]>([])
        let configuration = NetworkLoggerPlugin.Configuration(
            formatter: .init(entry: { identifier, message, target in "[\(target.path)] \(identifier) = \(message)" },
                             requestData: { "\($0.count) bytes out" }, responseData: { "\($0.count) bytes in" }),
            output: { target, items in calls.mutate { $0.append("\(target): " + items.joined(separator: " | ")) } },
            logOptions: [.requestMethod, .requestBody, .successResponseBody])
        let provider = MoyaProvider<API>(session: world.session, plugins: [NetworkLoggerPlugin(configuration: configuration)])
        provider.request(.create(Item(id: 1, name: "a"))) { _ in }
        try world.run()
        #expect(calls.value == [
            "create(TapedeckProviderTests.Item(id: 1, name: \"a\")): [/items] Request = http://api.test/items | [/items] HTTP Request Method = POST"
                + " | [/items] Request Body = 19 bytes out",
            "create(TapedeckProviderTests.Item(id: 1, name: \"a\")): [/items] Response = 201 http://api.test/items | [/items] Response Body = 19 bytes in",
        ])
        #expect(NetworkLoggerPlugin().configuration.logOptions == .default)
        #expect(NetworkLoggerPlugin.default.configuration.logOptions == [.requestMethod, .requestHeaders])
        #expect(NetworkLoggerPlugin.verbose.configuration.logOptions == NetworkLoggerPlugin.LogOptions.verbose)
        #expect(NetworkLoggerPlugin.Configuration.Formatter.defaultEntryFormatter(identifier: "Request", message: "x", target: API.zen) == "Request: x")
    }

    @Test("credentials: the credential's user and password go with the request as Basic; an Authorization already there is kept; nil, nothing")
    func credentials() throws {
        let world = World()
        let plugin = CredentialsPlugin { target in
            guard case API.secure = target else { return nil }
            return URLCredential(user: "ada", password: "s3cret", persistence: .none)
        }
        let provider = MoyaProvider<MultiTarget>(session: world.session, plugins: [plugin])
        let kept = StubbedTarget(.get, "http://api.test/secure", headers: ["Authorization": "Bearer t0"])
        let answers = Box<[String: String]>([:])
        for (name, target) in [("secure", API.secure), ("zen", API.zen)] as [(String, API)] {
            MoyaProvider<API>(session: world.session, plugins: [plugin]).request(target) { result in
                answers.mutate { $0[name] = (try? result.get())?.request?.value(forHTTPHeaderField: "Authorization") ?? "none" }
            }
        }
        provider.request(MultiTarget(kept)) { result in
            answers.mutate { $0["kept"] = (try? result.get())?.request?.value(forHTTPHeaderField: "Authorization") ?? "none" }
        }
        try world.run()
        #expect(answers.value == ["secure": "Basic YWRhOnMzY3JldA==", "zen": "none", "kept": "Bearer t0"])
        #expect(world.network.records.count == 3)
    }

    @Test("RequestType.cURLDescription(calling:) hands over cURLDescription() at once and returns the request")
    func curlCallback() {
        struct Plain: RequestType {
            var request: URLRequest? { URLRequest(url: URL(string: "http://api.test/zen")!) }
            var sessionHeaders: [String: String] { ["User-Agent": "t"] }
            var requestID: UUID? { nil }
        }
        var handed: String?
        let returned = Plain().cURLDescription { handed = $0 }
        #expect(handed == Plain().cURLDescription())
        #expect(handed?.contains("-H \"User-Agent: t\"") == true)
        #expect(returned.request?.url == Plain().request?.url)
    }
}

/// Records, per hook, whether it runs on the session's requestQueue or on the callback queue.
struct QueuePlugin: PluginType {
    let session: Session
    let callback: any SchedulerQueue
    let seen: Box<[String]>

    private func note(_ hook: String) {
        let place = session.requestQueue.isCurrent ? "requestQueue" : callback.isCurrent ? "callback" : "elsewhere"
        seen.mutate { $0.append("\(hook) \(place)") }
    }

    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        note("prepare")
        return request
    }

    func willSend(_ request: any RequestType, target: any TargetType) { note("willSend") }
    func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) { note("didReceive") }

    func process(_ result: Result<Response, ProviderError>, target: any TargetType) -> Result<Response, ProviderError> {
        note("process")
        return result
    }
}
