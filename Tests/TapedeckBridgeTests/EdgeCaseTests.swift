import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: edge cases of cancel, suspend and sessions")
struct EdgeCaseTests {
    /// Chunks at 0.1 … 1.0 s.
    private func slow(_ fixture: BridgeFixture) {
        fixture.network.stub(path: "/slow", options: RouteOptions(bandwidth: 1_000, chunkSize: 100), ResponsePlan(status: 200, body: Data(count: 1_000)))
    }

    @Test("suspend and cancel in the same job: one cancellation callback, no wait for a stop that never comes")
    func suspendThenCancel() throws {
        let fixture = BridgeFixture(externalWaitLimit: .seconds(2))
        slow(fixture)
        fixture.get("A", "http://api.test/slow")
        fixture.at(.milliseconds(250), "A") { task in
            task.suspend()
            task.cancel()
        }
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.delegate.lines.last == "0.25s A complete \(URLError.cancelled.rawValue)")
        #expect(fixture.delegate.lines.count { $0.contains("complete") } == 1)
        #expect(fixture.harness.retainedProtocolCount == 0)
    }

    @Test("a session without a delegate can cancel (corelibs sends no callback then)")
    func cancelWithoutDelegate() throws {
        let scheduler = SimulatedScheduler(externalWaitLimit: .seconds(2))
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(path: "/slow", options: RouteOptions(bandwidth: 1_000, chunkSize: 100), ResponsePlan(status: 200, body: Data(count: 1_000)))
        let harness = Harness(network: network)
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let session = harness.makeSession(delegate: nil, delegateQueue: root)
        root.async {
            let task = session.dataTask(with: URL(string: "http://api.test/slow")!)
            task.resume()
            root.asyncAfter(delay: .milliseconds(300)) { harness.cancel(task) }
        }
        try scheduler.runUntilIdle()
        #expect(scheduler.now == seconds(0.3))
        #expect(network.records.first?.outcome == .cancelled)
        #expect(harness.retainedProtocolCount == 0)
    }

    @Test("several cancels in one job, in reverse order: each task gets its metrics, then its callback")
    func reverseOrderCancels() throws {
        let fixture = BridgeFixture()
        slow(fixture)
        for name in ["A", "B", "C"] { fixture.get(name, "http://api.test/slow") }
        fixture.root.asyncAfter(delay: .milliseconds(350)) {
            for name in ["C", "A", "B"] { fixture.task(name)?.cancel() }
        }
        try fixture.scheduler.runUntilIdle()
        for name in ["A", "B", "C"] {
            let tail = fixture.delegate.lines.filter { $0.contains(" \(name) ") && !$0.contains("data") && !$0.contains("response") }
            #expect(tail == ["0.35s \(name) metrics", "0.35s \(name) complete \(URLError.cancelled.rawValue)"])
        }
        #expect(fixture.harness.unattributedBlockCount == 0)
    }

    @Test("cancelling in the same job as resume gives the same trace every run")
    func cancelRightAfterResumeIsDeterministic() throws {
        var hashes = Set<TraceHash>()
        for _ in 0..<30 {
            let fixture = BridgeFixture(seed: 3)
            slow(fixture)
            fixture.root.async {
                for index in 0..<4 {
                    let task = fixture.session.dataTask(with: URL(string: "http://api.test/slow")!)
                    task.taskDescription = "t\(index)"
                    task.resume()
                    if index % 2 == 0 { fixture.harness.cancel(task) }
                }
            }
            try fixture.scheduler.runUntilIdle()
            #expect(fixture.delegate.lines.count { $0.contains("complete") } == 4)
            hashes.insert(fixture.scheduler.traceHash)
        }
        #expect(hashes.count == 1)
    }

    @Test("a completion-handler task suspended mid-body and resumed gets the whole body exactly once")
    func completionHandlerSuspendResume() throws {
        let fixture = BridgeFixture()
        let body = Data((0..<1_000).map { UInt8($0 % 256) })
        fixture.network.stub(path: "/slow", options: RouteOptions(bandwidth: 1_000, chunkSize: 100), ResponsePlan(status: 200, body: body))
        let received = Mutex<[Data]>([])
        fixture.root.async {
            let task = fixture.session.dataTask(with: URL(string: "http://api.test/slow")!) { data, _, _ in
                received.withLock { $0.append(data ?? Data()) }
            }
            task.resume()
            fixture.root.asyncAfter(delay: .milliseconds(450)) { task.suspend() }
            fixture.root.asyncAfter(delay: .seconds(2)) { task.resume() }
        }
        try fixture.scheduler.runUntilIdle()
        #expect(received.withLock { $0 } == [body])
        #expect(fixture.scheduler.now == seconds(3))
    }

    @Test("two harnesses share one network without clashing")
    func twoHarnessesOneNetwork() throws {
        let scheduler = SimulatedScheduler()
        let network = SimulatedNetwork(scheduler: scheduler)
        network.stub(path: "/x", .text(200, "x"))
        let root = scheduler.makeSimulatedQueue(label: "root", target: nil)
        let done = Mutex(0)
        for _ in 0..<2 {
            let harness = Harness(network: network)
            let session = harness.makeSession(delegate: nil, delegateQueue: root)
            root.async {
                for _ in 0..<3 {
                    session.dataTask(with: URL(string: "http://api.test/x")!) { _, _, error in
                        if error == nil { done.withLock { $0 += 1 } }
                    }.resume()
                }
            }
            withExtendedLifetime(harness) {}
            try scheduler.runUntilIdle()
        }
        #expect(done.withLock { $0 } == 6)
        #expect(Set(network.records.map(\.id)).count == 6)
    }

    @Test("invalidateAndCancel with tasks in flight cancels each one, deterministically")
    func invalidateAndCancel() throws {
        var hashes = Set<TraceHash>()
        for _ in 0..<10 {
            let fixture = BridgeFixture(seed: 5)
            slow(fixture)
            for index in 0..<5 { fixture.get("t\(index)", "http://api.test/slow") }
            fixture.root.asyncAfter(delay: .milliseconds(150)) { fixture.session.invalidateAndCancel() }
            try fixture.scheduler.runUntilIdle()
            #expect(fixture.delegate.lines.count { $0.hasSuffix("complete \(URLError.cancelled.rawValue)") } == 5)
            hashes.insert(fixture.scheduler.traceHash)
        }
        #expect(hashes.count == 1)
    }
}
