public import TapedeckHTTP
public import TapedeckScheduling
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a Session made without a provider gets its URLSession and its scheduler: what
/// Alamofire-style `Session()`, `Session(configuration:interceptor:)`, `Session.default` and `AF`
/// use.
///
/// By default that is ``live`` (a real URLSession on a shared `LiveScheduler`). A test installs
/// another one for the code it runs with ``current`` (a task-local value, so tests running in
/// parallel each see their own): inside a test with the `.cassette` trait, TapedeckTesting installs
/// the tape's, so user code that builds its own `Session()` — or uses `AF` — talks to the cassette
/// on the tape's virtual clock.
///
/// ```swift
/// let transport = DefaultTransport(provider: harness, scheduler: scheduler, drive: { try scheduler.runUntilIdle() })
/// try await DefaultTransport.$current.withValue(transport) {
///     let items = try await AF.request("http://api.test/items").serializingDecodable([Item].self).value
/// }
/// ```
///
/// `drive`, when given, runs the simulation: a ``DataTask`` of a session made from this transport
/// calls it when awaited, so async user code gets its answer without the test driving by hand.
public final class DefaultTransport: Sendable {
    /// The transport installed for the current task (nil: ``live``).
    @TaskLocal public static var current: DefaultTransport?

    /// Real URLSessions (`LiveURLSessionProvider`) on one shared `LiveScheduler`.
    public static let live = DefaultTransport(provider: LiveURLSessionProvider(), scheduler: LiveScheduler())

    /// ``current``, else the one installed for the process (``installForProcess(_:)``), else
    /// ``live``: what a Session made without a provider uses.
    public static var resolved: DefaultTransport { current ?? processWide.withLock { $0 } ?? live }

    private static let processWide = Mutex<DefaultTransport?>(nil)

    /// Installs `transport` for code that runs outside any ``current`` scope, until
    /// ``uninstallForProcess(_:)``: XCTest's `useCassette` does this for the test's duration, as
    /// XCTest runs a process's tests one at a time and gives a test body no task-local scope. A
    /// task-local ``current`` still wins (a Swift Testing test's own tape).
    ///
    /// ```swift
    /// DefaultTransport.installForProcess(tape.makeClientTransport())
    /// ```
    public static func installForProcess(_ transport: DefaultTransport) {
        processWide.withLock { $0 = transport }
    }

    /// Removes `transport` if it is the one installed for the process (a later one stays).
    public static func uninstallForProcess(_ transport: DefaultTransport) {
        processWide.withLock { if $0 === transport { $0 = nil } }
    }

    /// The scheduler the sessions' queues belong to.
    public let scheduler: any Scheduler
    /// What the transport promises (with metrics or without).
    public let profile: TransportProfile
    let provider: any URLSessionProvider
    let drive: (@Sendable () async throws -> Void)?
    private let makeParts: @Sendable (URLSessionConfiguration, SessionDelegate, (any SchedulerQueue)?) -> (URLSession, any SchedulerQueue)
    private let defaultSessionStorage = Protected<Session?>(nil)

    /// A transport over `provider`, with queues of `scheduler` (the two deal in the same kind of
    /// queue, as for `Session(provider:scheduler:)`). `drive` runs the simulation until idle.
    @preconcurrency
    public init<Provider: URLSessionProvider>(
        provider: Provider, scheduler: some Scheduler<Provider.DelegateQueue>, drive: (@Sendable () async throws -> Void)? = nil
    ) {
        self.scheduler = scheduler
        self.profile = provider.profile
        self.provider = provider
        self.drive = drive
        makeParts = { configuration, delegate, supplied in
            let root = supplied.map { scheduler.makeQueue(wrapping: $0) }
                ?? scheduler.makeQueue(label: "org.tapedeck.session.rootQueue", target: nil)
            return (provider.makeURLSession(configuration: configuration, delegate: delegate, delegateQueue: root), root)
        }
    }

    /// The session `Session.default` and `AF` stand for under this transport: made on first use
    /// (with Alamofire's defaults), then kept.
    public var defaultSession: Session {
        defaultSessionStorage.write { stored in
            if let stored { return stored }
            let session = DefaultTransport.$current.withValue(self) { Session() }
            stored = session
            return session
        }
    }

    /// A URLSession on a new root queue (wrapping `rootQueue` when given), as a Session's
    /// convenience initialiser makes them.
    func makeURLSession(
        configuration: URLSessionConfiguration, delegate: SessionDelegate, rootQueue: (any SchedulerQueue)?
    ) -> (session: URLSession, rootQueue: any SchedulerQueue) {
        makeParts(configuration, delegate, rootQueue)
    }
}
