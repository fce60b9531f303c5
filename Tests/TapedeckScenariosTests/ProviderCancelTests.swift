import Foundation
import Testing
import TapedeckScenarios

/// Cancels of provider callers on a backoff or an attempt: a caller that joined another's flight
/// (`trackInflights`) waits through that flight's backoffs and attempts, so those cancels reach it
/// too; and a target cancelled at an attempt is drawn as a request step is.
@Suite("Scenarios: cancelling provider callers in a backoff or at an attempt")
struct ProviderCancelTests {
    /// Two callers of one flaky endpoint sharing a flight: each attempt takes 100 ms and fails
    /// (503), the first backoff is 200 ms, the second 400 ms; `leaving` joined the first's flight.
    private func joined(_ cancel: String) -> String {
        """
        traffic:
          stubs:
            - {match: GET http://api.test/flaky, latency: 100ms, status: 503}
        client:
          retry: {limit: 2, scale: 0.2}
          provider:
            baseURL: http://api.test
            trackInflights: true
            targets:
              flaky: {path: /flaky, validate: successCodes}
        script:
          - target: flaky
          - target: flaky
            name: leaving
          - cancel: leaving
            \(cancel)
        """
    }

    @Test("a joined caller cancelled during the shared request's first backoff ends cancelled halfway through it; the request goes on for the first caller",
          arguments: [UInt64(1), 2, 3])
    func joinedCallerDuringBackoff(seed: UInt64) throws {
        // When the joined caller is cancelled during backoff #1 (100 ms to 300 ms)
        let outcome = try run(joined("during: backoff"), seed: seed)
        // Then its wait ends cancelled at 200 ms, and the shared request makes all its attempts for the first caller
        #expect(outcome.request("leaving").error == .cancelled, "\(outcome.request("leaving"))")
        #expect(ms(outcome.request("leaving").endNanoseconds) == 200)
        #expect(outcome.request("flaky").error != .cancelled && outcome.request("flaky").attempts == 3, "\(outcome.request("flaky"))")
        #expect(ms(outcome.request("flaky").endNanoseconds) == 900)
    }

    @Test("a joined caller cancelled at attempt 2 ends cancelled as the shared request's second attempt starts; the request goes on",
          arguments: [UInt64(1), 2, 3])
    func joinedCallerAtAttempt(seed: UInt64) throws {
        let outcome = try run(joined("atAttempt: 2"), seed: seed)
        #expect(outcome.request("leaving").error == .cancelled, "\(outcome.request("leaving"))")
        #expect(ms(outcome.request("leaving").endNanoseconds) == 300)
        #expect(outcome.request("flaky").attempts == 3 && ms(outcome.request("flaky").endNanoseconds) == 900, "\(outcome.request("flaky"))")
    }

    @Test("a target cancelled at an attempt is drawn as a request step cancelled there: its failed attempt, its backoff and the cancel mark")
    func targetCancelledAtAttemptIsDrawn() throws {
        // Given the same cancel on a request step and on a target step
        let outcome = try run("""
            traffic:
              stubs:
                - {match: GET http://api.test/flaky, latency: 100ms, status: 503}
            client:
              validate: true
              retry: {limit: 2, scale: 0.2}
              provider:
                baseURL: http://api.test
                targets:
                  flaky: {path: /flaky, validate: successCodes}
            script:
              - request: GET http://api.test/flaky
                name: as-request
              - cancel: as-request
                atAttempt: 2
              - target: flaky
                name: as-target
              - cancel: as-target
                atAttempt: 2
            """)
        // Then both end cancelled at 300 ms, and both lanes show the backoff up to the cancel and its mark
        let request = try #require(outcome.lane("as-request")), target = try #require(outcome.lane("as-target"))
        #expect(ms(outcome.request("as-target").endNanoseconds) == 300 && outcome.request("as-target").error == .cancelled)
        #expect(target.marks.contains { $0.kind == .cancel && $0.timeNanoseconds == 300_000_000 }, "\(target.marks)")
        #expect(target.spans.map(\.kind) == request.spans.map(\.kind), "\(target.spans) vs \(request.spans)")
        #expect(target.spans.contains { $0.kind == .backoff && $0.startNanoseconds == 100_000_000 && $0.endNanoseconds == 300_000_000 },
                "\(target.spans)")
        #expect(target.marks.map(\.kind) == request.marks.map(\.kind), "\(target.marks) vs \(request.marks)")
    }
}
