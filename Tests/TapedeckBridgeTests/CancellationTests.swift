import Foundation
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: cancel, suspend and resume behave as with a real server")
struct CancellationTests {
    /// A body of 1,000 bytes in 100-byte chunks, one per 0.1 s: chunks at 0.1 … 1.0 s.
    private func slowBodyFixture() -> BridgeFixture {
        let fixture = BridgeFixture()
        fixture.network.stub(path: "/slow", options: RouteOptions(bandwidth: 1_000, chunkSize: 100), ResponsePlan(status: 200, body: Data(count: 1_000)))
        return fixture
    }

    private func expectCancelledMidBody(_ fixture: BridgeFixture) {
        let lines = fixture.delegate.lines
        #expect(lines.filter { $0.contains("data") }.count == 3, "\(lines)")
        #expect(lines.last == "0.35s A complete \(URLError.cancelled.rawValue)")
        #expect(!lines.contains { $0.contains("metrics") && !$0.hasPrefix("0.35s") })
        #expect(fixture.scheduler.now == seconds(0.35), "no timer of the cancelled exchange may survive")
        #expect(fixture.harness.retainedProtocolCount == 0)
        #expect(fixture.network.records.first?.outcome == .cancelled)
        #expect(fixture.scheduler.untrackedSubmissionCount == 0)
        #expect(fixture.scheduler.violations.isEmpty)
    }

    @Test("cancel through the harness mid-body: the cancellation error and nothing after it")
    func harnessCancel() throws {
        let fixture = slowBodyFixture()
        fixture.get("A", "http://api.test/slow")
        fixture.at(.milliseconds(350), "A") { task in fixture.harness.cancel(task) }
        try fixture.scheduler.runUntilIdle()
        expectCancelledMidBody(fixture)
    }

    @Test("a plain task.cancel() mid-body is noticed before the simulator calls the client again")
    func plainCancel() throws {
        let fixture = slowBodyFixture()
        fixture.get("A", "http://api.test/slow")
        fixture.at(.milliseconds(350), "A") { task in task.cancel() }
        try fixture.scheduler.runUntilIdle()
        expectCancelledMidBody(fixture)
    }

    @Test("cancelling right after resume, or a task never resumed, gives only the cancellation")
    func earlyCancels() throws {
        let fixture = slowBodyFixture()
        fixture.root.async {
            let early = fixture.session.dataTask(with: URL(string: "http://api.test/slow")!)
            early.taskDescription = "early"
            early.resume()
            early.cancel()
            let never = fixture.session.dataTask(with: URL(string: "http://api.test/slow")!)
            never.taskDescription = "never"
            never.cancel()
        }
        try fixture.scheduler.runUntilIdle()
        // Darwin-like: even a task cancelled before it started reports (empty) metrics first.
        for name in ["early", "never"] {
            #expect(fixture.delegate.lines.filter { $0.contains(" \(name) ") } == [
                "0s \(name) metrics", "0s \(name) complete \(URLError.cancelled.rawValue)",
            ])
        }
        #expect(fixture.harness.retainedProtocolCount == 0)
    }

    @Test("suspend stops the transfer; resume starts it again and a second response follows")
    func suspendResume() throws {
        let fixture = slowBodyFixture()
        fixture.get("A", "http://api.test/slow")
        fixture.at(.milliseconds(250), "A") { task in task.suspend() }
        fixture.at(.seconds(5), "A") { task in task.resume() }
        try fixture.scheduler.runUntilIdle()
        let lines = fixture.delegate.lines
        #expect(lines.filter { $0.contains("response 200") } == ["0s A response 200", "5s A response 200"])
        #expect(lines.filter { $0.contains("data") }.count == 2 + 10)
        #expect(lines.last == "6s A complete ok")
        #expect(fixture.network.records.map(\.outcome) == [.cancelled, .response(200)])
        #expect(fixture.harness.retainedProtocolCount == 0)
    }

    @Test("a timeout that would fire after a cancel never does")
    func cancelledTimeoutIsGone() throws {
        let fixture = BridgeFixture()
        fixture.network.route(path: "/never") { _, _ in .stall }
        fixture.get("A", "http://api.test/never")
        fixture.at(.seconds(1), "A") { task in task.cancel() }
        try fixture.scheduler.runUntilIdle()
        // Darwin-like: a cancelled task's metrics come before its cancellation callback.
        #expect(fixture.delegate.lines == ["1s A metrics", "1s A complete \(URLError.cancelled.rawValue)"])
        #expect(fixture.scheduler.now == seconds(1))
    }
}
