public import Foundation
import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A credential that knows when it must be refreshed before use.
public protocol AuthenticationCredential: Sendable {
    /// True when the credential must be refreshed before it is used again (it expires soon).
    var requiresRefresh: Bool { get }
}

/// Applies and refreshes credentials for an ``AuthenticationInterceptor``.
public protocol Authenticator: AnyObject, Sendable {
    /// The credential this authenticator applies and refreshes.
    associatedtype Credential: AuthenticationCredential

    /// Adds `credential` to the request (an `Authorization` header, typically).
    func apply(_ credential: Credential, to urlRequest: inout URLRequest)
    /// Called on the interceptor's own queue; the completion may come from any thread, at any time.
    func refresh(_ credential: Credential, for session: Session, completion: @escaping @Sendable (Result<Credential, any Error>) -> Void)
    /// Was this failure an authentication failure (typically a 401 from the auth layer)?
    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool
    /// Was this request sent with this credential? (False: a refresh happened while it was in flight.)
    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Credential) -> Bool
}

/// Why authentication could not proceed; always delivered wrapped (`requestAdaptationFailed` on the
/// adapt path, `requestRetryFailed` on the retry path).
public enum AuthenticationError: Error, Equatable, Sendable {
    /// No credential was set.
    case missingCredential
    /// More refreshes than the refresh window allows.
    case excessiveRefresh
}

/// Adds credentials to requests and refreshes them once for everyone (Alamofire 5.12's state
/// machine: idle / refreshing / failed, plus a credential version).
///
/// - A credential that requires refresh triggers one proactive refresh; adapts arriving while it runs
///   wait and are replayed through this interceptor when it succeeds.
/// - Authentication failures (per the authenticator) of requests sent with the current credential
///   trigger one refresh; every such request is retried after it, once.
/// - A refresh window (default 30 s, 5 attempts) stops refresh loops with `excessiveRefresh`. Its
///   timestamps come from the Session's scheduler, so under simulation it is virtual time.
///
/// ```swift
/// let interceptor = AuthenticationInterceptor(authenticator: OAuthAuthenticator(), credential: stored)
/// session.request("http://api.test/inbox", interceptor: interceptor).validate().responseData { response in
///     // one refresh for every request that got a 401 with the old token, then each retried once
/// }
/// ```
public final class AuthenticationInterceptor<AuthenticatorType: Authenticator>: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: mutable state is in `mutableState` (a lock).

    /// The authenticator's credential type.
    public typealias Credential = AuthenticatorType.Credential

    /// How many refreshes are allowed within how long, before the interceptor gives up.
    public struct RefreshWindow: Sendable {
        /// The window's length, in seconds of the scheduler's clock.
        public let interval: TimeInterval
        /// Refreshes allowed within the window.
        public let maximumAttempts: Int

        /// A window of `maximumAttempts` refreshes per `interval` seconds.
        public init(interval: TimeInterval = 30, maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    private struct AdaptOperation {
        let urlRequest: URLRequest
        let session: Session
        let completion: @Sendable (Result<URLRequest, any Error>) -> Void
    }

    private enum RefreshState {
        case idle
        case refreshing
        case failed(any Error)
    }

    private enum AdaptDecision {
        case apply(Credential)
        case fail(any Error)
        case deferred
    }

    private struct MutableState {
        var credential: Credential?
        var credentialVersion = 0
        var refreshState = RefreshState.idle
        var refreshTimestamps: [VirtualInstant] = []
        var refreshWindow: RefreshWindow?
        var adaptOperations: [AdaptOperation] = []
        var requestsToRetry: [@Sendable (RetryResult) -> Void] = []
        var queue: (any SchedulerQueue)?

        var isRefreshing: Bool {
            if case .refreshing = refreshState { return true }
            return false
        }
    }

    /// Applies and refreshes the credential.
    public let authenticator: AuthenticatorType
    private let mutableState: Protected<MutableState>

    /// The credential; setting it counts as a refresh (the version moves on, a failed state resets).
    public var credential: Credential? {
        get { mutableState.read { $0.credential } }
        set {
            mutableState.write { state in
                state.credential = newValue
                state.credentialVersion += 1
                state.refreshState = .idle
            }
        }
    }

    /// An interceptor for `authenticator`, starting with `credential`; `refreshWindow` nil allows any
    /// number of refreshes.
    public init(authenticator: AuthenticatorType, credential: Credential? = nil, refreshWindow: RefreshWindow? = RefreshWindow()) {
        self.authenticator = authenticator
        var state = MutableState()
        state.credential = credential
        state.refreshWindow = refreshWindow
        mutableState = Protected(state)
    }

    /// The interceptor's own serial queue (made on the first session's scheduler): refreshes,
    /// replayed adapts and released retries run here, never on the caller's stack.
    private func queue(for session: Session, in state: inout MutableState) -> any SchedulerQueue {
        if let queue = state.queue { return queue }
        let queue = session.scheduler.makeQueue(label: "org.tapedeck.authentication.inspector", target: nil)
        state.queue = queue
        return queue
    }

    // MARK: adapt

    /// Applies the credential; when it needs a refresh (or a proactive refresh is running), waits for it
    /// first. Fails with ``AuthenticationError/missingCredential`` when there is none.
    @preconcurrency
    public func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        let decision = mutableState.write { state -> AdaptDecision in
            // A proactive refresh is running: wait for it.
            if state.isRefreshing && !state.adaptOperations.isEmpty {
                state.adaptOperations.append(AdaptOperation(urlRequest: urlRequest, session: session, completion: completion))
                return .deferred
            }
            guard let credential = state.credential else { return .fail(AuthenticationError.missingCredential) }
            if credential.requiresRefresh && !state.isRefreshing {
                state.adaptOperations.append(AdaptOperation(urlRequest: urlRequest, session: session, completion: completion))
                refresh(credential, for: session, in: &state)
                return .deferred
            }
            if case .failed = state.refreshState { state.refreshState = .idle }
            return .apply(credential)
        }
        switch decision {
        case let .apply(credential):
            var adapted = urlRequest
            authenticator.apply(credential, to: &adapted)
            completion(.success(adapted))
        case let .fail(error):
            completion(.failure(error))
        case .deferred:
            break
        }
    }

    // MARK: retry

    /// Retries a request that failed authentication: after a refresh when it was sent with the
    /// current credential, at once when the credential changed meanwhile; anything else is not retried.
    @preconcurrency
    public func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        // Transport failures are not authentication failures.
        guard let urlRequest = request.request, let response = request.response else {
            completion(.doNotRetry)
            return
        }
        guard authenticator.didRequest(urlRequest, with: response, failDueToAuthenticationError: error) else {
            completion(.doNotRetry)
            return
        }
        guard let (credential, version) = mutableState.read({ state in state.credential.map { ($0, state.credentialVersion) } }) else {
            completion(.doNotRetryWithError(AuthenticationError.missingCredential))
            return
        }
        guard authenticator.isRequest(urlRequest, authenticatedWith: credential) else {
            completion(.retry)   // already refreshed while this request was in flight
            return
        }
        let immediate = mutableState.write { state -> RetryResult? in
            if state.credentialVersion != version { return .retry }
            switch state.refreshState {
            case let .failed(error):
                return .doNotRetryWithError(error)
            case .refreshing:
                state.requestsToRetry.append(completion)
            case .idle:
                state.requestsToRetry.append(completion)
                refresh(credential, for: session, in: &state)
            }
            return nil
        }
        if let immediate { completion(immediate) }
    }

    // MARK: refresh

    /// Starts a refresh on the interceptor's queue, unless the refresh window is exhausted.
    private func refresh(_ credential: Credential, for session: Session, in state: inout MutableState) {
        let queue = queue(for: session, in: &state)
        let now = queue.now
        if let window = state.refreshWindow {
            let since = now.advanced(by: .seconds(rounding: -window.interval))
            let recent = state.refreshTimestamps.count { $0 >= since && $0 <= now }
            if recent >= window.maximumAttempts {
                state.refreshState = .failed(AuthenticationError.excessiveRefresh)
                queue.async(named: "auth.excessiveRefresh") { self.handleRefreshResult(.failure(AuthenticationError.excessiveRefresh)) }
                return
            }
        }
        state.refreshTimestamps.append(now)
        state.refreshState = .refreshing
        queue.async(named: "auth.refresh") {
            self.authenticator.refresh(credential, for: session) { result in
                queue.async(named: "auth.refreshed") { self.handleRefreshResult(result) }
            }
        }
    }

    private func handleRefreshResult(_ result: Result<Credential, any Error>) {
        let (adapts, retries) = mutableState.write { state -> ([AdaptOperation], [@Sendable (RetryResult) -> Void]) in
            defer {
                state.adaptOperations.removeAll()
                state.requestsToRetry.removeAll()
            }
            switch result {
            case let .success(credential):
                state.credential = credential
                state.credentialVersion += 1
                state.refreshState = .idle
            case let .failure(error):
                state.refreshState = .failed(error)
            }
            return (state.adaptOperations, state.requestsToRetry)
        }
        switch result {
        case .success:
            // Replayed through this interceptor only, not the whole chain (as in Alamofire).
            adapts.forEach { adapt($0.urlRequest, for: $0.session, completion: $0.completion) }
            retries.forEach { $0(.retry) }
        case let .failure(error):
            adapts.forEach { $0.completion(.failure(error)) }
            retries.forEach { $0(.doNotRetryWithError(error)) }
        }
    }
}
