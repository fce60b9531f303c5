import Foundation
import Synchronization
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the harness knows about one of its sessions: its protocol slot, its client's delegate and
/// the simulated queue the delegate runs on — or, for a configuration handed out by
/// ``Harness/configuration(base:)``, only the slot: the client builds its own URLSession from it,
/// with its own delegate and queue (a *foreign* session, see ``ForeignTask``).
final class SessionLink: @unchecked Sendable {
    // @unchecked Sendable: immutable after init except `session` (set once, right after creation),
    // `stopping` (a Mutex) and `simulatorBlockCount` (simulator thread only).

    /// Weak: the URLSession (and so this link, through its delegate queue) may outlive the harness.
    weak var harness: Harness?
    let scheduler: SimulatedScheduler
    private let mode: Harness.Mode
    let delegate: (any URLSessionDelegate)?
    /// The simulated queue of a harness-made session; nil for a handed-out configuration.
    let clientQueue: SimulatedQueue?
    let configuration: URLSessionConfiguration
    let operationQueue = SimulatedOperationQueue()
    private(set) var slot = 0
    weak var session: URLSession?

    /// Blocks routed from the simulator's thread so far (the bridge compares it around a client
    /// call to learn whether the call produced a delegate block). Simulator thread only.
    private(set) var simulatorBlockCount = 0

    /// Which link's stop each URLSession thread is working through: corelibs calls `stopLoading`
    /// and then, in the same work item on the same thread, enqueues the cancellation callback.
    private let stopping = Mutex<[UInt: ExchangeLink]>([:])

    init(harness: Harness, delegate: (any URLSessionDelegate)?, clientQueue: SimulatedQueue?, configuration: URLSessionConfiguration) {
        self.harness = harness
        self.scheduler = harness.scheduler
        self.mode = harness.mode
        self.delegate = delegate
        self.clientQueue = clientQueue
        self.configuration = configuration
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.name = "\(clientQueue?.label ?? "tapedeck.configuration").sessionDelegate"
        operationQueue.link = self
        let (slot, protocolClass): (Int, AnyClass) = ProtocolSlots.register(self)
        self.slot = slot
        configuration.protocolClasses = [protocolClass] + (configuration.protocolClasses ?? [])
        configuration.urlCache = nil
        // The process's shared cookies would carry from one simulation (and test) to the next.
        if let shared = configuration.httpCookieStorage, shared === HTTPCookieStorage.shared {
            configuration.httpCookieStorage = harness.cookieStorage
        }
    }

    deinit {
        ProtocolSlots.release(slot)
    }

    /// True for a configuration handed out to a client that builds its own URLSession.
    var isConfiguration: Bool { clientQueue == nil }

    /// Called by the operation queue for every block URLSession enqueues.
    func route(_ block: @escaping @Sendable () -> Void, passThrough: () -> Void) {
        guard let harness, mode == .lockstep, let clientQueue else {
            passThrough()
            return
        }
        if harness.simulationEnded {
            // The simulation is over: the client's queue will not run again, and its code must
            // not run on URLSession's threads either (it checks its queue). Dropping the block
            // (the ended scheduler drops whatever is submitted) frees what it holds, the session
            // among them once its invalidation callback is gone.
            return
        }
        if scheduler.isCurrentThreadOwner {
            simulatorBlockCount += 1
            clientQueue.async(named: "urlsession.delegate", block)
        } else if let link = stopping.withLock({ $0.removeValue(forKey: currentThreadID()) }) {
            harness.attachCancellationCallback(block, to: link)
        } else {
            // Neither caused by the simulator nor by a stop (session invalidation, getAllTasks):
            // delivered, but its place in the order depends on thread timing.
            harness.recordUnattributedBlock()
            clientQueue.async(named: "urlsession.delegate.untracked", block)
        }
    }

    /// Marks the calling URLSession thread as stopping `link` (see `stopping`).
    func beginStop(of link: ExchangeLink) {
        stopping.withLock { $0[currentThreadID()] = link }
    }

    /// Forgets the marks of `link`'s stops once their work items are over (a suspend's stop
    /// enqueues nothing, so its mark would otherwise stay).
    func endStops(of link: ExchangeLink) {
        stopping.withLock { state in
            state = state.filter { $0.value !== link }
        }
    }

    /// Enqueues work for the client's delegate queue from the simulator's thread.
    func deliverToClient(named name: String, _ work: @escaping @Sendable () -> Void) {
        if mode == .unordered || clientQueue == nil {
            operationQueue.addOperation(work)
        } else {
            clientQueue?.async(named: name, work)
        }
    }
}
