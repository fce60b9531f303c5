import DequeModule
import Foundation
import Synchronization
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the harness knows about one of its sessions: its protocol slot, its client's delegate and
/// the simulated queue the delegate runs on.
final class SessionLink: @unchecked Sendable {
    // @unchecked Sendable: immutable after init except `session` (set once, right after creation)
    // and `foreign` (a Mutex).

    unowned let harness: Harness
    let delegate: (any URLSessionDelegate)?
    let clientQueue: SimulatedQueue
    let configuration: URLSessionConfiguration
    let operationQueue = SimulatedOperationQueue()
    private(set) var slot = 0
    weak var session: URLSession?

    /// Blocks from URLSession's own threads and the expectations they fulfil, matched in order.
    private struct Foreign {
        var expected = Deque<(ExternalExpectation, ExchangeLink)>()
        var parked = Deque<@Sendable () -> Void>()
    }

    private let foreign = Mutex(Foreign())

    init(harness: Harness, delegate: (any URLSessionDelegate)?, clientQueue: SimulatedQueue, configuration: URLSessionConfiguration) {
        self.harness = harness
        self.delegate = delegate
        self.clientQueue = clientQueue
        self.configuration = configuration
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.name = "\(clientQueue.label).sessionDelegate"
        operationQueue.link = self
        let (slot, protocolClass): (Int, AnyClass) = ProtocolSlots.register(self)
        self.slot = slot
        configuration.protocolClasses = [protocolClass] + (configuration.protocolClasses ?? [])
        configuration.urlCache = nil
    }

    deinit {
        ProtocolSlots.release(slot)
    }

    var scheduler: SimulatedScheduler { harness.scheduler }

    /// Called by the operation queue for every block URLSession enqueues.
    func route(_ block: @escaping @Sendable () -> Void, passThrough: () -> Void) {
        if harness.mode == .unordered {
            passThrough()
        } else if scheduler.isCurrentThreadOwner {
            clientQueue.async(named: "urlsession.delegate", block)
        } else {
            let match = foreign.withLock { state -> (ExternalExpectation, ExchangeLink)? in
                if let match = state.expected.popFirst() { return match }
                state.parked.append(block)
                return nil
            }
            if let (expectation, link) = match { arriveForeign(block, expectation: expectation, link: link) }
        }
    }

    /// Expects the cancellation callback of `link`'s task, which URLSession enqueues from its own
    /// thread. Call from the simulator's thread.
    func expectCancellationCallback(for link: ExchangeLink) {
        let expectation = scheduler.expectExternal("didCompleteWithError #\(link.number) (cancelled)")
        let parked: (@Sendable () -> Void)? = foreign.withLock { state in
            if let block = state.parked.popFirst() { return block }
            state.expected.append((expectation, link))
            return nil
        }
        if let parked { arriveForeign(parked, expectation: expectation, link: link) }
    }

    /// The block goes to the client through the network's queue, after the job that took in the
    /// stop (which enqueues metrics due before the callback); metrics due after follow it.
    private func arriveForeign(_ block: @escaping @Sendable () -> Void, expectation: ExternalExpectation, link: ExchangeLink) {
        expectation.arrive(on: harness.network.queue, named: "bridge.cancelled") { [self] in
            clientQueue.async(named: "urlsession.delegate", block)
            harness.deliverMetricsAfterCancellation(link)
        }
    }

    /// Enqueues work for the client's delegate queue from the simulator's thread.
    func deliverToClient(named name: String, _ work: @escaping @Sendable () -> Void) {
        if harness.mode == .unordered {
            operationQueue.addOperation(work)
        } else {
            clientQueue.async(named: name, work)
        }
    }
}
