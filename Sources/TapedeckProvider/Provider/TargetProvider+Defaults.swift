public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension TargetProvider {
    /// The endpoint Moya makes by default: the target's URL (`URL(target:)`),
    /// method, task and header fields, with the target's ``TargetType/sampleResponse``.
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        Endpoint(url: URL(target: target).absoluteString, sampleResponseClosure: { target.sampleResponse },
                 method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    /// Builds the endpoint's URLRequest (``Endpoint/urlRequest()``) and hands it, or the
    /// ``ProviderError`` that stopped it, to `closure` at once.
    public static func defaultRequestMapping(for endpoint: Endpoint, closure: RequestResultClosure) {
        do throws(ProviderError) {
            closure(.success(try endpoint.urlRequest()))
        } catch {
            closure(.failure(error))
        }
    }

    /// Never stubs (the stub closure's default).
    public static func neverStub(_: Target) -> StubBehavior { .never }

    /// Stubs every target at once.
    public static func immediatelyStub(_: Target) -> StubBehavior { .immediate }

    /// Stubs every target after `seconds` of the scheduler's clock.
    public static func delayedStub(_ seconds: TimeInterval) -> StubClosure {
        { _ in .delayed(seconds: seconds) }
    }
}
