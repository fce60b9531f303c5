// What the documentation's snippets leave to the reader — `myDelegate`, `myClient`, `Item`,
// `User`, a `GitHub` target — written once here, and temporary directories for snippets that read
// or write files. None of this is a snippet.

import Foundation
import Synchronization
import Testing
import TapedeckClient
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Places

/// The repository's root (this file is Tests/TapedeckDocSnippetsTests/Scaffolding.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A file of the repository, by its path from the root (`fixtures/cassettes/shop.har.gz`).
func repositoryFile(_ path: String) -> URL {
    repositoryRoot.appendingPathComponent(path)
}

/// The cassettes committed beside this target's tests.
let snippetCassettes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Cassettes")

/// A fresh directory under the system's temporary directory, removed by `cleanUp()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-doc-snippets-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

// MARK: - Types the snippets name

/// `Item`: an element of `[{"id":1,"name":"a"}]`.
struct Item: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// `Items`: the body `{"items":[]}`.
struct Items: Decodable, Sendable {
    let items: [String]
}

/// `User`: `{"id":1,"name":"Ada"}`.
struct User: Decodable, Sendable {
    let id: Int
    let name: String
}

/// `GitHub`: the target of docs/provider.md's example, which other snippets use.
enum GitHub: TargetType, AccessTokenAuthorizable {
    case zen
    case user(String)

    var baseURL: URL { URL(string: "https://api.github.test")! }
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
    var authorizationType: AuthorizationType? { .bearer }
}

// MARK: - Delegates and clients

/// `myDelegate`: a data delegate that notes each callback — in the scheduler's trace when it runs
/// on simulated queues (so a test sees which queue's job it ran in), and with the name of the
/// `OperationQueue` it ran on — and the statuses and bodies it saw.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is in Mutexes.
    private let scheduler = Mutex<SimulatedScheduler?>(nil)
    private let seen = Mutex<(statuses: [Int], body: Data, queues: [String?], completions: Int)>(([], Data(), [], 0))

    /// Records in `scheduler`'s trace too when given (only for sessions on simulated queues).
    init(scheduler: SimulatedScheduler? = nil) {
        self.scheduler.withLock { $0 = scheduler }
    }

    /// Records in `scheduler`'s trace from now on.
    func attach(to scheduler: SimulatedScheduler) {
        self.scheduler.withLock { $0 = scheduler }
    }

    var statuses: [Int] { seen.withLock { $0.statuses } }
    var body: Data { seen.withLock { $0.body } }
    var completions: Int { seen.withLock { $0.completions } }
    /// The names of the operation queues the callbacks ran on.
    var queues: [String?] { seen.withLock { $0.queues } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let queue = OperationQueue.current?.name
        seen.withLock { $0.statuses.append(status); $0.queues.append(queue) }
        scheduler.withLock { $0 }?.record("delegate", "didReceive \(status)")
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        seen.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let queue = OperationQueue.current?.name
        seen.withLock { $0.completions += 1; $0.queues.append(queue) }
        scheduler.withLock { $0 }?.record("delegate", "didCompleteWithError \(error.map { "\($0)" } ?? "nil")")
    }
}

/// `myClient` / `client`: code with its own URLSession that blocks its caller until an answer
/// arrives (as code written for a synchronous API does), or starts a request and returns.
final class BlockingClient: @unchecked Sendable {
    // @unchecked Sendable: results are kept in a Mutex; `session` and `url` are set once.
    let session: URLSession
    let url: URL
    private let results = Mutex<[Int]>([])
    private let handlerQueues = Mutex<[String?]>([])
    private let done = DispatchSemaphore(value: 0)

    init(session: URLSession, url: URL) {
        self.session = session
        self.url = url
    }

    /// The statuses of the requests answered so far.
    var statuses: [Int] { results.withLock { $0 } }
    /// The names of the operation queues its completion handlers ran on.
    var queues: [String?] { handlerQueues.withLock { $0 } }

    /// Starts a GET of `url` and returns at once.
    func start() {
        session.dataTask(with: url) { [self] _, response, _ in
            handlerQueues.withLock { $0.append(OperationQueue.current?.name) }
            results.withLock { $0.append((response as? HTTPURLResponse)?.statusCode ?? 0) }
            done.signal()
        }.resume()
    }

    /// Waits (bounded, in real time) for the request `start()` began.
    func waitForAnswer() throws {
        guard done.wait(timeout: .now() + 10) == .success else { throw ClientTimedOut() }
    }

    /// Sends a GET of `url` and blocks until it is answered; returns the status.
    func get() throws -> Int {
        start()
        try waitForAnswer()
        return statuses.last ?? 0
    }

    /// `Pacing`'s `client.run()`: a GET of `url`, blocking until it is answered.
    func run() throws {
        _ = try get()
    }

    /// docs/bridge.md's `myClient.load(using:)`: a GET on the session given, blocking.
    func load(using session: URLSession) throws -> Int {
        let client = BlockingClient(session: session, url: url)
        let status = try client.get()
        handlerQueues.withLock { $0 += client.queues }
        return status
    }

    /// `Harness.configuration(base:)`'s `myClient.fetchEverything(with:)`: two GETs, one after the other.
    func fetchEverything(with session: URLSession) throws {
        let client = BlockingClient(session: session, url: url)
        try client.run()
        try client.run()
        results.withLock { $0 += client.statuses }
        handlerQueues.withLock { $0 += client.queues }
    }

    /// `serve`'s `myClient.loadUser()`.
    func loadUser() throws -> Int {
        try get()
    }

    struct ClientTimedOut: Error {}
}

// MARK: - Interceptors and authenticators the snippets name

/// `Repo`: an element of `[{"id":1,"name":"engine"}]`.
struct Repo: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// `store`: where `BearerTokenInterceptor` reads its token.
final class TokenStore: Sendable {
    private let token: Mutex<String>

    init(token: String) {
        self.token = Mutex(token)
    }

    var current: String { token.withLock { $0 } }
}

/// `BearerTokenInterceptor(store:)`: adds `Authorization: Bearer <token>` to every request.
final class BearerTokenInterceptor: RequestInterceptor {
    let store: TokenStore

    init(store: TokenStore) {
        self.store = store
    }

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.setValue("Bearer \(store.current)", forHTTPHeaderField: "Authorization")
        completion(.success(request))
    }
}

/// `MyTokenInterceptor()` / `OurAuthInterceptor()`: a bearer token, and the retries a default
/// `RetryPolicy` makes (so a scenario's 503s still get through).
final class MyTokenInterceptor: RequestInterceptor {
    private let retrier = RetryPolicy()

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.setValue("Bearer t0", forHTTPHeaderField: "Authorization")
        completion(.success(request))
    }

    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        retrier.retry(request, for: session, dueTo: error, completion: completion)
    }
}

typealias OurAuthInterceptor = MyTokenInterceptor

/// `stored`: an OAuth credential.
struct OAuthCredential: AuthenticationCredential, Sendable {
    let accessToken: String
    var requiresRefresh: Bool { false }
}

/// `OAuthAuthenticator()`: applies the access token, refreshes it (counting refreshes) to `new`,
/// and treats a 401 as an authentication failure.
final class OAuthAuthenticator: Authenticator {
    private let refreshes = Mutex(0)

    var refreshCount: Int { refreshes.withLock { $0 } }

    func apply(_ credential: OAuthCredential, to urlRequest: inout URLRequest) {
        urlRequest.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: OAuthCredential, for session: Session, completion: @escaping @Sendable (Result<OAuthCredential, any Error>) -> Void) {
        refreshes.withLock { $0 += 1 }
        completion(.success(OAuthCredential(accessToken: "new")))
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool {
        response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: OAuthCredential) -> Bool {
        urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.accessToken)"
    }
}

// MARK: - Shared state for tests

/// A value behind a lock, as a reference: what a snippet's handler appends to and the test reads.
final class Box<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, under the lock.
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }

    /// The value now.
    var value: Value { mutex.withLock { $0 } }
}

// MARK: - A scenario that fails for most seeds

/// `flaky.yaml`: three requests, a 503 that fires on half the attempts, no retries; so most seeds
/// fail (seed 17 among them), and the failure is some request's 503.
let flakyScenario = """
    name: flaky
    seed: 1
    traffic:
      stubs:
        - match: GET http://api.test/items*
          latency: 10ms
          json: {ok: true}
    client:
      validate: true
    script:
      - request: GET http://api.test/items
        name: items
        repeat: 3
        every: 20ms
    faults:
      - name: flaky
        kind: status
        status: 503
        probability: 500
    expect:
      requests:
        items: {status: 200}
    """
