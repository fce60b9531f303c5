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
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The API the provider tests talk to (`http://api.test`), in the shape of a Moya target enum.
enum API: TargetType, AccessTokenAuthorizable, Hashable {
    case zen
    case user(String)
    case search(String, page: Int)
    case create(Item)
    case status(Int)
    case secure
    case basic

    var baseURL: URL { URL(string: "http://api.test")! }
    var path: String {
        switch self {
        case .zen: "/zen"
        case let .user(name): "/users/\(name)"
        case .search: "/search"
        case .create: "/items"
        case let .status(code): "/status/\(code)"
        case .secure, .basic: "/secure"
        }
    }
    var method: HTTPMethod {
        if case .create = self { return .post }
        return .get
    }
    var task: TargetTask {
        switch self {
        case let .search(query, page): .requestParameters(parameters: ["q": query, "page": page], encoding: .queryString)
        case let .create(item): .requestJSONEncodable(item)
        default: .requestPlain
        }
    }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var sampleData: Data {
        switch self {
        case .zen: Data("Half measures are as bad as nothing at all.".utf8)
        case let .user(name): Data(#"{"login":"\#(name)","id":1}"#.utf8)
        default: Data()
        }
    }
    var validationType: ValidationType {
        if case .status = self { return .successCodes }
        return .none
    }
    var authorizationType: AuthorizationType? {
        switch self {
        case .secure: .bearer
        case .basic: .basic
        default: nil
        }
    }
}

struct Item: Codable, Sendable, Hashable {
    let id: Int
    let name: String
}

struct User: Decodable, Sendable, Equatable {
    let login: String
    let id: Int
}

/// A simulated world: scheduler, network with the API's routes, harness, session.
final class World: @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    let scheduler: SimulatedScheduler
    let network: SimulatedNetwork
    let harness: Harness
    let session: Session

    /// Frees the sessions and the simulation when the test lets go of it (see Harness.endSimulation()).
    deinit {
        harness.endSimulation()
    }

    init(seed: UInt64 = 0, requestSetup: Session.RequestSetup = .lazy, interceptor: (any RequestInterceptor)? = nil,
         latency: Latency = .fixed(.milliseconds(100))) {
        scheduler = SimulatedScheduler(seed: seed, violationPolicy: .record)
        network = SimulatedNetwork(scheduler: scheduler)
        harness = Harness(network: network)
        session = Session(provider: harness, scheduler: scheduler, requestSetup: requestSetup, interceptor: interceptor)
        let options = RouteOptions(latency: latency)
        network.stub(host: "api.test", path: "/zen", options: options,
                     ResponsePlan(status: 200, headers: [("Content-Type", "text/plain")], body: Data("Keep it logically awesome.".utf8)))
        network.route(host: "api.test", path: "/users/*", options: options) { request, _ in
            .response(.json(200, #"{"login":"\#(request.url.lastPathComponent)","id":7}"#))
        }
        network.route(host: "api.test", path: "/search", options: options) { request, _ in
            .response(.json(200, #"{"query":"\#(request.url.query ?? "")"}"#))
        }
        network.route(host: "api.test", path: "/items", options: options) { request, _ in
            .response(ResponsePlan(status: 201, headers: [("Content-Type", "application/json")], body: request.body ?? Data()))
        }
        network.route(host: "api.test", path: "/status/*", options: options) { request, _ in
            .response(ResponsePlan(status: Int(request.url.lastPathComponent) ?? 500))
        }
        network.route(host: "api.test", path: "/secure", options: options) { request, _ in
            let authorization = request.headerFields[.authorization] ?? ""
            return .response(.json(200, #"{"authorization":"\#(authorization)"}"#))
        }
    }

    /// Runs `body` with this world as TapedeckClient's default transport: a `Session()` made inside
    /// (and so a provider made without a session, as Moya code makes one) uses its simulated network.
    func withTransport<T>(_ body: () throws -> T) rethrows -> T {
        try DefaultTransport.$current.withValue(DefaultTransport(provider: harness, scheduler: scheduler)) { try body() }
    }

    /// Runs the simulation until idle; queue-rule violations and illegal transitions fail the test.
    func run() throws {
        try scheduler.runUntilIdle()
        #expect(scheduler.violations.isEmpty, "\(scheduler.violations)")
        let illegal = network.illegalTransitions + harness.illegalTransitions
        #expect(illegal.isEmpty, "illegal lifecycle transitions: \(illegal)")
    }

    /// Names of the jobs (and recorded events) in the trace, in order.
    var steps: [String] {
        scheduler.trace.map { step in
            switch step.event {
            case "run": step.payload
            case "sync": "sync \(step.queue)"
            default: "\(step.event) \(step.payload)"
            }
        }
    }
}

/// Thread-safe storage for what tests capture in closures.
final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func mutate(_ body: (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }
}

/// Records every hook as `hook target`, marks prepared requests with `X-Prepared`, and (optionally)
/// rewrites results in `process`.
struct RecordingPlugin: PluginType {
    let name: String
    let log: Box<[String]>
    var scheduler: (any Scheduler)? = nil
    var rewrite: (@Sendable (Result<Response, ProviderError>) -> Result<Response, ProviderError>)? = nil

    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        var request = request
        request.setValue((request.value(forHTTPHeaderField: "X-Prepared").map { $0 + "," } ?? "") + name, forHTTPHeaderField: "X-Prepared")
        log.mutate { $0.append("\(name).prepare \(target)") }
        return request
    }

    func willSend(_ request: any RequestType, target: any TargetType) {
        let prepared = request.request?.value(forHTTPHeaderField: "X-Prepared") ?? "-"
        log.mutate { $0.append("\(name).willSend \(target) prepared=\(prepared)") }
    }

    func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) {
        log.mutate { $0.append("\(name).didReceive \(target) \(describe(result))") }
    }

    func process(_ result: Result<Response, ProviderError>, target: any TargetType) -> Result<Response, ProviderError> {
        log.mutate { $0.append("\(name).process \(target) \(describe(result))") }
        return rewrite?(result) ?? result
    }
}

/// `200`, `cancelled`, `error 404`, `error` — a result in a word or two.
func describe(_ result: Result<Response, ProviderError>) -> String {
    switch result {
    case let .success(response): "\(response.statusCode)"
    case let .failure(error) where error.isExplicitlyCancelled: "cancelled"
    case let .failure(error): error.response.map { "error \($0.statusCode)" } ?? "error"
    }
}

func seconds(_ value: Double) -> VirtualInstant {
    VirtualInstant.zero.advanced(by: .seconds(rounding: value))
}

/// A swift-log handler keeping messages in memory.
struct MemoryLogHandler: LogHandler {
    let messages: Box<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.mutate { $0.append("\(event.level) \(event.message)") }
    }
}
