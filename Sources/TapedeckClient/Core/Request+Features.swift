import Foundation

// Per-request features: interceptors, event monitors, a redirect policy, automatic resumption.

extension Request {
    /// Adds an interceptor after the ones added before (all after the session's).
    @discardableResult
    public func interceptor(_ interceptor: any RequestInterceptor) -> Self {
        mutableState.write { state in
            if let existing = state.interceptor {
                existing.append(adapter: interceptor, retrier: interceptor)
            } else {
                state.interceptor = Interceptor(interceptors: [interceptor])
            }
        }
        return self
    }

    @discardableResult
    /// Adds an adapter after the ones added before (all after the session's interceptor).
    public func adapt(using adapter: any RequestAdapter) -> Self {
        mutableState.write { state in
            if let existing = state.interceptor { existing.append(adapter: adapter) } else { state.interceptor = Interceptor(adapters: [adapter]) }
        }
        return self
    }

    @discardableResult
    /// Adds a retrier after the ones added before (all after the session's interceptor).
    public func retry(using retrier: any RequestRetrier) -> Self {
        mutableState.write { state in
            if let existing = state.interceptor { existing.append(retrier: retrier) } else { state.interceptor = Interceptor(retriers: [retrier]) }
        }
        return self
    }

    /// Adds a monitor for this request's request-level events (after the session's monitors).
    @discardableResult
    public func eventMonitor(_ monitor: any EventMonitor) -> Self {
        mutableState.write { state in
            state.addedMonitors.append(monitor)
            state.eventMonitor = CompositeEventMonitor(monitors: sessionMonitor.monitors + state.addedMonitors, defaultQueue: underlyingQueue)
        }
        return self
    }

    /// Sets this request's redirect policy (instead of the session's).
    @discardableResult
    public func redirect(using handler: any RedirectHandler) -> Self {
        mutableState.write { $0.redirectHandler = handler }
        return self
    }

    /// Answers the server's HTTP authentication challenges (Basic, Digest) with `username` and
    /// `password`, as Alamofire's `authenticate(username:password:persistence:)` does. A
    /// challenge comes only from a live transport (a cassette or the simulated network never
    /// challenges; a recorded 401 is replayed as the 401 it was).
    ///
    /// ```swift
    /// session.request("https://api.example/private").authenticate(username: "ada", password: "s3cret").responseData { _ in }
    /// ```
    @discardableResult
    public func authenticate(username: String, password: String, persistence: URLCredential.Persistence = .forSession) -> Self {
        authenticate(with: URLCredential(user: username, password: password, persistence: persistence))
    }

    /// Answers HTTP authentication challenges with `credential` (see
    /// ``authenticate(username:password:persistence:)``).
    @discardableResult
    public func authenticate(with credential: URLCredential) -> Self {
        mutableState.write { $0.credential = credential }
        return self
    }

    /// The credential given with ``authenticate(with:)``, if any.
    public var credential: URLCredential? { mutableState.read { $0.credential } }

    /// Whether appending a response handler resumes the request (nil: the session decides).
    @discardableResult
    public func shouldAutomaticallyResume(_ value: Bool?) -> Self {
        mutableState.write { $0.shouldAutomaticallyResume = value }
        return self
    }
}
