import Synchronization
import TapedeckScheduling

/// A Session-shaped workload: `roots` root queues, each with two queues targeting it, jobs submitted
/// immediately and with (often tied) deadlines, cross-root hops and cross-root `sync` calls. Every
/// job checks the queue rules and reports to a ``WorkloadProbe``.
struct Workload {
    var roots = 3
    var jobsPerQueue = 12
    var hops = true

    struct Tree {
        let root: any SchedulerQueue
        let queues: [any SchedulerQueue]   // [root, request, serialization]
    }

    @discardableResult
    func build(on scheduler: any Scheduler, probe: WorkloadProbe) -> [Tree] {
        var trees: [Tree] = []
        for r in 0..<roots {
            let root = scheduler.makeQueue(label: "w\(r).root", target: nil)
            let request = scheduler.makeQueue(label: "w\(r).request", target: root)
            let serialization = scheduler.makeQueue(label: "w\(r).serialization", target: root)
            trees.append(Tree(root: root, queues: [root, request, serialization]))
        }
        let start = scheduler.now
        for index in 0..<jobsPerQueue {
            for r in 0..<roots {
                for q in 0..<3 {
                    let delay: Duration? = index % 3 == 0 ? .milliseconds(10 * (index % 4)) : nil
                    submit(trees: trees, root: r, queue: q, delay: delay, from: start, probe: probe, depth: 0)
                }
            }
        }
        return trees
    }

    private func submit(
        trees: [Tree], root r: Int, queue q: Int, delay: Duration?, from now: VirtualInstant,
        probe: WorkloadProbe, depth: Int
    ) {
        let queue = trees[r].queues[q]
        let deadline = delay.map { now.advanced(by: $0) }
        let ticket = probe.submitted(
            root: r, queue: q, effectiveDeadline: (deadline ?? now).nanoseconds, isTimer: deadline != nil,
            fromSetup: depth == 0)
        let job: @Sendable () -> Void = {
            probe.enter(root: r)
            defer { probe.leave(root: r) }
            let time = queue.now
            if let deadline, time < deadline { probe.fail("job ran at \(time) before its deadline \(deadline)") }
            probe.executed(ticket, time: time.nanoseconds)
            checkQueues(trees: trees, root: r, queue: q, probe: probe)
            guard hops, depth == 0 else { return }
            let other = (r + 1 + ticket.submitIndex % 2) % trees.count
            if ticket.submitIndex % 4 == 1 {
                // hop to another root, sometimes after a tied delay
                let hopDelay: Duration? = ticket.submitIndex % 8 == 1 ? .milliseconds(5) : nil
                submit(trees: trees, root: other, queue: (q + 1) % 3, delay: hopDelay, from: time, probe: probe, depth: 1)
            } else if ticket.submitIndex % 4 == 3 && other > r {
                // sync onto a higher-numbered root's queue: legal (syncs only go "up", so no cycle can
                // deadlock), and it must hold that root exclusively
                trees[other].queues[q].sync {
                    probe.enter(root: other)
                    checkQueues(trees: trees, root: other, queue: q, probe: probe)
                    probe.leave(root: other)
                }
            }
        }
        if let deadline {
            queue.asyncAfter(deadline: deadline, named: "w\(r).\(q)", job)
        } else {
            queue.async(named: "w\(r).\(q)", job)
        }
    }

    private func checkQueues(trees: [Tree], root r: Int, queue q: Int, probe: WorkloadProbe) {
        let mine = trees[r].queues
        if !mine[q].isCurrent { probe.fail("not on own queue \(mine[q].label)") }
        if !mine[0].isCurrent { probe.fail("on \(mine[q].label) but not on its root \(mine[0].label)") }
        for sibling in 1..<3 where sibling != q && mine[sibling].isCurrent {
            probe.fail("on \(mine[q].label) and also on sibling \(mine[sibling].label)")
        }
    }
}

/// Collects what a workload did, from any thread.
final class WorkloadProbe: Sendable {
    struct Ticket: Sendable {
        let root: Int
        let queue: Int
        let submitIndex: Int
        let effectiveDeadline: Int64
        let isTimer: Bool
        /// Submitted by the test's own thread during setup (not by another job).
        let fromSetup: Bool
    }

    struct Execution: Sendable {
        let ticket: Ticket
        let time: Int64
    }

    private struct State {
        var submissions = 0
        var perQueueSubmit: [String: Int] = [:]
        var executions: [Execution] = []
        var active: [Int: Int] = [:]
        var maxActive = 0
        var failures: [String] = []
    }

    private let state = Mutex(State())

    func submitted(root: Int, queue: Int, effectiveDeadline: Int64, isTimer: Bool, fromSetup: Bool) -> Ticket {
        state.withLock { state in
            defer { state.submissions += 1 }
            return Ticket(
                root: root, queue: queue, submitIndex: state.submissions, effectiveDeadline: effectiveDeadline,
                isTimer: isTimer, fromSetup: fromSetup)
        }
    }

    func executed(_ ticket: Ticket, time: Int64) {
        state.withLock { $0.executions.append(Execution(ticket: ticket, time: time)) }
    }

    func enter(root: Int) {
        state.withLock { state in
            state.active[root, default: 0] += 1
            state.maxActive = max(state.maxActive, state.active[root]!)
        }
    }

    func leave(root: Int) {
        state.withLock { $0.active[root, default: 0] -= 1 }
    }

    func fail(_ message: String) {
        state.withLock { $0.failures.append(message) }
    }

    var executions: [Execution] { state.withLock { $0.executions } }
    var failures: [String] { state.withLock { $0.failures } }
    var maxActivePerRoot: Int { state.withLock { $0.maxActive } }
    var submissionCount: Int { state.withLock { $0.submissions } }

    /// Per queue, jobs must run in (deadline, submission) order. Returns the first violation found.
    /// With `setupImmediateOnly`, only jobs the test thread submitted without a deadline are compared:
    /// on real GCD, timers have leeway and jobs submitted from several threads have no defined
    /// submission order, so plain FIFO of one submitter is what GCD guarantees.
    func fifoViolation(setupImmediateOnly: Bool = false) -> String? {
        var last: [String: (Int64, Int)] = [:]
        for execution in executions
        where !(setupImmediateOnly && (execution.ticket.isTimer || !execution.ticket.fromSetup)) {
            let key = "\(execution.ticket.root).\(execution.ticket.queue)"
            let order = (execution.ticket.effectiveDeadline, execution.ticket.submitIndex)
            if let previous = last[key], previous > order {
                return "queue \(key): job \(order) ran after job \(previous)"
            }
            last[key] = order
        }
        return nil
    }

    /// The execution order as a compact signature (root.queue#submitIndex, ...).
    var orderSignature: [Int] {
        executions.map { $0.ticket.submitIndex }
    }
}
