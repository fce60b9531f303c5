// The Swift snippets of TapedeckClient's documentation: its DocC article
// (TapedeckClient.docc/TapedeckClient.md) and the `///` examples of its public declarations. One
// function (or type) per snippet, as written plus the least scaffolding (`harness`, `scheduler`,
// `session`, `response` come in as parameters; `Item`, `Repo`, `store`, `OAuthAuthenticator` are in
// Scaffolding.swift); lines added for a test are marked `// (test)`.

import Foundation
import Logging
import Synchronization
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

// MARK: - Snippets

/// TapedeckClient.docc/TapedeckClient.md, "Overview".
private func clientArticle_overview(results: Box<[Result<[Item], AFError>]>) throws -> SimulatedScheduler {
    let scheduler = SimulatedScheduler(seed: 7)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/items", .json(200, #"[{"id":1,"name":"a"}]"#))
    let session = Session(provider: Harness(network: network), scheduler: scheduler, interceptor: RetryPolicy())
    session.request("http://api.test/items").validate().responseDecodable(of: [Item].self) { response in
        print(response.result)
        results.withLock { $0.append(response.result) }   // (test)
    }
    try scheduler.runUntilIdle()
    return scheduler
}

/// `ClientError` (`{ … }` is the reader's: here it sets a flag).
private func clientError(response: AFDataResponse<Data>) -> Bool {
    var handled = false   // (test)
    if let error = response.error, error.isResponseValidationError, error.responseCode == 401 { handled = true }
    return handled
}

/// `DefaultTransport`.
private func defaultTransport(harness: Harness, scheduler: SimulatedScheduler) async throws {
    let transport = DefaultTransport(provider: harness, scheduler: scheduler, drive: { try scheduler.runUntilIdle() })
    try await DefaultTransport.$current.withValue(transport) {
        let items = try await AF.request("http://api.test/items").serializingDecodable([Item].self).value
        #expect(items == [Item(id: 1, name: "a")])   // (test)
    }
}

/// `Request.cURLDescription()` (`printed` is the test's: what `print` got).
private func cURLDescription(session: Session, printed: Box<[String]>) {
    let print: @Sendable (String) -> Void = { text in printed.withLock { $0.append(text) } }   // (test)
    session.request("http://api.test/items", headers: [.accept("application/json")])
        .cURLDescription { print($0) }
        .responseData { _ in }   // a request starts (and has a URLRequest) once it has a response handler
    // $ curl -v \
    //     -X GET \
    //     -H "Accept: application/json" \
    //     "http://api.test/items"
}

/// `Session.init(configuration:…)` (the Alamofire-style convenience initialiser).
private func sessionDefaults(store: TokenStore) -> Session {
    let session = Session(configuration: .af.default, interceptor: BearerTokenInterceptor(store: store))
    return session
}

/// `Session.queue(standingFor:)`.
private func queueStandingFor(session: Session) -> any SchedulerQueue {
    let main = session.queue(standingFor: .main)   // what `responseData(queue: .main)` uses
    return main
}

/// `Session.init(configuration:delegate:rootQueue:…)` with DispatchQueues.
private func sessionDispatchQueues() -> Session {
    let session = Session(rootQueue: DispatchQueue(label: "app.network"), interceptor: .retryPolicy)
    return session
}

/// `Session`.
private func session(harness: Harness, scheduler: SimulatedScheduler, results: Box<[Result<[Item], AFError>]>) throws {
    let session = Session(provider: harness, scheduler: scheduler, interceptor: .retryPolicy)
    session.request("http://api.test/items").validate().responseDecodable(of: [Item].self) { response in
        print(response.result)
        results.withLock { $0.append(response.result) }   // (test)
    }
    try scheduler.runUntilIdle()
}

/// `URLSessionConfiguration.af.default`.
private func afDefault() -> Session {
    let configuration = URLSessionConfiguration.af.default
    configuration.timeoutIntervalForRequest = 10
    let session = Session(configuration: configuration)
    return session
}

/// `AuthenticationInterceptor` (`stored` is the reader's credential).
private func authenticationInterceptor(
    session: Session, stored: OAuthCredential, statuses: Box<[Int?]>
) -> AuthenticationInterceptor<OAuthAuthenticator> {
    let interceptor = AuthenticationInterceptor(authenticator: OAuthAuthenticator(), credential: stored)
    session.request("http://api.test/inbox", interceptor: interceptor).validate().responseData { response in
        // one refresh for every request that got a 401 with the old token, then each retried once
        statuses.withLock { $0.append(response.response?.statusCode) }   // (test)
    }
    return interceptor   // (test)
}

/// `ClientEvent`.
private func clientEvent() -> ClosureEventMonitor {
    let monitor = ClosureEventMonitor { event in
        if case let .requestDidCompleteTaskWithError(request, _, error?) = event { print(request, error) }
    }
    return monitor
}

/// `ClosureEventMonitor`.
private func closureEventMonitor(harness: Harness, scheduler: SimulatedScheduler) -> (Session, names: @Sendable () -> [String]) {
    let monitor = ClosureEventMonitor()
    monitor.requestDidFinish = { request in print("finished", request) }
    monitor.requestDidCompleteTaskWithError = { request, _, error in if let error { print(request, error) } }

    let names = Mutex<[String]>([])   // Synchronization
    let recorder = ClosureEventMonitor { event in names.withLock { $0.append(event.name) } }
    let session = Session(provider: harness, scheduler: scheduler, eventMonitors: [monitor, recorder])
    return (session, { names.withLock { $0 } })   // (test)
}

/// `DataTask` (awaiting on a session whose transport drives its simulation).
private func dataTask(session: Session) async throws -> ([Repo], AFDataResponse<Data>) {
    let repos = try await session.request("http://api.test/repos").validate()
        .serializingDecodable([Repo].self).value          // throws the ClientError
    let response = await session.request("http://api.test/repos").serializingData().response
    return (repos, response)
}

/// `EventMonitor`.
private final class Timeline: EventMonitor {
    let log = Mutex<[String]>([])   // Synchronization
    func handle(_ event: ClientEvent) { log.withLock { $0.append(event.name) } }
    func requestDidFinish(_ request: Request) { log.withLock { $0.append("finished \(request)") } }
}

/// `HTTPHeaders`.
private func httpHeaders() -> HTTPHeaders {
    var headers: HTTPHeaders = [.authorization(bearerToken: "t0"), .accept("application/json")]
    headers.update(name: "X-Trace", value: "1")
    return headers
}

/// `JSON.foundationValue`.
private func foundationValue() -> Int? {
    let object = ClientJSON.object(["id": .number(7)]).foundationValue as? [String: Any]
    let id = object?["id"] as? Int   // 7
    return id
}

/// `LoggingEventMonitor`.
private func loggingEventMonitor(harness: Harness, scheduler: SimulatedScheduler) -> Session {
    let session = Session(provider: harness, scheduler: scheduler,
                          eventMonitors: [LoggingEventMonitor(logger: Logger(label: "api"))])
    return session
}

/// `URLEncodedFormEncoder.init(arrayEncoding:boolEncoding:dataEncoding:dateEncoding:keyEncoding:keyPathEncoding:nilEncoding:spaceEncoding:)`.
private func urlEncodedFormEncoder() -> URLEncodedFormEncoder {
    let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .numeric)
    return encoder
}

/// `Signup`: what the `URLEncodedFormEncoder` example encodes.
private struct Signup: Encodable {
    let userName: String
    let joined: Date
}

/// `URLEncodedFormEncoder` (the type's example).
private func urlEncodedFormEncoderOptions() throws -> String {
    let encoder = URLEncodedFormEncoder(dateEncoding: .iso8601, keyEncoding: .convertToSnakeCase,
                                        spaceEncoding: .plusReplaced)
    let form: String = try encoder.encode(Signup(userName: "ada l", joined: Date(timeIntervalSince1970: 0)))
    // "joined=1970-01-01T00%3A00%3A00Z&user_name=ada+l"
    return form
}

/// `ParameterEncoding` (the requests are returned so that the test can send them).
private func parameterEncoding(session: Session) -> [DataRequest] {
    [   // (test)
    session.request("http://api.test/search", parameters: ["q": "tape", "page": 2]),   // URLEncoding.default
    session.request("http://api.test/items", method: .post, parameters: ["name": "a"], encoding: JSONEncoding.default),
    ]   // (test)
}

/// `ResponseSerializer`.
private struct LinesSerializer: ResponseSerializer {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> [String] {
        if let error { throw error }
        let text = String(decoding: try dataPreprocessor.preprocess(data ?? Data()), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }
}

/// `RetryPolicy`.
private func retryPolicy(harness: Harness, scheduler: SimulatedScheduler) -> Session {
    let session = Session(provider: harness, scheduler: scheduler,
                          interceptor: RetryPolicy(retryLimit: 3, retryableHTTPStatusCodes: [503]))
    // A 503 is retried after 0.5 s, 1 s and 2 s of virtual time, then delivered.
    return session
}

// MARK: - Tests

/// A seeded world answering `GET /items` and `GET /repos` (tests add routes of their own).
private func world() -> (SimulatedScheduler, SimulatedNetwork, Harness) {
    let scheduler = SimulatedScheduler(seed: 1)
    let network = SimulatedNetwork(scheduler: scheduler)
    network.stub(.get, host: "api.test", path: "/items", .json(200, #"[{"id":1,"name":"a"}]"#))
    network.stub(.get, host: "api.test", path: "/repos", .json(200, #"[{"id":1,"name":"engine"}]"#))
    return (scheduler, network, Harness(network: network))
}

@Suite("TapedeckClient's DocC and /// snippets compile and do what they say")
struct TapedeckClientSnippetTests {
    @Test("The article's example decodes the stubbed items")
    func overview() throws {
        // When the article's example runs
        let results = Box<[Result<[Item], AFError>]>([])
        _ = try clientArticle_overview(results: results)
        // Then its handler got the item once
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 1)
        #expect((try? delivered.first?.get()) == [Item(id: 1, name: "a")], "\(delivered)")
    }

    @Test("Session's example decodes the items; ClientError's check sees a validated 401")
    func sessionAndError() throws {
        // Given a world where /private answers 401
        let (scheduler, network, harness) = world()
        network.stub(.get, host: "api.test", path: "/private", .text(401, "no"))
        // When Session's example runs, Then it decodes the items
        let results = Box<[Result<[Item], AFError>]>([])
        try session(harness: harness, scheduler: scheduler, results: results)
        #expect(results.withLock { $0.compactMap { try? $0.get() } } == [[Item(id: 1, name: "a")]])

        // When ClientError's check looks at a validated 401 and at a 200, Then only the 401 matches
        let responses = Box<[AFDataResponse<Data>]>([])
        let client = Session(provider: harness, scheduler: scheduler)
        client.request("http://api.test/private").validate().responseData { response in responses.withLock { $0.append(response) } }
        client.request("http://api.test/items").validate().responseData { response in responses.withLock { $0.append(response) } }
        try scheduler.runUntilIdle()
        let answered = responses.withLock { $0 }.sorted { ($0.response?.statusCode ?? 0) > ($1.response?.statusCode ?? 0) }
        #expect(answered.map(clientError) == [true, false])
    }

    @Test("DefaultTransport: AF inside withValue talks to the harness, and awaiting drives the simulation")
    func transport() async throws {
        let (scheduler, _, harness) = world()
        try await defaultTransport(harness: harness, scheduler: scheduler)
    }

    @Test("cURLDescription: the handler gets the curl command the comment shows")
    func curl() throws {
        // When the example's request is made and sent
        let (scheduler, _, harness) = world()
        let client = Session(provider: harness, scheduler: scheduler)
        let printed = Box<[String]>([])
        cURLDescription(session: client, printed: printed)
        try scheduler.runUntilIdle()
        // Then the handler got the command the comment shows, one option per (indented) line
        let text = try #require(printed.withLock { $0.first })
        #expect(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                == [#"$ curl -v \"#, #"-X GET \"#, #"-H "Accept: application/json" \"#, #""http://api.test/items""#], "\(text)")
    }

    @Test("Alamofire-style sessions: made without a provider they use the transport installed for the task")
    func conveniences() throws {
        // Given a harness's transport installed for the task
        let (scheduler, _, harness) = world()
        let transport = DefaultTransport(provider: harness, scheduler: scheduler)
        // When the examples make their sessions
        let sessions = DefaultTransport.$current.withValue(transport) {
            [sessionDefaults(store: TokenStore(token: "t0")), sessionDispatchQueues(), afDefault()]
        }
        // Then they run on its scheduler, with the root queue's label and the configuration given
        #expect(sessions.allSatisfy { $0.scheduler === scheduler })
        #expect(sessions[1].rootQueue.label == "app.network")
        #expect(sessions[2].session.configuration.timeoutIntervalForRequest == 10)
        let main = queueStandingFor(session: sessions[0])
        #expect(main.label == DispatchQueue.main.label)
        #expect(queueStandingFor(session: sessions[0]) === main)
    }

    @Test("AuthenticationInterceptor: three requests that get a 401 with the old token cause one refresh and each is retried once")
    func authentication() throws {
        // Given an inbox that answers 401 to anything but the refreshed token
        let (scheduler, network, harness) = world()
        network.route(host: "api.test", path: "/inbox") { request, _ in
            request.urlRequest().value(forHTTPHeaderField: "Authorization") == "Bearer new" ? .response(.text(200, "mail")) : .response(.text(401, "who?"))
        }
        // When the example's request and two more through the same interceptor are sent
        let client = Session(provider: harness, scheduler: scheduler)
        let statuses = Box<[Int?]>([])
        let interceptor = authenticationInterceptor(session: client, stored: OAuthCredential(accessToken: "old"), statuses: statuses)
        for _ in 0..<2 {
            client.request("http://api.test/inbox", interceptor: interceptor).validate().responseData { response in
                statuses.withLock { $0.append(response.response?.statusCode) }
            }
        }
        try scheduler.runUntilIdle()
        // Then one refresh served all three, and each was sent twice
        #expect(statuses.withLock { $0 } == [200, 200, 200])
        #expect(interceptor.authenticator.refreshCount == 1)
        #expect(network.records.count == 6, "each request twice: once with the old token, once after the refresh")
    }

    @Test("ClientEvent, ClosureEventMonitor, EventMonitor and LoggingEventMonitor see a request's events")
    func monitors() throws {
        // Given sessions with the examples' monitors
        let (scheduler, _, harness) = world()
        let (client, names) = closureEventMonitor(harness: harness, scheduler: scheduler)
        let timeline = Timeline()
        let others = Session(provider: harness, scheduler: scheduler, eventMonitors: [clientEvent(), timeline])
        let logged = loggingEventMonitor(harness: harness, scheduler: scheduler)
        // When each sends a request
        for session in [client, others, logged] {
            session.request("http://api.test/items").responseData { _ in }
        }
        try scheduler.runUntilIdle()
        // Then the recorder and the Timeline saw the request finish
        #expect(names().contains("requestDidFinish"), "\(names())")
        #expect(timeline.log.withLock { $0 }.contains { $0.hasPrefix("finished ") })
    }

    @Test("DataTask: awaiting a validated decodable gives the repos; awaiting the response gives the response")
    func concurrency() async throws {
        // Given a transport that drives its simulation when awaited
        let (scheduler, _, harness) = world()
        let transport = DefaultTransport(provider: harness, scheduler: scheduler, drive: { try scheduler.runUntilIdle() })
        // When the example awaits on a session made from it, Then both awaits get their answers
        let (repos, response) = try await DefaultTransport.$current.withValue(transport) {
            try await dataTask(session: Session())
        }
        #expect(repos == [Repo(id: 1, name: "engine")])
        #expect(response.response?.statusCode == 200)
    }

    @Test("HTTPHeaders: the literal keeps its order, update adds the new field")
    func headers() {
        let headers = httpHeaders()
        #expect(headers.map(\.name) == ["Authorization", "Accept", "X-Trace"])
        #expect(headers["Authorization"] == "Bearer t0")
    }

    @Test("JSON.foundationValue: the number reads as an Int")
    func json() {
        #expect(foundationValue() == 7)
    }

    @Test("URLEncodedFormEncoder: arrays without brackets, booleans as 1/0")
    func formEncoder() throws {
        struct Form: Encodable { let tags: [String]; let on: Bool }
        #expect(try urlEncodedFormEncoder().encode(Form(tags: ["a", "b"], on: true)) == "on=1&tags=a&tags=b")
    }

    @Test("URLEncodedFormEncoder's example: ISO 8601 dates, snake-case keys, spaces as +")
    func formEncoderOptions() throws {
        #expect(try urlEncodedFormEncoderOptions() == "joined=1970-01-01T00%3A00%3A00Z&user_name=ada+l")
    }

    @Test("ParameterEncoding: URLEncoding.default puts a GET's parameters in the query, JSONEncoding a POST's in the body")
    func parameterEncodings() throws {
        // Given routes that answer with the query and with the body they got
        let (scheduler, network, harness) = world()
        network.route(host: "api.test", path: "/search") { request, _ in .response(.text(200, request.url.query ?? "")) }
        network.route(.post, host: "api.test", path: "/items") { request, _ in .response(.text(201, String(decoding: request.body ?? Data(), as: UTF8.self))) }
        // When the example's two requests are sent
        let bodies = Box<[String]>([])
        let client = Session(provider: harness, scheduler: scheduler)
        for request in parameterEncoding(session: client) {
            request.responseString { response in bodies.withLock { $0.append(response.value ?? "") } }
        }
        try scheduler.runUntilIdle()
        // Then the GET's parameters were in its query, the POST's in its JSON body
        #expect(Set(bodies.withLock { $0 }) == ["page=2&q=tape", #"{"name":"a"}"#])
    }

    @Test("LinesSerializer splits the body into lines")
    func linesSerializer() throws {
        // Given a three-line body, When it is serialized by LinesSerializer, Then each line is an element
        let (scheduler, network, harness) = world()
        network.stub(.get, host: "api.test", path: "/lines", .text(200, "one\ntwo\nthree"))
        let lines = Box<[String]?>(nil)
        let client = Session(provider: harness, scheduler: scheduler)
        client.request("http://api.test/lines")
            .response(responseSerializer: LinesSerializer()) { response in lines.withLock { $0 = response.value } }
        try scheduler.runUntilIdle()
        #expect(lines.withLock { $0 } == ["one", "two", "three"])
    }

    @Test("RetryPolicy: a validated 503 is retried after 0.5 s, 1 s and 2 s of virtual time, then delivered")
    func retries() throws {
        // Given a route that always answers 503, and the example's session
        let (scheduler, network, harness) = world()
        network.stub(.get, host: "api.test", path: "/busy", .text(503, "busy"))
        let client = retryPolicy(harness: harness, scheduler: scheduler)
        // When a validated request is sent
        let delivered = Box<(status: Int?, at: VirtualInstant)?>(nil)
        client.request("http://api.test/busy").validate().responseData { response in
            delivered.withLock { $0 = (response.response?.statusCode, scheduler.now) }
        }
        try scheduler.runUntilIdle()
        // Then it was tried four times and delivered at 0.5 + 1 + 2 s
        #expect(network.records.count == 4)
        #expect(delivered.withLock { $0 }?.status == 503)
        #expect(delivered.withLock { $0 }?.at == VirtualInstant.zero.advanced(by: .milliseconds(3500)))
    }
}
