public import TapedeckScheduling
#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

// Alamofire's way of making a Session — no provider, no scheduler — and its default session `AF`.
// The URLSession and the scheduler come from `DefaultTransport.resolved`: live by default, the
// tape's inside a cassette test.

extension Session {
    /// A Session with Alamofire's convenience initialiser's parameters: its URLSession and scheduler
    /// come from ``DefaultTransport/resolved`` — a real URLSession on a `LiveScheduler`, or, inside
    /// a test bound to a cassette, the tape's harness on its virtual clock.
    ///
    /// ```swift
    /// let session = Session(configuration: .af.default, interceptor: BearerTokenInterceptor(store: store))
    /// ```
    ///
    /// `rootQueue`, when given, must be a queue of that transport's scheduler (it is wrapped as in
    /// Alamofire). Unlike Alamofire, monitors default to none and handlers to the rootQueue
    /// (docs/client.md).
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionConfiguration.af.default,
        delegate: SessionDelegate = SessionDelegate(),
        rootQueue: (any SchedulerQueue)? = nil,
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
        requestQueue: (any SchedulerQueue)? = nil,
        serializationQueue: (any SchedulerQueue)? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: (any RedirectHandler)? = nil,
        cachedResponseHandler: (any CachedResponseHandler)? = nil,
        eventMonitors: [any EventMonitor] = []
    ) {
        let transport = DefaultTransport.resolved
        let (urlSession, root) = transport.makeURLSession(configuration: configuration, delegate: delegate, rootQueue: rootQueue)
        self.init(
            session: urlSession, delegate: delegate, scheduler: transport.scheduler, rootQueue: root, profile: transport.profile,
            provider: transport.provider, startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup,
            requestQueue: requestQueue, serializationQueue: serializationQueue, interceptor: interceptor,
            serverTrustManager: serverTrustManager, redirectHandler: redirectHandler, cachedResponseHandler: cachedResponseHandler,
            eventMonitors: eventMonitors)
        state.write { $0.drive = transport.drive }
    }

    /// The shared Session of the resolved transport (made with `Session()` on first use): a live
    /// one, or, inside a cassette test, the tape's. `AF` is this session.
    public static var `default`: Session { DefaultTransport.resolved.defaultSession }

    /// Modifies a URLRequest while it is built (Alamofire's `Session.RequestModifier`).
    public typealias RequestModifier = TapedeckClient.RequestModifier

    /// Cancels every running request, then calls `completion` on `queue` (Alamofire's spelling of
    /// ``cancelAllRequests(completingOn:completion:)``).
    @preconcurrency
    public func cancelAllRequests(completingOnQueue queue: any SchedulerQueue, completion: (@Sendable () -> Void)? = nil) {
        cancelAllRequests(completingOn: queue, completion: completion)
    }
}

/// The default Session, as in Alamofire: `AF.request("https://…")`. It is ``Session/default``, so
/// inside a test bound to a cassette it is the tape's session.
public var AF: Session { Session.default }
