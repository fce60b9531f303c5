#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// Decides whether a response is cached (Alamofire's `CachedResponseHandler`): asked when URLSession
/// offers a response to its cache, by the request's handler (`cacheResponse(using:)`) or else the
/// session's (`Session(cachedResponseHandler:)`).
///
/// Only a URLSession's own loader offers responses to the cache; the simulated, recorded and
/// replayed transports never do, so there the handler is not asked (docs/client.md).
public protocol CachedResponseHandler: Sendable {
    /// Calls `completion` with the response to cache (`response`, a changed one, or nil: none).
    func dataTask(_ task: URLSessionDataTask, willCacheResponse response: CachedURLResponse,
                  completion: @escaping @Sendable (CachedURLResponse?) -> Void)
}

/// A ``CachedResponseHandler`` that caches, does not cache, or changes what is cached.
///
/// ```swift
/// let session = Session(cachedResponseHandler: ResponseCacher.doNotCache)
/// session.request("https://api.example.com/feed").cacheResponse(using: .cache)
/// ```
public struct ResponseCacher: CachedResponseHandler {
    /// What the cacher does with a response.
    public enum Behavior: Sendable {
        /// Cache it as offered.
        case cache
        /// Cache nothing.
        case doNotCache
        /// Cache what the closure returns (nil: nothing).
        case modify(@Sendable (URLSessionDataTask, CachedURLResponse) -> CachedURLResponse?)
    }

    /// Caches every response as offered.
    public static let cache = ResponseCacher(behavior: .cache)
    /// Caches nothing.
    public static let doNotCache = ResponseCacher(behavior: .doNotCache)

    /// What it does.
    public let behavior: Behavior

    /// A cacher that does `behavior`.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// Answers as ``behavior`` says.
    public func dataTask(_ task: URLSessionDataTask, willCacheResponse response: CachedURLResponse,
                         completion: @escaping @Sendable (CachedURLResponse?) -> Void) {
        switch behavior {
        case .cache: completion(response)
        case .doNotCache: completion(nil)
        case let .modify(closure): completion(closure(task, response))
        }
    }
}

extension CachedResponseHandler where Self == ResponseCacher {
    /// Caches every response as offered.
    public static var cache: ResponseCacher { .cache }
    /// Caches nothing.
    public static var doNotCache: ResponseCacher { .doNotCache }

    /// Caches what `closure` returns for each offered response.
    public static func modify(using closure: @escaping @Sendable (URLSessionDataTask, CachedURLResponse) -> CachedURLResponse?) -> ResponseCacher {
        ResponseCacher(behavior: .modify(closure))
    }
}

/// Which server-trust evaluator answers for which host (Alamofire's `ServerTrustManager`, as it is
/// on Linux, where there is no trust API to evaluate with): kept by the session, never consulted.
/// The simulated, recorded and replayed transports present no server trust, and live transports
/// evaluate trust as URLSession does by default.
///
/// ```swift
/// let session = Session(serverTrustManager: ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: [:]))
/// ```
open class ServerTrustManager: @unchecked Sendable {
    // @unchecked Sendable: immutable (an open class, as Alamofire's).

    /// Whether every host must have an evaluator.
    public let allHostsMustBeEvaluated: Bool
    /// The evaluators, by host.
    public let evaluators: [String: any ServerTrustEvaluating]

    /// A manager with `evaluators` by host.
    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
    }

    /// The evaluator for `host` (a subclass may choose otherwise: wildcard hosts, itself), nil for
    /// a host with none. Here only the app's own code asks (no transport consults the manager), so
    /// a missing evaluator is nil even when ``allHostsMustBeEvaluated`` — Alamofire on Apple
    /// platforms throws `serverTrustEvaluationFailed(.noRequiredEvaluator)`, which has no trust to
    /// fail here; an override may throw what it likes.
    open func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        evaluators[host]
    }
}

/// Evaluates a host's server trust (Alamofire's `ServerTrustEvaluating`, as on Linux: no
/// requirement, there being no trust API to evaluate with).
public protocol ServerTrustEvaluating: Sendable {}

extension Request {
    /// Sets the handler asked whether this request's response is cached (instead of the
    /// session's; see ``CachedResponseHandler`` for when it is asked).
    @discardableResult
    public func cacheResponse(using handler: any CachedResponseHandler) -> Self {
        mutableState.write { $0.cachedResponseHandler = handler }
        return self
    }

    /// The handler set by ``cacheResponse(using:)``.
    var cachedResponseHandler: (any CachedResponseHandler)? { mutableState.read { $0.cachedResponseHandler } }
}
