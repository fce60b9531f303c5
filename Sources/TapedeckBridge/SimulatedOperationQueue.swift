import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate queue of a harness-made URLSession.
///
/// corelibs hands every delegate callback (and completion handler) to `addOperation` synchronously
/// inside the protocol-client call that causes it. The bridge makes those calls on the simulator's
/// thread, so routing each block straight onto the client's simulated queue puts it at a
/// deterministic place in the order — no real-time round trip. Blocks from URLSession's own
/// threads (completions after a cancel) are matched with expectations instead.
final class SimulatedOperationQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: `link` is set once before the session exists; the counter is atomic.

    weak var link: SessionLink?

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        guard let link else { return super.addOperation(block) }
        link.route(block, passThrough: { super.addOperation(block) })
    }

    override func addOperation(_ operation: Operation) {
        guard let link else { return super.addOperation(operation) }
        link.route({ operation.start() }, passThrough: { super.addOperation(operation) })
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        precondition(!wait, "tapedeck: a simulated delegate queue cannot be waited on")
        for operation in operations { addOperation(operation) }
    }
}
