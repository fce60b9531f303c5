import Foundation
import Testing
import TapedeckScenarios

/// An honoured Retry-After longer than `client.retry.retryAfterLimit` is not waited for.
@Suite("Scenarios: the longest Retry-After honoured")
struct RetryAfterLimitTests {
    @Test("a Retry-After past retryAfterLimit is not waited for: the 503 is delivered after one attempt, the clock stays near zero; under the limit it is honoured")
    func retryAfterPastTheLimit() throws {
        func outcome(_ retryAfter: String, limit: String?) throws -> Outcome {
            try run("""
                traffic:
                  stubs:
                    - url: http://api.test/a
                      responses:
                        - {status: 503, headers: {Date: "Thu, 01 Jan 2026 00:00:00 GMT", Retry-After: "\(retryAfter)"}}
                        - {json: {ok: true}}
                client:
                  retry: {limit: 1, honourRetryAfter: true\(limit.map { ", retryAfterLimit: \($0)" } ?? "")}
                  validate: true
                script: [{request: GET http://api.test/a, name: a}]
                """)
        }
        // A date in the year 9999 (the default limit, an hour): no retry, no saturated clock
        let far = try outcome("Fri, 31 Dec 9999 23:59:59 GMT", limit: nil)
        #expect(far.request("a").status == 503 && far.request("a").attempts == 1)
        #expect(far.virtualDuration < .seconds(1))
        // Its report renders
        #expect(HTMLReport(far).render().contains("<svg"))
        // 2 hours against the default hour: not retried; against a 3 h limit: retried after 2 h
        #expect(try outcome("7200", limit: nil).request("a").attempts == 1)
        // Digits past an Int ask for longer than any limit: delivered, not retried after the backoff
        #expect(try outcome("99999999999999999999", limit: "30s").request("a").attempts == 1)
        let honoured = try outcome("7200", limit: "3h").request("a")
        #expect(honoured.status == 200 && honoured.attempts == 2 && honoured.endNanoseconds == 7_200_000_000_000)
    }

    @Test("a 503 not retried because its Retry-After is past retryAfterLimit says so: whyNotRetried, and --format text's why line under the failed check")
    func notRetriedSaysWhy() throws {
        // Given a 503 asking for 2 s against a 1 s limit, on a request expected to end 200
        let outcome = try run("""
            traffic: {stubs: [{match: GET http://api.test/items, latency: 100ms, json: {ok: true}}]}
            client:
              validate: true
              retry: {limit: 3, statuses: [503], honourRetryAfter: true, retryAfterLimit: 1s}
            script: [{request: GET http://api.test/items}]
            faults: [{kind: status, name: busy, status: 503, retryAfter: 2s, attempts: 1}]
            expect: {requests: {items: {status: 200}}}
            """)
        // Then it ends with the 503 after one attempt, and the outcome says why it was not retried
        let items = outcome.request("items")
        #expect(items.result == "validation after 503" && items.attempts == 1)
        #expect(items.whyNotRetried == "its Retry-After asks for 2s, longer than client.retry.retryAfterLimit (1s), so it was not retried")
        let text = OutcomeText(outcome).render()
        #expect(text.contains("✗ expectation items status: expected 200, got 503\n    why (validation): its Retry-After asks for 2s"), "\(text)")
        #expect(String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self).contains("whyNotRetried"))
        // While a 503 the policy retried and that ended 200 has nothing to explain
        let retried = try run("""
            traffic: {stubs: [{match: GET http://api.test/items, json: {ok: true}}]}
            client:
              validate: true
              retry: {limit: 3, statuses: [503], honourRetryAfter: true, retryAfterLimit: 5s}
            script: [{request: GET http://api.test/items}]
            faults: [{kind: status, status: 503, retryAfter: 2s, attempts: 1}]
            """)
        #expect(retried.request("items").status == 200 && retried.request("items").whyNotRetried == nil)
    }
}
