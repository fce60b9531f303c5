import Foundation
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the Session a scenario's `client` section describes, exactly as a user would by hand:
/// `Session(provider: harness, scheduler: ...)` with a RetryPolicy, an AuthenticationInterceptor,
/// a redirect handler, timeouts and the queue layout.
enum ClientFactory {
    /// Copied for every session: corelibs' `.ephemeral` builds a URLCache each time it is read
    /// (4 % of a small scenario's run), which the harness then drops (`urlCache = nil`). A copy
    /// shares the prototype's cookie storage, so each session gets its run's own (the harness's).
    private static let prototype = URLSessionConfiguration.ephemeral

    /// The session; `recorder` hears why its retry policy gave a request up when the request's
    /// error will not say (a `Retry-After` past `retryAfterLimit`).
    static func session(for setup: ClientSetup, auth: AuthServer?, world: ScenarioWorld, recorder: RunRecorder? = nil) -> Session {
        let scheduler = world.scheduler
        let configuration = makeConfiguration(setup, world)
        var interceptors: [any RequestInterceptor] = []
        if setup.authenticates, let auth {
            let tokens = Session(provider: world.harness, configuration: makeConfiguration(setup, world), scheduler: scheduler,
                                 rootQueue: scheduler.makeSimulatedQueue(label: "scenario.tokens", target: nil))
            let credential = ScenarioCredential(token: auth.initialToken, expiresAt: VirtualInstant.zero.advanced(by: auth.lifetime), scheduler: scheduler)
            interceptors.append(AuthenticationInterceptor(authenticator: ScenarioAuthenticator(server: auth, session: tokens, scheduler: scheduler),
                                                          credential: credential))
        }
        if let retry = setup.retry {
            interceptors.append(retryPolicy(retry, recorder: recorder))
        }
        let rootQueue: SimulatedQueue? = setup.queues == .suppliedRoot ? scheduler.makeSimulatedQueue(label: "app.networking", target: nil) : nil
        let serializationQueue: SimulatedQueue? = setup.queues == .separateSerialization
            ? scheduler.makeSimulatedQueue(label: "app.serialization", target: nil) : nil
        return Session(
            provider: world.harness, configuration: configuration, scheduler: scheduler, rootQueue: rootQueue,
            requestSetup: setup.setup == .eager ? .eager : .lazy, serializationQueue: serializationQueue,
            interceptor: interceptors.isEmpty ? nil : Interceptor(interceptors: interceptors),
            redirectHandler: setup.followsRedirects ? nil : Redirector.doNotFollow,
            metricsGracePeriod: setup.metricsGracePeriod)
    }

    /// An ephemeral configuration with the client's timeouts and the run's own cookie storage
    /// (the harness's): a copy of the prototype shares the prototype's, and every run of the
    /// process would then send the cookies of the runs before it. The token endpoint's session
    /// gets one too, so a refresh times out as the client's requests do.
    private static func makeConfiguration(_ setup: ClientSetup, _ world: ScenarioWorld) -> URLSessionConfiguration {
        let configuration = prototype.copy() as! URLSessionConfiguration
        configuration.httpCookieStorage = world.harness.cookieStorage
        if let timeout = setup.requestTimeout { configuration.timeoutIntervalForRequest = timeout.timeInterval }
        if let timeout = setup.resourceTimeout { configuration.timeoutIntervalForResource = timeout.timeInterval }
        return configuration
    }

    static func retryPolicy(_ retry: RetrySetup, recorder: RunRecorder? = nil) -> RetryPolicy {
        ScenarioRetryPolicy(
            recorder: recorder,
            retryLimit: UInt(retry.limit), exponentialBackoffBase: UInt(retry.base), exponentialBackoffScale: retry.scale,
            retryableHTTPMethods: retry.methods.map { Set($0.map { HTTPMethod(rawValue: $0) }) } ?? RetryPolicy.defaultRetryableHTTPMethods,
            retryableHTTPStatusCodes: retry.statuses.map { set in Set((100...999).filter(set.contains)) } ?? RetryPolicy.defaultRetryableHTTPStatusCodes,
            retryableURLErrorCodes: retry.errorCodes.map { Set($0.map(urlErrorCode)) } ?? RetryPolicy.defaultRetryableURLErrorCodes,
            honoursRetryAfter: retry.honoursRetryAfter, retryAfterLimit: retry.retryAfterLimit.timeInterval)
    }
}

/// Alamofire's RetryPolicy, unchanged, which also tells the run's recorder when it gives a request
/// up because the response's `Retry-After` asks for longer than `retryAfterLimit`: the request
/// then ends with the response's own error (`validation after 503`), which does not say why it was
/// not retried.
final class ScenarioRetryPolicy: RetryPolicy, @unchecked Sendable {
    // @unchecked Sendable: as RetryPolicy; the recorder it adds is Sendable (Mutex-guarded).
    private let recorder: RunRecorder?

    init(recorder: RunRecorder?, retryLimit: UInt, exponentialBackoffBase: UInt, exponentialBackoffScale: Double,
         retryableHTTPMethods: Set<HTTPMethod>, retryableHTTPStatusCodes: Set<Int>, retryableURLErrorCodes: Set<URLError.Code>,
         honoursRetryAfter: Bool, retryAfterLimit: TimeInterval) {
        self.recorder = recorder
        super.init(retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase, exponentialBackoffScale: exponentialBackoffScale,
                   retryableHTTPMethods: retryableHTTPMethods, retryableHTTPStatusCodes: retryableHTTPStatusCodes,
                   retryableURLErrorCodes: retryableURLErrorCodes, honoursRetryAfter: honoursRetryAfter, retryAfterLimit: retryAfterLimit)
    }

    override func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        // The case RetryPolicy gives up on although the request could be retried.
        if let recorder, honoursRetryAfter, request.retryCount < retryLimit, shouldRetry(request: request, dueTo: error),
           let asked = request.response.flatMap(Self.retryAfter), asked > retryAfterLimit,
           let name = request.request?.value(forHTTPHeaderField: Harness.tagHeader) {
            let wait = asked.isFinite ? Duration.seconds(rounding: asked).compactText : "longer than any limit"
            recorder.notRetried(name, why: "its Retry-After asks for \(wait), longer than client.retry.retryAfterLimit "
                                + "(\(Duration.seconds(rounding: retryAfterLimit).compactText)), so it was not retried")
        }
        super.retry(request, for: session, dueTo: error, completion: completion)
    }
}

/// Adds the tag header that names a request to the simulated network (which removes it before
/// anything else sees the request): faults count attempts by it, records and timelines use it.
struct Tagger: RequestInterceptor {
    let name: String

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var tagged = urlRequest
        tagged.setValue(name, forHTTPHeaderField: Harness.tagHeader)
        completion(.success(tagged))
    }
}

/// A bearer token that needs refreshing once it expired (on the simulated clock).
struct ScenarioCredential: AuthenticationCredential {
    let token: String
    let expiresAt: VirtualInstant
    let scheduler: SimulatedScheduler

    var requiresRefresh: Bool { scheduler.now >= expiresAt }
}

/// Gets tokens from the scenario's token server through a session of its own (as apps do, so the
/// refresh does not go through the interceptor it serves).
final class ScenarioAuthenticator: Authenticator {
    typealias Credential = ScenarioCredential
    let server: AuthServer
    let session: Session
    let scheduler: SimulatedScheduler

    init(server: AuthServer, session: Session, scheduler: SimulatedScheduler) {
        self.server = server
        self.session = session
        self.scheduler = scheduler
    }

    func apply(_ credential: ScenarioCredential, to urlRequest: inout URLRequest) {
        urlRequest.setValue("Bearer \(credential.token)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: ScenarioCredential, for session: Session, completion: @escaping @Sendable (Result<ScenarioCredential, any Error>) -> Void) {
        guard let url = URL(string: server.token.url) else {
            completion(.failure(URLError(.badURL)))
            return
        }
        var request = URLRequest(url: url)
        request.httpMethod = server.token.method ?? "POST"
        let scheduler = scheduler
        self.session.request(request, interceptor: Tagger(name: "token")).validate().response { response in
            switch response.result {
            case let .success(data):
                struct Answer: Decodable {
                    let access_token: String
                    let expires_in: Double?
                }
                guard let data, let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
                    completion(.failure(URLError(.cannotParseResponse)))
                    return
                }
                let lifetime = Duration.seconds(rounding: answer.expires_in ?? 3_600)
                completion(.success(ScenarioCredential(token: answer.access_token, expiresAt: scheduler.now.advanced(by: lifetime), scheduler: scheduler)))
            case let .failure(error):
                completion(.failure(error))
            }
        }
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool {
        response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: ScenarioCredential) -> Bool {
        urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.token)"
    }
}

/// The URLError code for a number (unknown numbers become `.unknown`).
func urlErrorCode(_ raw: Int) -> URLError.Code {
    #if canImport(FoundationNetworking)
    URLError.Code(rawValue: raw) ?? .unknown
    #else
    URLError.Code(rawValue: raw)
    #endif
}
