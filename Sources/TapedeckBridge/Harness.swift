public import TapedeckHTTP
public import TapedeckNetwork
public import TapedeckScheduling
import Dispatch
import Synchronization
#if canImport(FoundationNetworking)
public import FoundationNetworking
#else
public import Foundation
#endif

/// Hands out URLSessions whose traffic goes to a `SimulatedNetwork` on virtual time, with every
/// delegate callback delivered on a simulated queue in an order that depends only on the seed.
///
/// ```swift
/// let scheduler = SimulatedScheduler(seed: 7)
/// let network = SimulatedNetwork(scheduler: scheduler)
/// network.stub(.get, host: "api.test", path: "/hello", .text(200, "hi"))
/// let harness = Harness(network: network)
/// let clientRoot = scheduler.makeSimulatedQueue(label: "app.rootQueue", target: nil)
/// let session = harness.makeSession(delegate: myDelegate, delegateQueue: clientRoot)
/// session.dataTask(with: URL(string: "http://api.test/hello")!).resume()
/// try scheduler.runUntilIdle()     // myDelegate's callbacks ran on clientRoot
/// ```
///
/// Rules for determinism: create, resume, suspend and cancel tasks from simulated code (a job) or
/// while nobody drives the scheduler; cancel through ``cancel(_:)`` or `task.cancel()` — both are
/// noticed before the simulator could call the client again.
public final class Harness: URLSessionProvider, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state` (a Mutex) or in ExchangeLinks guarded by it.

    /// How callbacks reach the client.
    public enum Mode: Sendable, Hashable {
        /// Every callback the simulation causes is expected and taken in, in simulation order.
        case lockstep
        /// Test-only: callbacks run on a real OperationQueue and reach the simulation whenever their
        /// threads get there — the nondeterminism lockstep exists to prevent.
        case unordered
    }

    /// The network every session of this harness talks to.
    public let network: SimulatedNetwork
    /// How callbacks reach the client (lockstep unless a test asks otherwise).
    public let mode: Mode
    /// Deliver `gzip`/`deflate` bodies decoded with their headers kept, as libcurl does (default).
    public let decodesContentEncoding: Bool
    /// What sessions from this harness promise their clients.
    public let profile = TransportProfile.simulated
    /// The cookies of this simulation: sessions whose configuration uses the process-wide
    /// `HTTPCookieStorage.shared` (`.default`, Alamofire's `.af.default`) get this in-memory
    /// storage instead, shared by all of them, so no cookie outlives the simulation or passes
    /// from one test to another. A configuration with a storage of its own (`.ephemeral`) keeps it.
    ///
    /// ```swift
    /// let session = harness.makeSession(configuration: .default, delegate: nil, delegateQueue: root)
    /// // … after a response with Set-Cookie:
    /// harness.cookieStorage.cookies(for: URL(string: "http://api.test")!)
    /// ```
    public var cookieStorage: HTTPCookieStorage {
        // Made on first use, or one a finished harness left empty (see CookieStoragePool):
        // building an ephemeral configuration, the only public way to an in-memory storage on
        // Linux, costs more than a short simulation's exchanges.
        ownCookies.withLock { storage in
            if let storage { return storage }
            let made = CookieStoragePool.shared.take()
            storage = made
            return made
        }
    }
    private let ownCookies = Mutex<HTTPCookieStorage?>(nil)
    /// Cookie lifetimes on virtual time (see ``CookieClock``).
    let cookieClock = Mutex(CookieClock())

    deinit {
        if let storage = ownCookies.withLock({ $0.take() }) { CookieStoragePool.shared.giveBack(storage) }
    }

    /// The network's scheduler.
    public var scheduler: SimulatedScheduler { network.scheduler }

    struct State {
        var sessions: [SessionLink] = []
        var nextNumber = 1
        var nextNetworkID = 1
        var active: [Int: ExchangeLink] = [:]
        var byNetworkID: [Int: ExchangeLink] = [:]
        var deliveredMetrics: [(exchange: Int, metrics: TransferMetrics)] = []
        var unattributedBlocks = 0
        var illegalTransitions: [String] = []
        /// The simulation is over (see ``Harness/endSimulation()``): delegate blocks run on real threads.
        var ended = false

        // Clients on their own threads (handed-out configurations; see Harness+Configuration).
        /// Requests resumed since the simulation last took them in, in resume order.
        var foreignInbox: [ExchangeLink] = []
        var foreignRequests = 0
        /// Requests that started while others were in flight (the determinism report's reasons).
        var overlaps: [String] = []
        /// Tasks the client cancelled or suspended on its own threads.
        var foreignStops: [String] = []
        var pacedOnWallClock = false
        var closed = false
        var lateRequests: [String] = []
        var serveFailures: [ServeError] = []
        /// What was said of a client's request left waiting with nobody serving (once per harness).
        var unservedNote: String?
        /// How long such a request waits before that is said (tests shorten it).
        var unservedNoteDelay: Duration = .seconds(5)
    }

    let state = Mutex(State())
    /// The thread serving clients on their own threads, while one does.
    let serving = Mutex<ServingDriver?>(nil)
    /// Receives the network's events for this harness's exchanges.
    private(set) var sink: HarnessSink!

    /// A harness over `network`. Sessions decode `gzip`/`deflate` bodies unless
    /// `decodesContentEncoding` is false.
    public init(network: SimulatedNetwork, mode: Mode = .lockstep, decodesContentEncoding: Bool = true) {
        self.network = network
        self.mode = mode
        self.decodesContentEncoding = decodesContentEncoding
        self.sink = HarnessSink(harness: self)
        if mode == .lockstep {
            network.scheduler.addQuiescenceHook { [weak self] in
                self?.expireCookies()
                self?.noticeClientStateChanges()
            }
        }
        // A client on its own threads may set virtual timers (a `SimulatedClock` sleep between
        // retries): the serving thread must run them, not wait for the client's next request.
        network.scheduler.addOutsideWorkHook { [weak self] in self?.servingDriver?.wake() }
    }

    /// A URLSession bound to the simulated network. Its delegate callbacks (and completion
    /// handlers) run on `delegateQueue`. `configuration` is copied; our protocol goes first in its
    /// `protocolClasses` and its URL cache is switched off.
    public func makeSession(
        configuration: URLSessionConfiguration = .ephemeral,
        delegate: (any URLSessionDelegate)?,
        delegateQueue: SimulatedQueue
    ) -> URLSession {
        precondition(delegateQueue.scheduler === scheduler, "tapedeck: the delegate queue belongs to another scheduler")
        let copy = configuration.copy() as! URLSessionConfiguration
        let link = SessionLink(harness: self, delegate: delegate, clientQueue: delegateQueue, configuration: copy)
        let session = URLSession(configuration: copy, delegate: delegate, delegateQueue: link.operationQueue)
        link.session = session
        state.withLock { $0.sessions.append(link) }
        return session
    }

    /// `URLSessionProvider`: a session of this harness (see ``makeSession(configuration:delegate:delegateQueue:)``);
    /// `delegateQueue` must belong to this harness's scheduler.
    public func makeURLSession(
        configuration: URLSessionConfiguration, delegate: any URLSessionDelegate, delegateQueue: SimulatedQueue
    ) -> URLSession {
        makeSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// Cancels `task` so that the simulation knows before anything else happens: its exchange stops,
    /// and the stop and the cancellation callback are expected. Call from simulated code.
    public func cancel(_ task: URLSessionTask) {
        scheduler.withExclusiveAccess {
            let link = link(for: task)
            task.cancel()
            // After cancel(): its stop is queued now, so the expectation's helper can wait for it.
            if let link, link.task != nil { handle(.cancelNoticed, for: link) }
        }
    }

    /// Metrics delivered to clients so far, by exchange number (the order tasks were resumed in
    /// this harness), in delivery order.
    public var deliveredMetrics: [(exchange: Int, metrics: TransferMetrics)] {
        state.withLock { $0.deliveredMetrics }
    }

    /// URLProtocol instances the harness still holds (0 once every task has ended).
    public var retainedProtocolCount: Int {
        state.withLock { state in state.active.values.count { $0.urlProtocol != nil } }
    }

    /// Events a task's lifecycle found impossible in its state (always empty unless Tapedeck has a
    /// bug; each is also recorded in the trace as `bridge.illegal`).
    public var illegalTransitions: [String] {
        state.withLock { $0.illegalTransitions }
    }

    /// Delegate blocks URLSession enqueued from its own threads that were neither caused by the
    /// simulation nor by a stop (session invalidation, `getAllTasks`): delivered in an order that
    /// depends on thread timing.
    public var unattributedBlockCount: Int {
        state.withLock { $0.unattributedBlocks }
    }

    /// Says the simulation is over and lets it go: the scheduler is ended
    /// (`SimulatedScheduler.end()`: whatever is still pending or submitted later is dropped, for
    /// every harness and queue on it, so call this once, when the whole simulation is over), then
    /// the URLSessions this harness made are invalidated (`invalidateAndCancel()`, on another
    /// thread). The delegate blocks URLSession still enqueues for them are dropped, never run: the
    /// client's queues will not run again, and its code must not run on URLSession's threads.
    ///
    /// Why it matters: a URLSession lives until it is invalidated, corelibs gives each one a socket
    /// pair, and a callback parked on a simulated queue keeps the whole simulation alive. A test
    /// suite whose simulations never end runs out of file descriptors. `Tape`, the test traits and
    /// the scenario runner call it for you; a test that builds its own harness should call it last.
    /// (A configuration handed out to a client that builds its own URLSession leaves that session
    /// to the client.) Releasing a harness alone ends nothing: several harnesses may share one
    /// scheduler in turn.
    ///
    /// ```swift
    /// try scheduler.runUntilIdle()
    /// harness.endSimulation()
    /// ```
    public func endSimulation() {
        let (sessions, inFlight) = state.withLock { state -> ([URLSession], [ExchangeLink]) in
            guard !state.ended else { return ([], []) }
            state.ended = true
            // A request a client on its own threads starts from now on fails at once, naming it.
            state.closed = true
            // The links stay: URLSession threads may still look up their protocol slots while
            // the invalidation cancels tasks.
            let foreign = state.active.values.filter { $0.session.isConfiguration && $0.startArrived && $0.urlProtocol != nil && $0.lifecycle.state != .done }
            return (state.sessions.filter { !$0.isConfiguration }.compactMap(\.session), foreign.sorted { $0.number < $1.number })
        }
        network.scheduler.end()
        // On another thread: this may be called where corelibs is calling out from a session's
        // work queue (a test fixture's deinit, say), and invalidating syncs onto that queue.
        // Whatever the invalidation makes URLSession deliver is dropped (SessionLink.route).
        DispatchQueue.global().async {
            // A client on its own threads (a session built from `configuration()`) is not ours to
            // invalidate; a request of its still in flight would wait for ever: it ends cancelled.
            for link in inFlight { Self.failInFlight(link) }
            for session in sessions { session.invalidateAndCancel() }
        }
    }

    /// Whether ``endSimulation()`` was called.
    var simulationEnded: Bool {
        state.withLock { $0.ended }
    }
}
