import Foundation
import Testing
import TapedeckScenarios

/// The catalogue's connection and timing faults, each through the runner (the harness's real
/// corelibs URLSession with the bridge's URLProtocol, the Alamofire-shaped client on top): what
/// the user sees in the Outcome, where it sits on the virtual clock, and that the timeline shows it.
@Suite("Fault catalogue: latency, bandwidth, slow first byte, stall, refused, DNS, offline, lost, cancel in backoff")
struct FaultTransportTests {
    @Test("latency ± jitter: the response waits delay plus a jitter drawn from the seed")
    func latencyWithJitter() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: latency, name: lag, delay: 200ms, jitter: 100ms}]
            """
        var ends: Set<Int64> = []
        for seed in UInt64(1)...20 {
            let outcome = try run(yaml, seed: seed)
            let request = outcome.request("a")
            #expect(request.status == 200 && request.error == .none && request.attempts == 1)
            let end = try #require(request.endNanoseconds)
            #expect((200_000_000...300_000_000).contains(end), "seed \(seed): ended at \(end) ns")
            ends.insert(end)
            #expect(outcome.faults.map(\.site) == ["lag"])
            #expect(outcome.faults.first?.what.hasPrefix("responseHead: delay") == true)
            #expect(request.faults.count == 1 && request.faults[0].hasPrefix("lag: delay"))
            #expect(outcome.timelineShowsFault("lag", on: "a"))
            #expect(outcome.passed, "\(outcome.failures)")
        }
        #expect(ends.count > 5, "the jitter is drawn per seed: \(ends.sorted())")
    }

    @Test("a stub's own latency ± jitter (traffic, not a fault) stays within its bounds too")
    func stubLatencyWithJitter() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a, latency: 1s, jitter: 500ms}]}
            script: [{request: GET http://api.test/a, name: a}]
            """
        var ends: Set<Int64> = []
        for seed in UInt64(1)...10 {
            let end = try #require(try run(yaml, seed: seed).request("a").endNanoseconds)
            #expect((1_000_000_000...1_500_000_000).contains(end), "seed \(seed): ended at \(end) ns")
            ends.insert(end)
        }
        #expect(ends.count > 1)
    }

    @Test("slow first byte: within the request timeout the response arrives late; beyond it, the request times out")
    func slowFirstByte() throws {
        func yaml(timeout: String) -> String {
            """
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            client: {timeouts: {request: \(timeout)}}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: slowFirstByte, name: slow, delay: 1500ms}]
            """
        }
        let patient = try run(yaml(timeout: "2s"))
        #expect(patient.request("a").status == 200)
        #expect(try #require(ms(patient.request("a").endNanoseconds)) >= 1_500)
        #expect(try #require(ms(patient.request("a").endNanoseconds)) < 1_600)
        #expect(patient.faults.map(\.site) == ["slow"])
        #expect(patient.timelineShowsFault("slow", on: "a"))

        let impatient = try run(yaml(timeout: "1s"))
        #expect(impatient.request("a").error == .timedOut)
        #expect(impatient.request("a").status == nil)
        #expect(impatient.request("a").endNanoseconds == 1_000_000_000)
        // Which timer ran out is said, in the outcome and the text output
        #expect(impatient.request("a").errorDetail?.contains("timed out (no data for 1s: the request timeout)") == true)
        #expect(OutcomeText(impatient).render().contains("a (timedOut): timed out (no data for 1s: the request timeout)"))
        #expect(impatient.faults.map(\.site) == ["slow"])
        #expect(impatient.timelineShowsFault("slow", on: "a"))
    }

    @Test("bandwidth: 10,000 bytes at 1,000 bytes per second take ten virtual seconds, and all arrive")
    func bandwidth() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/big, body: \(textBody(10_000))}]}
            script: [{request: GET http://api.test/big, name: big}]
            faults: [{kind: bandwidth, name: thin, bytesPerSecond: 1000}]
            """)
        let request = outcome.request("big")
        #expect(request.status == 200 && request.bodyBytes == 10_000)
        let end = try #require(ms(request.endNanoseconds))
        #expect(end >= 10_000 && end < 10_100, "ended at \(end) ms")
        #expect(outcome.faults.map(\.site) == ["thin"])
        #expect(outcome.faults.first?.what == "responseHead: throttle 1000 B/s")
        #expect(outcome.timelineShowsFault("thin", on: "big"))
        #expect(outcome.passed)
    }

    @Test("stall: nothing more comes, and the client's request timeout ends it (each retry stalls too)")
    func stall() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}]}
            client:
              timeouts: {request: 2s}
              retry: {limit: 1, scale: 0.5, errorCodes: [timedOut]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: stall, name: stuck}]
            """)
        let request = outcome.request("a")
        #expect(request.error == .timedOut && request.attempts == 2)
        // 2 s, the 0.5 s backoff, 2 s again.
        #expect(request.endNanoseconds == 4_500_000_000)
        #expect(outcome.faults.map(\.site) == ["stuck", "stuck"])
        #expect(outcome.faults.map(\.attempt) == [1, 2])
        #expect(outcome.lane("a")?.spans.map(\.kind) == [.attempt, .backoff, .attempt])
        #expect(outcome.lane("a")?.spans.filter { $0.kind == .attempt }.map(\.label) == ["timedOut", "timedOut"])
        #expect(outcome.timelineShowsFault("stuck", on: "a"))
        // Stalled exchanges are not a stall of the run: the timeout is a timer on the virtual clock.
        #expect(outcome.failures("noStall").isEmpty)
    }

    @Test("connection faults end the request with their error; RetryPolicy retries them with backoff", arguments: [
        ("refused", ErrorKind.cannotConnect, "refused"), ("hostNotFound", .hostNotFound, "noHost"),
        ("notConnected", .notConnected, "offline"), ("connectionLost", .connectionLost, "lost"),
    ])
    func connectionFaults(_ kind: String, _ error: ErrorKind, _ label: String) throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}]}
            client: {retry: {limit: 2, scale: 0.1}}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: \(kind), name: broken}]
            expect:
              requests:
                a: {error: \(error.rawValue), attempts: 3}
            """)
        let request = outcome.request("a")
        #expect(request.error == error)
        #expect(request.status == nil)
        #expect(request.attempts == 3)
        // Backoff 0.1 s then 0.2 s; the failures themselves take no virtual time.
        #expect(request.endNanoseconds == 300_000_000)
        #expect(outcome.faults.map(\.site) == ["broken", "broken", "broken"])
        #expect(request.faults.count == 3)
        #expect(outcome.lane("a")?.spans.filter { $0.kind == .attempt }.map(\.label) == [label, label, label])
        #expect(outcome.timelineShowsFault("broken", on: "a"))
        #expect(outcome.passed, "\(outcome.failures)")
    }

    @Test("a fault that strikes only the first attempt: the retry succeeds")
    func firstAttemptOnly() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            client: {retry: {limit: 2, scale: 0.1}}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: connectionLost, name: blip, attempts: 1}]
            """)
        #expect(outcome.request("a").status == 200 && outcome.request("a").attempts == 2)
        #expect(outcome.request("a").endNanoseconds == 100_000_000)
        #expect(outcome.faults.map(\.attempt) == [1])
    }

    @Test("a stub's sequence of answers (a failure, a 503, then 200) meets the retry policy one answer per attempt")
    func stubSequence() throws {
        let outcome = try run("""
            traffic:
              stubs:
                - url: http://api.test/a
                  responses: [{fail: networkConnectionLost}, {status: 503}, {status: 200, json: {ok: true}}]
            client: {retry: {limit: 3, scale: 0.1}, validate: true}
            script: [{request: GET http://api.test/a, name: a}]
            expect: {requests: {a: {status: 200, attempts: 3, json: [{path: ok, equals: true}]}}}
            """)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.lane("a")?.spans.filter { $0.kind == .attempt }.map(\.label) == ["lost", "503", "200"])
        #expect(outcome.request("a").endNanoseconds == 300_000_000)
        #expect(outcome.faults.isEmpty)
    }

    @Test("cancel during backoff: the request ends cancelled in the middle of the wait and the retry never goes out")
    func cancelDuringBackoff() throws {
        func yaml(_ trigger: String) -> String {
            """
            traffic: {stubs: [{url: http://api.test/a}]}
            client: {retry: {limit: 3, statuses: [503]}, validate: true}
            script:
              - request: GET http://api.test/a
                name: a
              - cancel: a
                \(trigger)
            faults: [{kind: status, name: busy, status: 503}]
            """
        }
        let first = try run(yaml("during: backoff"))
        #expect(first.request("a").error == .cancelled)
        #expect(first.request("a").attempts == 1)
        #expect(first.request("a").status == 503)
        #expect(first.request("a").result == "cancelled after 503")
        // The first backoff is 0.5 s (2^0 × 0.5): the cancel comes half-way.
        #expect(first.request("a").endNanoseconds == 250_000_000)
        #expect(first.faults.map(\.site) == ["busy"])
        #expect(first.lane("a")?.marks.contains { $0.kind == .cancel && $0.timeNanoseconds == 250_000_000 } == true)
        #expect(first.request("a").handlerCalls == 1)
        // The pending retry never reached the network: one attempt on the lane.
        #expect(first.lane("a")?.spans.filter { $0.kind == .attempt }.count == 1)
        // The wait it was cancelled in is drawn, from the attempt's end to the cancel.
        #expect(first.lane("a")?.spans.last.map { [$0.kind == .backoff, $0.endNanoseconds == 250_000_000] } == [true, true])
        #expect(first.passed, "\(first.failures)")

        let second = try run(yaml("during: backoff#2"))
        #expect(second.request("a").error == .cancelled && second.request("a").attempts == 2)
        // 0.5 s of the first backoff, then half of the second (1 s).
        #expect(second.request("a").endNanoseconds == 1_000_000_000)
        #expect(second.faults.map(\.site) == ["busy", "busy"])

        let atAttempt = try run(yaml("atAttempt: 3"))
        #expect(atAttempt.request("a").error == .cancelled && atAttempt.request("a").attempts == 3)
        // Third attempt created after 0.5 s + 1 s of backoff; cancelled as its task is created.
        #expect(atAttempt.request("a").endNanoseconds == 1_500_000_000)

        let atInstant = try run(yaml("at: 700ms"))
        #expect(atInstant.request("a").error == .cancelled && atInstant.request("a").attempts == 2)
        #expect(atInstant.request("a").endNanoseconds == 700_000_000)

        // A cancel at the instant its request is sent, written after it, finds it sent (steps at
        // one instant run in file order): no attempt reaches the network — under lazy setup the
        // client had not created its task yet, so it made none.
        let atSend = try run(yaml("at: 0s"))
        #expect(atSend.request("a").error == .cancelled && atSend.request("a").attempts == 0)
        #expect(atSend.request("a").endNanoseconds == 0)
        #expect(atSend.faults.isEmpty)
    }

    @Test("cancelAll at an instant cancels every running request, and none finished before it")
    func cancelAll() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/slow, latency: 2s}, {url: http://api.test/fast}]}
            script:
              - request: GET http://api.test/slow
                name: slow
                repeat: 2
              - request: GET http://api.test/fast
                name: fast
              - cancelAll: 1s
            """)
        #expect(outcome.request("slow#1").error == .cancelled && outcome.request("slow#2").error == .cancelled)
        #expect(outcome.request("slow#1").endNanoseconds == 1_000_000_000)
        #expect(outcome.request("fast").status == 200 && outcome.request("fast").endNanoseconds == 0)
        #expect(outcome.lane("slow#2")?.spans.last?.label == "cancelled")
        #expect(outcome.passed, "\(outcome.failures)")
    }
}
