public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What an adapter learns about the request it adapts.
public struct RequestAdapterState: Sendable {
    /// The request's identifier (deterministic: derived from the session and the request's number).
    public let requestID: UUID
    /// The session sending the request.
    public let session: Session
}

/// Changes a URLRequest before it is sent (headers, tokens, ...). Called on the requestQueue; the
/// completion may be called on any thread, at any time.
public protocol RequestAdapter: Sendable {
    /// Calls `completion` with the adapted request, or with the error that fails the request
    /// (wrapped in ``ClientError/requestAdaptationFailed(error:)``).
    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void)
    /// The entry point the Session calls; by default it forwards to the session-based one.
    func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void)
}

extension RequestAdapter {
    /// Forwards to ``adapt(_:for:completion:)`` with the state's session.
    @preconcurrency
    public func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        adapt(urlRequest, for: state.session, completion: completion)
    }
}

/// What a retrier answers.
public enum RetryResult: Sendable {
    /// Try again at once.
    case retry
    /// Try again after this many seconds (of the scheduler's clock).
    case retryWithDelay(TimeInterval)
    /// Do not try again; the request fails with its error.
    case doNotRetry
    /// Do not try again; the request fails with this error (in ``ClientError/requestRetryFailed(retryError:originalError:)``).
    case doNotRetryWithError(any Error)

    var retryRequired: Bool {
        switch self {
        case .retry, .retryWithDelay: return true
        default: return false
        }
    }

    var delay: TimeInterval? {
        if case let .retryWithDelay(delay) = self { return delay }
        return nil
    }

    var error: (any Error)? {
        if case let .doNotRetryWithError(error) = self { return error }
        return nil
    }
}

/// Decides whether a failed request is tried again. Called on the rootQueue.
public protocol RequestRetrier: Sendable {
    /// Calls `completion` with the decision for `request`, which failed with `error`.
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void)
}

/// Both halves; by default adaptation passes the request through and retry answers `.doNotRetry`
/// (so any interceptor used as an adapter produces a `didAdaptInitialRequest` event, as in Alamofire).
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Passes the request through unchanged.
    @preconcurrency
    public func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(.success(urlRequest))
    }

    /// Answers `.doNotRetry`.
    @preconcurrency
    public func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(.doNotRetry)
    }
}

/// An adapter as a closure: the request, the session, and the completion to call.
public typealias AdaptHandler = @Sendable (URLRequest, Session, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void
/// A retrier as a closure: the request, the session, the error, and the completion to call.
public typealias RetryHandler = @Sendable (Request, Session, any Error, @escaping @Sendable (RetryResult) -> Void) -> Void

/// An adapter from a closure.
open class Adapter: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: the handler is an immutable Sendable closure; subclasses must stay immutable.
    let handler: AdaptHandler

    /// An adapter calling `handler`.
    @preconcurrency
    public init(_ handler: @escaping AdaptHandler) {
        self.handler = handler
    }

    /// Calls the closure.
    @preconcurrency
    open func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        handler(urlRequest, session, completion)
    }
}

/// A retrier from a closure.
open class Retrier: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: the handler is an immutable Sendable closure; subclasses must stay immutable.
    let handler: RetryHandler

    /// A retrier calling `handler`.
    @preconcurrency
    public init(_ handler: @escaping RetryHandler) {
        self.handler = handler
    }

    /// Calls the closure.
    @preconcurrency
    open func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        handler(request, session, error, completion)
    }
}

/// A chain of adapters and a chain of retriers.
///
/// Adapters run in order, each on the previous one's output; the first failure ends the chain.
/// Retriers run in order; `.retry`, `.retryWithDelay` and `.doNotRetryWithError` end the chain,
/// `.doNotRetry` moves on; an exhausted chain answers `.doNotRetry`.
open class Interceptor: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: the lists only grow through `append`, under `lock`; subclasses must keep
    // their own state safe.
    private let lock = NSLock()
    private var storedAdapters: [any RequestAdapter]
    private var storedRetriers: [any RequestRetrier]

    /// The adapters, in the order they run.
    public var adapters: [any RequestAdapter] { lock.withLock { storedAdapters } }
    /// The retriers, in the order they are asked.
    public var retriers: [any RequestRetrier] { lock.withLock { storedRetriers } }

    /// One closure adapter and one closure retrier.
    @preconcurrency
    public init(adaptHandler: @escaping AdaptHandler, retryHandler: @escaping RetryHandler) {
        storedAdapters = [Adapter(adaptHandler)]
        storedRetriers = [Retrier(retryHandler)]
    }

    /// One adapter and one retrier.
    public init(adapter: any RequestAdapter, retrier: any RequestRetrier) {
        storedAdapters = [adapter]
        storedRetriers = [retrier]
    }

    /// Each element of `interceptors` joins both chains, after the explicit adapters and retriers.
    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [], interceptors: [any RequestInterceptor] = []) {
        storedAdapters = adapters + interceptors.map { $0 as any RequestAdapter }
        storedRetriers = retriers + interceptors.map { $0 as any RequestRetrier }
    }

    func append(adapter: (any RequestAdapter)? = nil, retrier: (any RequestRetrier)? = nil) {
        lock.withLock {
            if let adapter { storedAdapters.append(adapter) }
            if let retrier { storedRetriers.append(retrier) }
        }
    }

    /// Runs the adapters in order, each on the previous one's output; the first failure ends it.
    @preconcurrency
    open func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        adapt(urlRequest, remaining: adapters[...], completion: completion) { adapter, request, next in
            adapter.adapt(request, for: session, completion: next)
        }
    }

    /// As ``adapt(_:for:completion:)``, handing each adapter the state.
    @preconcurrency
    open func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        adapt(urlRequest, remaining: adapters[...], completion: completion) { adapter, request, next in
            adapter.adapt(request, using: state, completion: next)
        }
    }

    private func adapt(
        _ urlRequest: URLRequest, remaining: ArraySlice<any RequestAdapter>,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void,
        call: @escaping @Sendable (any RequestAdapter, URLRequest, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void
    ) {
        guard let adapter = remaining.first else {
            completion(.success(urlRequest))
            return
        }
        let rest = remaining.dropFirst()
        call(adapter, urlRequest) { [self] result in
            switch result {
            case let .success(adapted): adapt(adapted, remaining: rest, completion: completion, call: call)
            case .failure: completion(result)
            }
        }
    }

    /// Asks the retriers in order until one answers something other than `.doNotRetry`.
    @preconcurrency
    open func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        retry(request, for: session, dueTo: error, remaining: retriers[...], completion: completion)
    }

    private func retry(
        _ request: Request, for session: Session, dueTo error: any Error, remaining: ArraySlice<any RequestRetrier>,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        guard let retrier = remaining.first else {
            completion(.doNotRetry)
            return
        }
        let rest = remaining.dropFirst()
        retrier.retry(request, for: session, dueTo: error) { [self] result in
            if case .doNotRetry = result {
                retry(request, for: session, dueTo: error, remaining: rest, completion: completion)
            } else {
                completion(result)
            }
        }
    }
}

extension RequestInterceptor where Self == Interceptor {
    /// An ``Interceptor`` with one closure adapter and one closure retrier.
    @preconcurrency
    public static func interceptor(adapter: @escaping AdaptHandler, retrier: @escaping RetryHandler) -> Interceptor {
        Interceptor(adaptHandler: adapter, retryHandler: retrier)
    }

    /// An ``Interceptor`` with one adapter and one retrier.
    public static func interceptor(adapter: any RequestAdapter, retrier: any RequestRetrier) -> Interceptor {
        Interceptor(adapter: adapter, retrier: retrier)
    }

    /// An ``Interceptor`` with these chains.
    public static func interceptor(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [], interceptors: [any RequestInterceptor] = []) -> Interceptor {
        Interceptor(adapters: adapters, retriers: retriers, interceptors: interceptors)
    }
}

extension RequestAdapter where Self == Adapter {
    /// An ``Adapter`` calling `handler`.
    @preconcurrency
    public static func adapter(using handler: @escaping AdaptHandler) -> Adapter { Adapter(handler) }
}

extension RequestRetrier where Self == Retrier {
    /// A ``Retrier`` calling `handler`.
    @preconcurrency
    public static func retrier(using handler: @escaping RetryHandler) -> Retrier { Retrier(handler) }
}
