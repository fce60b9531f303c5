// The Swift snippets of TapedeckProvider's documentation: its DocC article
// (TapedeckProvider.docc/TapedeckProvider.md) and the `///` examples of its public declarations.
// One function (or type) per snippet, as written plus the least scaffolding (`session`, `provider`,
// `scheduler`, `response`, `plugins`, `tokenStore` come in as parameters; `GitHub` and `User` are in
// Scaffolding.swift); lines added for a test are marked `// (test)`.

import Foundation
import Logging
import Synchronization
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

// MARK: - Snippets

/// TapedeckProvider.docc/TapedeckProvider.md, "Overview".
private func providerArticle_overview() async throws -> (String, VirtualInstant) {
    let scheduler = SimulatedScheduler(seed: 7)
    let session = Session(provider: Harness(network: SimulatedNetwork(scheduler: scheduler)), scheduler: scheduler)
    let provider = MoyaProvider<GitHub>(session: session, stubClosure: MoyaProvider.delayedStub(5),
                                          plugins: [AccessTokenPlugin(token: "t0")], trackInflights: true)
    let pending = provider.start(.zen)
    try scheduler.runUntilIdle()                     // scheduler.now == 5 s
    let zen = try await pending.response.mapString()
    return (zen, scheduler.now)
}

/// `Moya` (the two properties, in a target).
private enum MoyaSpelled: TargetType {
    case ping

    var baseURL: URL { URL(string: "http://api.test")! }
    var path: String { "/ping" }
    var method: Moya.Method { .get }
    var task: Moya.Task { .requestPlain }
    var headers: [String: String]? { nil }
}

/// `Endpoint`.
private func endpoint(session: Session) -> MoyaProvider<GitHub> {
    let provider = MoyaProvider<GitHub>(session: session, endpointClosure: { target in
        MoyaProvider.defaultEndpointMapping(for: target)
            .adding(newHTTPHeaderFields: ["X-App-Version": "1.2"])
    })
    return provider
}

/// `AccessTokenPlugin`.
private func accessTokenPlugin(tokenStore: TokenStore) -> (AccessTokenPlugin, AccessTokenPlugin) {
    let plugin = AccessTokenPlugin { _ in tokenStore.current }
    let fixed = AccessTokenPlugin(token: "t0")
    return (plugin, fixed)
}

/// `CredentialsPlugin`.
private func credentialsPlugin() -> CredentialsPlugin {
    let credentials = CredentialsPlugin { target in
        URLCredential(user: "ada", password: "secret", persistence: .none)
    }
    return credentials
}

/// `NetworkActivityPlugin`.
private func networkActivityPlugin() -> NetworkActivityPlugin {
    let activity = NetworkActivityPlugin { change, target in
        print(change, target)
    }
    return activity
}

/// `NetworkLoggerPlugin.Configuration`.
private func networkLoggerConfiguration() -> NetworkLoggerPlugin.Configuration {
    let configuration = NetworkLoggerPlugin.Configuration(
        formatter: .init(responseData: { data in String(decoding: data, as: UTF8.self) }),
        output: { target, entries in entries.forEach { print("[\(target.path)]", $0) } },
        logOptions: .verbose)
    return configuration
}

/// `NetworkLoggerPlugin`.
private func networkLoggerPlugin() -> (NetworkLoggerPlugin, NetworkLoggerPlugin) {
    let plugin = NetworkLoggerPlugin(configuration: .init(logOptions: .verbose))
    let quiet = NetworkLoggerPlugin(logger: Logger(label: "api"), level: .debug)   // swift-log instead
    return (plugin, quiet)
}

/// `PluginType`.
private final class RequestCounter: PluginType {
    let count = Mutex(0)   // Synchronization
    func willSend(_ request: any RequestType, target: any TargetType) {
        count.withLock { $0 += 1 }
    }
}

/// `PendingResponse`.
private func pendingResponse(provider: MoyaProvider<GitHub>, scheduler: SimulatedScheduler) async throws -> String {
    let pending = provider.start(.zen)
    try scheduler.runUntilIdle()
    let text = try await pending.response.mapString()
    return text
}

/// `MoyaProvider.request(_:callbackQueue:) async`.
private func asyncRequest(provider: MoyaProvider<GitHub>) async throws -> User {
    let user = try await provider.request(.user("octocat")).map(User.self)
    return user
}

/// `MoyaProvider.defaultAlamofireSession()`.
private func defaultAlamofireSession(plugins: [any PluginType]) -> MoyaProvider<GitHub> {
    let provider = MoyaProvider<GitHub>(session: MoyaProvider<GitHub>.defaultAlamofireSession(), plugins: plugins)
    return provider
}

/// `MoyaProvider` (the class).
private func targetProvider(texts: Box<[String?]>) throws -> (MoyaProvider<GitHub>, SimulatedScheduler) {
    let provider = MoyaProvider<GitHub>(plugins: [NetworkLoggerPlugin(configuration: .init(logOptions: .verbose))])

    let scheduler = SimulatedScheduler(seed: 7)
    let session = Session(provider: Harness(network: SimulatedNetwork(scheduler: scheduler)), scheduler: scheduler)
    let stubbed = MoyaProvider<GitHub>(stubClosure: MoyaProvider.delayedStub(5), session: session)
    stubbed.request(.zen) { result in
        print((try? result.get().mapString()) ?? "")   // at t = 5 s, in microseconds of wall time
        texts.withLock { $0.append(try? result.get().mapString()) }   // (test)
    }
    try scheduler.runUntilIdle()
    return (provider, scheduler)
}

/// `MoyaProvider.init(endpointClosure:requestClosure:stubClosure:callbackQueue:session:plugins:trackInflights:)`.
private func targetProviderInit() -> (MoyaProvider<GitHub>, MoyaProvider<GitHub>) {
    let provider = MoyaProvider<GitHub>()
    let tests = MoyaProvider<GitHub>(stubClosure: MoyaProvider.immediatelyStub, callbackQueue: .main)
    return (provider, tests)
}

/// `ProviderError` (`caught` is the test's).
private func providerError(provider: MoyaProvider<GitHub>, caught: Box<[Int?]>) async {
    do {
        let user = try await provider.request(.user("octocat")).map(User.self)
        _ = user   // (test)
    } catch let error as MoyaError {   // both calls throw only a ProviderError (MoyaError)
        if error.isExplicitlyCancelled { return }
        print(error.response?.statusCode as Any, error.clientError?.urlError as Any)
        caught.withLock { $0.append(error.response?.statusCode) }   // (test)
    } catch {
        Issue.record("not a ProviderError: \(error)")   // (test)
    }
}

/// `Response.mapJSON(failsOnEmptyData:)`.
private func mapJSON(response: Response) throws -> String? {
    let login = (try response.mapJSON() as? [String: Any])?["login"] as? String
    return login
}

/// `MultiTarget`.
private func multiTarget(session: Session, results: Box<[Int?]>) {
    let provider = MoyaProvider<MultiTarget>(session: session)
    provider.request(MultiTarget(GitHub.zen)) { result in print(result) }
    provider.request(MultiTarget(GitHub.zen)) { result in results.withLock { $0.append(try? result.get().statusCode) } }   // (test)
}

/// `StubbedTarget`.
private func stubbedTarget() -> (StubbedTarget, StubbedTarget) {
    let zen = StubbedTarget(.get, "http://api.test/zen", sample: .networkResponse(200, Data("ok".utf8)),
                            stubBehavior: .delayed(seconds: 5))
    let down = StubbedTarget(.get, "http://api.test/down", sample: .networkError(URLError(.notConnectedToInternet)),
                             stubBehavior: .immediate)
    return (zen, down)
}

/// `TargetTask` (the `task` property, in a target with the cases it switches over).
private enum Shop: TargetType {
    case search(String)
    case create(Item)
    case zen

    var baseURL: URL { URL(string: "http://api.test")! }
    var path: String {
        switch self {
        case .search: "/search"
        case .create: "/items"
        case .zen: "/zen"
        }
    }
    var method: HTTPMethod {
        if case .create = self { return .post }
        return .get
    }
    var headers: [String: String]? { nil }

    var task: TargetTask {
        switch self {
        case let .search(query): .requestParameters(parameters: ["q": query, "page": 1], encoding: URLEncoding.queryString)
        case let .create(item): .requestJSONEncodable(item)
        case .zen: .requestPlain
        }
    }
}

/// `TargetType` (in a namespace of its own: the page's `GitHub` is Scaffolding.swift's).
private enum TargetTypeDoc {
    enum GitHub: TargetType {
        case zen
        case user(String)

        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String {
            switch self {
            case .zen: "/zen"
            case let .user(name): "/users/\(name)"
            }
        }
        var method: HTTPMethod { .get }
        var task: TargetTask { .requestPlain }
        var headers: [String: String]? { ["Accept": "application/json"] }
        var sampleData: Data { Data("Half measures are as bad as nothing at all.".utf8) }
        var validationType: ValidationType { .successCodes }
    }
}

// MARK: - Tests

/// A seeded world answering `GET /zen` with a proverb.
private func world() -> (SimulatedScheduler, SimulatedNetwork, Session) {
    let scheduler = SimulatedScheduler(seed: 1)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.github.test", path: "/zen", .text(200, "Keep it logically awesome."))
    return (scheduler, network, Session(provider: Harness(network: network), scheduler: scheduler))
}

@Suite("TapedeckProvider's DocC and /// snippets compile and do what they say")
struct TapedeckProviderSnippetTests {
    @Test("The article's example and PendingResponse: the five-second stub is there at exactly t = 5 s")
    func overview() async throws {
        // When the article's example runs, Then the sample data came at exactly 5 s
        let (zen, now) = try await providerArticle_overview()
        #expect(zen == "Half measures are as bad as nothing at all.")
        #expect(now == VirtualInstant.zero.advanced(by: .seconds(5)))

        // When PendingResponse's example starts, drives and awaits an unstubbed target, Then the network's answer is there
        let (scheduler, _, session) = world()
        let text = try await pendingResponse(provider: MoyaProvider<GitHub>(session: session), scheduler: scheduler)
        #expect(text == "Keep it logically awesome.")
    }

    @Test("MoyaProvider's example: the stub's text at t = 5 s")
    func targetProviderExample() throws {
        // When the class's example runs, Then the stub's text came once, at t = 5 s
        let texts = Box<[String?]>([])
        let (_, scheduler) = try targetProvider(texts: texts)
        #expect(texts.withLock { $0 } == ["Half measures are as bad as nothing at all."])
        #expect(scheduler.now == VirtualInstant.zero.advanced(by: .seconds(5)))
        // And Moya's initialiser makes each provider its own default session
        let (live, tests) = targetProviderInit()
        #expect(live.session !== tests.session)
    }

    @Test("Moya's spellings, Endpoint's header, the plugins and the default session compile and send as documented")
    func targetsAndPlugins() throws {
        // Given a network that notes each request's Authorization and X-App-Version
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        let seen = Box<[String: [String]]>([:])
        network.route { request, _ in
            let fields = request.urlRequest()
            seen.withLock { $0[request.url.path] = [fields.value(forHTTPHeaderField: "Authorization") ?? "-",
                                                   fields.value(forHTTPHeaderField: "X-App-Version") ?? "-"] }
            return .response(.text(200, "ok"))
        }
        let session = Session(provider: Harness(network: network), scheduler: scheduler)

        // When a Moya-spelled target and the GitHub target go through providers with the plugins
        let counter = RequestCounter()
        let (fromStore, fixed) = accessTokenPlugin(tokenStore: TokenStore(token: "from-store"))
        let plugins: [any PluginType] = [counter, fromStore, fixed, credentialsPlugin(), networkActivityPlugin(),
                                         NetworkLoggerPlugin(configuration: networkLoggerConfiguration())]
        _ = networkLoggerPlugin()
        MoyaProvider<MoyaSpelled>(session: session, plugins: plugins).request(.ping) { _ in }
        MoyaProvider<GitHub>(session: session, plugins: plugins).request(.user("ada")) { _ in }
        endpoint(session: session).request(.zen) { _ in }
        try scheduler.runUntilIdle()

        // Then the counter saw both plugin requests; the second token plugin replaced the first's
        // header, which the credentials plugin then left alone; a target that is not
        // AccessTokenAuthorizable got the credentials as Basic (ada:secret); the endpoint's header went out
        #expect(counter.count.withLock { $0 } == 2)
        #expect(seen.value["/ping"] == ["Basic \(Data("ada:secret".utf8).base64EncodedString())", "-"])
        #expect(seen.value["/users/ada"] == ["Bearer t0", "-"])
        #expect(seen.value["/zen"] == ["-", "1.2"])

        // And a provider made with the default session uses the transport installed for the task
        let transport = DefaultTransport(provider: Harness(network: network), scheduler: scheduler)
        let defaulted = DefaultTransport.$current.withValue(transport) { defaultAlamofireSession(plugins: []) }
        #expect(defaulted.session.scheduler === scheduler)
    }

    @Test("async request maps the user; ProviderError carries the status of a failed validation; mapJSON reads the login")
    func asyncAndErrors() async throws {
        // Given providers whose stubs answer at once on a live scheduler (nothing to drive, nothing sent)
        func stubbing(_ status: Int, _ body: String) -> MoyaProvider<GitHub> {
            MoyaProvider<GitHub>(session: Session(provider: LiveURLSessionProvider(), scheduler: LiveScheduler()), endpointClosure: { target in
                Endpoint(url: URL(target: target).absoluteString, sampleResponseClosure: { .networkResponse(status, Data(body.utf8)) },
                         method: target.method, task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: MoyaProvider.immediatelyStub)
        }
        let user = #"{"id":1,"name":"Ada","login":"octocat"}"#

        // Then the async request maps the user, and mapJSON finds the login
        #expect(try await asyncRequest(provider: stubbing(200, user)).name == "Ada")
        #expect(try mapJSON(response: await stubbing(200, user).start(.user("octocat")).response) == "octocat")
        // And a 404 (outside .successCodes) is a ProviderError with the response's status
        let caught = Box<[Int?]>([])
        await providerError(provider: stubbing(404, "no"), caught: caught)
        await providerError(provider: stubbing(200, user), caught: caught)
        #expect(caught.value == [404])
    }

    @Test("MultiTarget sends the wrapped target; StubbedTarget and Shop's tasks build")
    func multiAndStubbed() throws {
        // When MultiTarget's example sends the wrapped /zen, Then the network answers it
        let (scheduler, _, session) = world()
        let results = Box<[Int?]>([])
        multiTarget(session: session, results: results)
        try scheduler.runUntilIdle()
        #expect(results.withLock { $0 } == [200])

        // When StubbedTarget's two targets go through a provider that honours their stubBehavior,
        // Then zen succeeds 5 s later and down fails at once
        let (zen, down) = stubbedTarget()
        let stubs = MoyaProvider<StubbedTarget>(session: session)
        let answers = Box<[String: (ok: Bool, at: VirtualInstant)]>([:])
        let start = scheduler.now
        stubs.request(zen) { result in answers.withLock { $0["zen"] = ((try? result.get()) != nil, scheduler.now) } }
        stubs.request(down) { result in answers.withLock { $0["down"] = ((try? result.get()) != nil, scheduler.now) } }
        try scheduler.runUntilIdle()
        #expect(answers.withLock { $0["zen"]?.ok } == true)
        #expect(answers.withLock { $0["zen"]?.at } == start.advanced(by: .seconds(5)))
        #expect(answers.withLock { $0["down"]?.ok } == false)
        #expect(answers.withLock { $0["down"]?.at } == start)

        // And TargetTask's search puts its parameters in the query; TargetType's target is api.github.com
        let search = try Endpoint(url: URL(target: Shop.search("tape")).absoluteString, sampleResponseClosure: { .networkResponse(200, Data()) },
                                  method: Shop.search("tape").method, task: Shop.search("tape").task, httpHeaderFields: nil).urlRequest()
        #expect(search.url?.query == "page=1&q=tape")
        #expect(TargetTypeDoc.GitHub.zen.baseURL.host == "api.github.com")
    }
}
