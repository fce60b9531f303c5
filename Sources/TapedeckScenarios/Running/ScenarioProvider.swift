import Foundation
import Logging
import Synchronization
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The scenario's provider (the file's `client.provider`): a `MoyaProvider<StubbedTarget>` over
/// the run's session, built as a Moya user builds one by hand — the file's plugins in order, then
/// the runner's own (it tags each attempt with its request's name, as `request:` steps are tagged,
/// and cancels at an attempt when the script says so).
final class ScenarioProvider: Sendable {
    let provider: MoyaProvider<StubbedTarget>
    let setup: ProviderSetup
    private let clientHeaders: [Header]
    private let attempts: AttemptWatcher
    /// With `trackInflights`: the name of the request that opened each endpoint's flight (the
    /// name its attempts are tagged with), so that a caller that joins it knows whose attempts
    /// and backoffs it waits through.
    private let flightOwners = Mutex<[Endpoint: String]>([:])

    init(setup: ProviderSetup, session: Session, scheduler: SimulatedScheduler, clientHeaders: [Header]) {
        self.setup = setup
        self.clientHeaders = clientHeaders
        attempts = AttemptWatcher()
        var plugins: [any PluginType] = setup.plugins.map { plugin -> any PluginType in
            switch plugin {
            case let .accessToken(token):
                return AccessTokenPlugin(token: token)
            case .activity:
                return NetworkActivityPlugin { change, target in scheduler.record("provider.activity", "\(change) \(target)") }
            case .logger:
                return NetworkLoggerPlugin(logger: Logger(label: "tapedeck.scenario") { _ in TraceLogHandler(scheduler: scheduler) })
            }
        }
        plugins.append(RunnerPlugin(attempts: attempts))
        provider = MoyaProvider<StubbedTarget>(session: session, plugins: plugins, trackInflights: setup.trackInflights)
    }

    /// The target a scripted request sends: its step's target, named after the request.
    func target(for scripted: ScriptRequest) -> StubbedTarget {
        let target = setup.target(named: scripted.step.target ?? "")!
        var headers: [String: String] = [:]
        for header in clientHeaders + target.headers { headers[header.name] = header.value }
        let url = scripted.step.url
        return StubbedTarget(
            name: scripted.name, baseURL: target.baseURL ?? setup.baseURL!, path: target.path, method: HTTPMethod(rawValue: target.method),
            task: Self.task(target.task), headers: headers.isEmpty ? nil : headers, sample: Self.sample(target.sample, url: url),
            validationType: Self.validation(target.validation), stubBehavior: Self.behavior(target.stub ?? setup.stub),
            authorizationType: target.auth.map(Self.authorization))
    }

    /// A caller the script sent: its token, and the name of the request whose flight it waits
    /// for — its own, or (with `trackInflights`) the one whose flight it joined, whose attempts
    /// and backoffs are then the ones it waits through.
    struct SentCaller {
        let token: CancellableToken
        let flight: String
    }

    /// Sends the scripted request.
    func send(_ scripted: ScriptRequest, completion: @escaping @Sendable (Result<Response, ProviderError>) -> Void) -> SentCaller {
        let target = target(for: scripted)
        let endpoint = setup.trackInflights ? provider.endpoint(target) : nil
        let waiting = endpoint.flatMap { provider.inflightRequests[$0] }
        // The scheduler-queue form hands back the concrete token (Moya's form returns `any Cancellable`).
        let token = provider.request(target, callbackQueue: provider.session.defaultResponseQueue, completion: completion)
        var flight = scripted.name
        if let endpoint {
            // One more caller waiting for a flight that was there: it joined that flight.
            let joined = waiting.map { provider.inflightRequests[endpoint] == $0 + 1 } ?? false
            flight = flightOwners.withLock { owners in
                if joined, let owner = owners[endpoint] { return owner }
                owners[endpoint] = scripted.name
                return scripted.name
            }
        }
        return SentCaller(token: token, flight: flight)
    }

    /// Runs `cancel` (a caller's cancel) as each of `attempts` of the flight named `flight` starts.
    func cancel(atAttempts attempts: [Int], of flight: String, _ cancel: @escaping @Sendable () -> Void) {
        self.attempts.watch(flight: flight, attempts: attempts, cancel: cancel)
    }

    // MARK: file values as provider values

    static func task(_ task: TaskSetup) -> TargetTask {
        switch task {
        case .plain: .requestPlain
        case let .data(data): .requestData(data)
        case let .query(text): .requestParameters(parameters: parameters(text), encoding: .queryString)
        case let .form(text): .requestParameters(parameters: parameters(text), encoding: .httpBody)
        case let .json(text): .requestParameters(parameters: parameters(text), encoding: .json)
        }
    }

    /// A JSON object's text as the provider's parameters (strings, numbers, booleans, null, lists
    /// and objects of those).
    static func parameters(_ text: Data) -> [String: any Sendable] {
        guard let value = try? JSONDecoder().decode(ParameterJSON.self, from: text), case let .object(object) = value else { return [:] }
        return object.mapValues(\.sendable)
    }

    static func sample(_ response: StubResponse, url: URL) -> EndpointSampleResponse {
        // With a description, as the network's own failures have one ("tapedeck: timed out"), so an
        // outcome's why line names the failure rather than printing an empty NSError.
        if let failure = response.failure { return .networkError(TransportFailure.urlError(urlErrorCode(failure)).urlError(for: url)) }
        guard !response.headers.isEmpty else { return .networkResponse(response.status, response.body) }
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name] = header.value }
        let http = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields)!
        return .response(http, response.body)
    }

    static func validation(_ validation: TargetValidation) -> ValidationType {
        switch validation {
        case .none: .none
        case .successCodes: .successCodes
        case .successAndRedirectCodes: .successAndRedirectCodes
        case let .codes(codes): .customCodes(codes)
        }
    }

    static func behavior(_ mode: StubMode) -> StubBehavior {
        switch mode {
        case .never: .never
        case .immediate: .immediate
        case let .delayed(delay): .delayed(seconds: delay.timeInterval)
        }
    }

    static func authorization(_ scheme: String) -> AuthorizationType {
        switch scheme {
        case "Bearer": .bearer
        case "Basic": .basic
        default: .custom(scheme)
        }
    }

    /// A provider result as what the outcome records: status, the client's error, body.
    static func recorded(_ result: Result<Response, ProviderError>) -> (status: Int?, error: ClientError?, body: Data?) {
        switch result {
        case let .success(response):
            return (response.statusCode, nil, response.data)
        case let .failure(error):
            let response = error.response
            let underlying: ClientError
            switch error {
            case let .underlying(cause as ClientError, _): underlying = cause
            case let .underlying(cause, _): underlying = .sessionTaskFailed(error: cause)
            default: underlying = .createURLRequestFailed(error: error)
            }
            return (response?.statusCode, underlying, response?.data)
        }
    }
}

/// The runner's plugin, last in the list: tags each attempt with its request's name (the target's
/// name) and tells the attempt watcher that an attempt starts.
private struct RunnerPlugin: PluginType {
    let attempts: AttemptWatcher

    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        guard let name = (target as? StubbedTarget)?.name else { return request }
        var tagged = request
        tagged.setValue(name, forHTTPHeaderField: Harness.tagHeader)
        return tagged
    }

    func willSend(_ request: any RequestType, target: any TargetType) {
        guard let name = (target as? StubbedTarget)?.name else { return }
        attempts.started(name)
    }
}

/// Counts each provider flight's attempts (its `willSend` calls, by the name its attempts are
/// tagged with) and cancels the callers the script cancels at an attempt of the flight they wait
/// for, as that attempt starts (before its task exists): the request's own caller, and callers
/// that joined its flight.
final class AttemptWatcher: Sendable {
    private struct Watch {
        let flight: String
        let attempts: [Int]
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var watches: [Watch] = []
        var started: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func watch(flight: String, attempts: [Int], cancel: @escaping @Sendable () -> Void) {
        state.withLock { $0.watches.append(Watch(flight: flight, attempts: attempts, cancel: cancel)) }
    }

    func started(_ flight: String) {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            state.started[flight, default: 0] += 1
            let attempt = state.started[flight]!
            return state.watches.filter { $0.flight == flight && $0.attempts.contains(attempt) }.map(\.cancel)
        }
        for cancel in cancels { cancel() }
    }
}

/// swift-log lines of the logger plugin, written as trace steps (so they count in the trace hash
/// and show in `--trace`), never to the terminal.
private struct TraceLogHandler: LogHandler {
    let scheduler: SimulatedScheduler
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        scheduler.record("provider.log", "\(event.level): \(event.message)")
    }
}

/// JSON parameters read back into Swift values.
private enum ParameterJSON: Decodable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([ParameterJSON]), object([String: ParameterJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ParameterJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ParameterJSON].self))
        }
    }

    var sendable: any Sendable {
        switch self {
        case .null: NSNull()
        case let .bool(value): value
        case let .int(value): value
        case let .double(value): value
        case let .string(value): value
        case let .array(values): values.map(\.sendable)
        case let .object(values): values.mapValues(\.sendable)
        }
    }
}

extension ProviderSetup {
    /// The URL a target's request goes to: its base URL and path, and for a `query` task the
    /// parameters as the provider encodes them (what outcomes and reports show).
    func url(of target: TargetSetup) -> URL {
        let base = target.baseURL ?? baseURL!
        let url = target.path.isEmpty ? base : base.appendingPathComponent(target.path)
        guard case let .query(text) = target.task,
              // The encoding the target's task uses (ScenarioProvider.task), so the URL shown is the one sent.
              let encoded = try? TargetTask.Encoding.queryString.encode(URLRequest(url: url), with: ScenarioProvider.parameters(text)).url else {
            return url
        }
        return encoded
    }
}
