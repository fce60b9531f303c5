import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// UserCode/RequestLogger.swift on the simulated network: an EventMonitor implementing a few of
/// Alamofire's methods, and a ClosureEventMonitor with per-event closures, see a retried request's
/// events in order.
@Suite("Compat: event monitors written for Alamofire")
struct MonitorTests {
    /// `/flaky` answers 503 once, then 200.
    private func flakyBackend() -> SimulatedBackend {
        let backend = SimulatedBackend()
        let calls = Box(0)
        backend.serve(path: "/flaky") { _ in
            calls.value += 1
            return calls.value == 1 ? ResponsePlan(status: 503) : .json(200, #"{"ok":true}"#)
        }
        return backend
    }

    @Test("the logger sees start, send, retry, send, done — in that order, once each")
    func loggerSeesTheRetriedRequestInOrder() throws {
        let backend = flakyBackend()
        let sink = LogSink()
        let session = backend.withTransport { Session(interceptor: RetryPolicy(), eventMonitors: [RequestLogger(sink: sink)]) }
        let status = Box<Int?>(nil)

        let request = session.request("https://api.example.com/flaky").validate().responseData { status.value = $0.response?.statusCode }
        try backend.run()

        #expect(status.value == 200)
        let lines = sink.lines
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.first == "[start] \(request.id)")
        #expect(Array(lines.dropFirst().prefix(3)) == [
            "[send] GET https://api.example.com/flaky",
            "[retry #1] GET https://api.example.com/flaky (503)",
            "[send] GET https://api.example.com/flaky",
        ])
        #expect(lines.last?.hasPrefix("[done] GET https://api.example.com/flaky (200) -> 200, ok, serialized in ") == true)
        // The retry waited RetryPolicy's 0.5 s on the virtual clock.
        #expect(backend.scheduler.now >= .zero.advanced(by: .milliseconds(500)))
    }

    @Test("the closure monitor's per-event closures run in event order; unset events call nothing")
    func closureMonitorCallsEachClosureInOrder() throws {
        let backend = flakyBackend()
        let sink = LogSink()
        let session = backend.withTransport { Session(interceptor: RetryPolicy(), eventMonitors: [makeClosureMonitor(sink: sink)]) }

        session.request("https://api.example.com/flaky").validate().response { _ in }
        try backend.run()

        // A 503 is not a task error (the task completed); validation puts the error on the request.
        #expect(sink.lines == [
            "resume", "task", "task ok", "retrying", "task", "task ok", "finished 1", "parsed",
        ])
    }

    @Test("a monitor added to one request sees only that request, after the session's")
    func requestMonitorAfterSessionMonitor() throws {
        let backend = flakyBackend()
        let order = LogSink()
        let sessionMonitor = ClosureEventMonitor()
        sessionMonitor.requestDidFinish = { _ in order.write("session") }
        let requestMonitor = ClosureEventMonitor()
        requestMonitor.requestDidFinish = { _ in order.write("request") }
        let session = backend.withTransport { Session(eventMonitors: [sessionMonitor]) }

        session.request("https://api.example.com/flaky").eventMonitor(requestMonitor).response { _ in }
        session.request("https://api.example.com/flaky").response { _ in }
        try backend.run()

        #expect(order.lines == ["session", "request", "session"])
    }
}
