import Foundation
import Testing
@testable import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: metrics and completion in either order (§7, the task ledger)")
struct MetricsOrderTests {
    private func run(_ delivery: MetricsDelivery, grace: Duration = .seconds(1)) throws -> (ClientFixture, DataRequest, Box<Int>) {
        let fixture = ClientFixture(metricsGracePeriod: grace)
        fixture.serveTestAPI()
        fixture.network.faults = ClosureFaultHook { point, _, _ in point == .metricsDelivery ? .deliverMetrics(delivery) : .proceed }
        let calls = Box(0)
        let request = fixture.session.request("http://api.test/get").validate()
        request.response { _ in calls.mutate { $0 += 1 } }
        try fixture.run()
        return (fixture, request, calls)
    }

    @Test("metrics after the completion: validation and completion still wait for them")
    func metricsAfterCompletion() throws {
        let (fixture, request, calls) = try run(.afterCompletion)
        let names = fixture.events.names
        #expect(names.firstIndex(of: "urlSession.didCompleteWithError")! < names.firstIndex(of: "urlSession.didFinishCollecting")!)
        #expect(names.firstIndex(of: "didGatherMetrics")! < names.firstIndex(of: "didValidateRequest")!)
        #expect(request.metrics != nil)
        #expect(calls.value == 1)
        #expect(fixture.scheduler.now == .zero, "no grace period was needed")
    }

    @Test("a response's metrics are read by logging code written for Alamofire's URLSessionTaskMetrics: taskInterval, transactionMetrics and their dates, on the virtual timeline")
    func foundationNames() throws {
        // Given a request answered after 250 ms of virtual latency
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.milliseconds(250))), .json(200, #"{"ok":true}"#))
        let seen = Box<(duration: TimeInterval, waited: TimeInterval, start: Date, line: String)?>(nil)
        fixture.session.request("http://api.test/slow").response { response in
            // When app code logs it the way it logs Alamofire's metrics
            guard let metrics = response.metrics, let last = metrics.transactionMetrics.last,
                  let sent = last.requestStartDate, let answered = last.responseStartDate else { return }
            let line = "\(last.request.url?.path ?? "?") \((last.response as? HTTPURLResponse)?.statusCode ?? 0) \(last.networkProtocolName ?? "?")"
            seen.mutate { $0 = (metrics.taskInterval.duration, answered.timeIntervalSince(sent), metrics.taskInterval.start, line) }
        }
        try fixture.run()
        // Then the dates are the simulation's: the task took its virtual time, counted from 2026-01-01
        let logged = try #require(seen.value)
        #expect(logged.duration >= 0.25 && logged.duration < 1, "\(logged)")
        #expect(logged.waited >= 0.25 && logged.waited < 1, "\(logged)")
        #expect(logged.start == TransferMetrics.referenceDate)
        #expect(logged.line == "/slow 200 http/1.1")
    }

    @Test("metrics before the completion: the request completes when the completion arrives")
    func metricsBeforeCompletion() throws {
        let (fixture, request, calls) = try run(.beforeCompletion)
        let names = fixture.events.names
        #expect(names.firstIndex(of: "didGatherMetrics")! < names.firstIndex(of: "urlSession.didCompleteWithError")!)
        #expect(request.allMetrics.count == 1)
        #expect(calls.value == 1)
    }

    @Test("metrics never come: completion goes ahead after the grace period, with a diagnostic event (Alamofire hangs)")
    func missingMetrics() throws {
        let (fixture, request, calls) = try run(.missing, grace: .milliseconds(250))
        #expect(calls.value == 1)
        #expect(request.metrics == nil)
        #expect(fixture.events.details(of: "ledgerAnomaly") == ["metricsMissing"])
        #expect(fixture.scheduler.now == seconds(0.25))
    }

    @Test("metrics twice: the second delivery is ignored and reported, never a crash")
    func duplicateMetrics() throws {
        let (fixture, request, calls) = try run(.duplicate)
        #expect(calls.value == 1)
        #expect(request.allMetrics.count == 1)
        #expect(fixture.events.details(of: "ledgerAnomaly") == ["duplicateMetrics"])
    }

    @Test("a transport without metrics (live URLSession on Linux) completes at once, as Alamofire does there")
    func transportWithoutMetrics() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let fixture = ClientFixture(scheduler: scheduler)
        fixture.serveTestAPI()
        fixture.network.faults = ClosureFaultHook { point, _, _ in point == .metricsDelivery ? .deliverMetrics(.missing) : .proceed }
        let delegate = SessionDelegate()
        let root = scheduler.makeQueue(label: "noMetrics.rootQueue", target: nil)
        let urlSession = fixture.harness.makeURLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: root)
        let session = Session(session: urlSession, delegate: delegate, scheduler: scheduler, rootQueue: root,
                              profile: .corelibsURLSession, provider: fixture.harness)
        let calls = Box(0)
        session.request("http://api.test/get").response { _ in calls.mutate { $0 += 1 } }
        try fixture.run()
        #expect(calls.value == 1)
        #expect(scheduler.now == .zero)
    }

    @Test("the ledger as a value: completion and metrics in either order, duplicates, grace")
    func ledgerTransitions() {
        var ledger = TaskLedger()
        ledger.register(1)
        #expect(ledger.didComplete(1, transportDeliversMetrics: true) == .waitForMetrics)
        #expect(ledger.didGatherMetrics(1) == .releaseWaitingCompletion)
        #expect(ledger.didGatherMetrics(1) == .duplicate)
        #expect(ledger.didComplete(1, transportDeliversMetrics: true) == .duplicate)
        ledger.register(2)
        #expect(ledger.didGatherMetrics(2) == .recorded)
        #expect(ledger.didComplete(2, transportDeliversMetrics: true) == .completeNow)
        ledger.register(3)
        #expect(ledger.didComplete(3, transportDeliversMetrics: true) == .waitForMetrics)
        #expect(ledger.gracePeriodEnded(3) == .completeWithoutMetrics)
        #expect(ledger.gracePeriodEnded(3) == .none)
        #expect(ledger.didGatherMetrics(3) == .recorded, "late metrics after the grace period are kept, not re-run")
        ledger.register(4)
        #expect(ledger.didComplete(4, transportDeliversMetrics: false) == .completeNow)
        #expect(ledger.didGatherMetrics(99) == .unknownTask)
    }
}
