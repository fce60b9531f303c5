public import Foundation
public import TapedeckClient
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension MoyaProvider {
    /// The endpoint Moya makes by default: the target's URL (`URL(target:)`),
    /// method, task and header fields, with the target's ``TargetType/sampleResponse``.
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        Endpoint(url: URL(target: target).absoluteString, sampleResponseClosure: { target.sampleResponse },
                 method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    /// Builds the endpoint's URLRequest (``Endpoint/urlRequest()``) and hands it, or the
    /// ``ProviderError`` that stopped it, to `closure` at once. (Moya wraps every error but
    /// `requestMapping` and `parameterEncoding` in `.underlying(error, nil)`; here an
    /// `encodableMapping` error arrives as itself.)
    @preconcurrency
    public static func defaultRequestMapping(for endpoint: Endpoint, closure: RequestResultClosure) {
        do {
            closure(.success(try endpoint.urlRequest()))
        } catch {
            closure(.failure(error as? ProviderError ?? .underlying(error, nil)))
        }
    }

    /// The session a provider made without one sends through, made as Moya makes it: Alamofire's
    /// default configuration and header fields, requests started by the provider (not by the
    /// session). Its URLSession and scheduler come from TapedeckClient's `DefaultTransport.resolved`,
    /// as for any `Session()`: a real URLSession on a `LiveScheduler` — or, while a test is bound to
    /// a tape (TapedeckTesting's `.cassette` trait), the tape's simulated network on its virtual
    /// clock. A new session each time, decided when it is made: a provider made outside the test
    /// (a global, say) keeps the transport it found then.
    ///
    /// ```swift
    /// let provider = MoyaProvider<GitHub>(session: MoyaProvider<GitHub>.defaultAlamofireSession(), plugins: plugins)
    /// ```
    public static func defaultAlamofireSession() -> Session {
        Session(configuration: URLSessionConfiguration.af.default, startRequestsImmediately: false)
    }

    /// Never stubs (the stub closure's default): `stubClosure: MoyaProvider.neverStub`, or called,
    /// `MoyaProvider.neverStub(target)`. A closure rather than Moya's class function, so that
    /// passing it is not a "non-Sendable function value" to the Swift 5 language mode.
    public static var neverStub: StubClosure { { _ in .never } }

    /// Stubs every target at once: `stubClosure: MoyaProvider.immediatelyStub` (a closure, as ``neverStub``).
    public static var immediatelyStub: StubClosure { { _ in .immediate } }

    /// Stubs every target after `seconds` of the scheduler's clock.
    public static func delayedStub(_ seconds: TimeInterval) -> StubClosure {
        { _ in .delayed(seconds: seconds) }
    }
}
