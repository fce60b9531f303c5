import Foundation
import Testing
import TapedeckClient
import TapedeckScenarios
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One expectation, once meant to hold and once meant to fail with the message a user reads.
struct ExpectationCase: CustomTestStringConvertible, Sendable {
    let check: String
    let holds: String
    let fails: String
    /// The failure's message.
    let message: String

    var testDescription: String { check }
}

private let body = #"{"id":1,"name":"Ada","items":[{"id":7}]}"#

@Suite("Expectations and invariants: each kind holds once and fails once, with its message")
struct ExpectationTests {
    private static func yaml(_ expectation: String) -> String {
        """
        traffic: {stubs: [{url: http://api.test/a, latency: 100ms, body: '\(body)'}]}
        script: [{request: GET http://api.test/a, name: a}]
        expect:
          \(expectation)
        """
    }

    static let cases: [ExpectationCase] = [
        ExpectationCase(check: "status", holds: "requests: {a: {status: 200}}", fails: "requests: {a: {status: 201-299}}",
                        message: "expected 201-299, got 200"),
        ExpectationCase(check: "error", holds: "requests: {a: {error: none}}", fails: "requests: {a: {error: timedOut}}",
                        message: "expected timedOut, got none"),
        ExpectationCase(check: "attempts", holds: "requests: {a: {attempts: 1}}", fails: "requests: {a: {attempts: 2-3}}",
                        message: "expected 2-3, made 1"),
        ExpectationCase(check: "finishedBy", holds: "requests: {a: {finishedBy: 100ms}}", fails: "requests: {a: {finishedBy: 99ms}}",
                        message: "expected by 99ms, finished at 100ms"),
        ExpectationCase(check: "bodyContains", holds: "requests: {a: {bodyContains: '\"name\":\"Ada\"'}}",
                        fails: "requests: {a: {bodyContains: Bob}}", message: "the body (\(body.utf8.count) bytes) does not contain 'Bob'"),
        ExpectationCase(check: "json", holds: "requests: {a: {json: [{path: name, equals: Ada}, {path: 'items[0]', equals: {id: 7}}]}}",
                        fails: "requests: {a: {json: [{path: 'items[0].id', equals: 8}]}}", message: "items[0].id: expected 8, got 7"),
        ExpectationCase(check: "bodyBytes", holds: "requests: {a: {bodyBytes: \(body.utf8.count)}}", fails: "requests: {a: {bodyBytes: 0}}",
                        message: "expected 0 body bytes, got \(body.utf8.count)"),
        ExpectationCase(check: "exchanges", holds: "exchanges: {GET http://api.test/a: 1}", fails: "exchanges: {GET http://api.test/*: 2}",
                        message: "GET http://api.test/*: expected 2 exchanges, the network saw 1"),
    ]

    @Test("an expectation holds, then fails with its message (and the failure marks the lane)", arguments: cases)
    func expectation(_ expectation: ExpectationCase) throws {
        let holding = try run(Self.yaml(expectation.holds))
        #expect(holding.passed, "\(holding.failures)")
        #expect(holding.lane("a")?.passed == true)

        let failing = try run(Self.yaml(expectation.fails))
        #expect(failing.failures.count == 1)
        let failure = try #require(failing.failures.first)
        #expect(failure.kind == .expectation)
        #expect(failure.check == expectation.check)
        #expect(failure.message == expectation.message)
        #expect(failure.request == (expectation.check == "exchanges" ? nil : "a"))
        if failure.request != nil {
            #expect(failing.lane("a")?.passed == false)
            #expect(failure.description == "expectation a \(expectation.check): \(expectation.message)")
        }
        // What `tapedeck run` prints: the failure and the line that reproduces it.
        let text = OutcomeText(failing).render()
        #expect(text.contains("✗ \(failure.description)"))
        #expect(failing.reproduction.hasPrefix("tapedeck run "))
        #expect(failing.reproduction.hasSuffix("Files/parsing/inline.yaml --seed 1"))
        #expect(text.contains("reproduce: \(failing.reproduction)"))
    }

    @Test("an expectation on a step applies to every repeat; on one repeat, to that one only")
    func repeats() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, responses: [{status: 200}, {status: 503}]}]}
            script: [{request: GET http://api.test/a, name: a, repeat: 3}]
            expect:
              requests:
                a: {status: 200}
                a#1: {status: 503}
            """)
        #expect(outcome.failures.map(\.description) == [
            "expectation a#2 status: expected 200, got 503", "expectation a#3 status: expected 200, got 503",
            "expectation a#1 status: expected 503, got 200",
        ])
    }

    @Test("a failed request's status expectation reports the error it ended with")
    func statusOfAFailedRequest() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: refused}]
            expect: {requests: {a: {status: 200}}}
            """)
        #expect(outcome.failures.map(\.message) == ["expected 200, got no response (cannotConnect)"])
    }

    @Test("an expectation on a step covers that step and its repeats only, not another step that happens to be named x#7")
    func expectationCoversItsOwnRepeats() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - {request: GET http://api.test/a, name: x, repeat: 2}
              - {request: GET http://api.test/missing, name: "x#7"}
              - {request: GET http://api.test/missing, name: "x#beta"}
            expect: {requests: {x: {status: 200}}}
            """)
        #expect(outcome.passed, "\(outcome.failures.map(\.message))")
        #expect(outcome.request("x#7").status == nil, "the other step did fail")
    }

    @Test("a 401 that came whole, then a retrier that failed to recover (a refused token refresh), is said so, not called a failed transfer")
    func statusThenRetryFailed() throws {
        let outcome = try run("""
            traffic:
              stubs: [{match: GET http://api.test/a, status: 401, body: "expired"}, {match: POST http://api.test/token, fail: cannotConnectToHost}]
              auth: {token: POST http://api.test/token, protect: GET http://api.test/a}
            client: {auth: true, validate: true}
            script: [{request: GET http://api.test/a, name: a}]
            expect: {requests: {a: {status: 200}}}
            """)
        #expect(outcome.failures.map(\.message).contains { $0.hasPrefix("expected 200, got 401, then the retry failed") }, "\(outcome.failures.map(\.message))")
    }

    @Test("a status whose body was cut off does not meet a status expectation; the message says how the transfer ended")
    func statusOfACutTransfer() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a, body: \(textBody(400))}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: reset, afterBytes: 100}]
            expect: {requests: {a: {status: 200}}}
            """
        let cut = try run(yaml)
        #expect(cut.request("a").status == 200 && cut.request("a").error == .connectionLost)
        #expect(cut.failures.map(\.message) == ["expected 200, got a 200 head, then the transfer failed (connectionLost)"])
        let whole = try run(yaml.replacingOccurrences(of: "afterBytes: 100", with: "afterBytes: 100000"))
        #expect(whole.passed)
    }

    @Test("a request cancelled during a retry's backoff is said to be cancelled after its last answer, not to have failed a transfer")
    func statusOfARequestCancelledInBackoff() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, status: 503}]}
            client: {validate: true, retry: {limit: 2, statuses: [503]}}
            script:
              - {request: GET http://api.test/a, name: a}
              - {cancel: a, during: backoff}
            expect: {requests: {a: {status: 200}}}
            """)
        #expect(outcome.request("a").error == .cancelled)
        #expect(outcome.failures.map(\.message) == ["expected 200, got 503, then the request was cancelled"])
    }
}

@Suite("Invariants: what every run checks, each provoked where a scenario can provoke it")
struct InvariantTests {
    @Test("noStall and completesOnce: a run that stops before its requests end names what is still pending")
    func stalledRun() throws {
        // A step limit stands in for a run that would never go idle (the runner's own guard).
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, latency: 10s}]}
            script: [{request: GET http://api.test/a, name: a}]
            expect: {requests: {a: {finishedBy: 20s}}}
            """, options: ScenarioRunner.Options(maxSteps: 20))
        #expect(!outcome.passed)
        let stall = try #require(outcome.failures("noStall").first)
        #expect(stall.kind == .invariant && stall.request == nil && !stall.message.isEmpty)
        // It says what to look for, not a knob a scenario file or the CLI does not have
        #expect(stall.message.contains("without becoming idle") && stall.message.contains("reschedules itself forever")
                && !stall.message.contains("maxSteps"), "\(stall.message)")
        let once = try #require(outcome.failures("completesOnce").first)
        #expect(once.request == "a")
        #expect(once.message.hasPrefix("its completion handler never ran (still pending at t="))
        #expect(outcome.failures("finishedBy").first?.message == "expected by 20s, never finished")
        #expect(outcome.request("a").end == nil)
        #expect(OutcomeText(outcome).render().contains("never"))
        // A leaked URLProtocol is not reported for a run that was stopped (its tasks are still live).
        #expect(outcome.failures("noLeakedProtocol").isEmpty)
    }

    @Test("queueRules: the user's own interceptor assuming it runs on the app's queue breaks a queue rule")
    func queueRules() throws {
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: a}]
            """)
        let broken = try ScenarioRunner().run(scenario, seed: 1) { world in
            Session(provider: world.harness, scheduler: world.scheduler, interceptor: AppQueueAssuming(appQueue: world.appQueue))
        }
        let violation = try #require(broken.failures("queueRules").first)
        #expect(violation.kind == .invariant)
        #expect(violation.message.contains("scenario.app"), "\(violation.message)")
        #expect(broken.request("a").status == 200)

        let fine = try ScenarioRunner().run(scenario, seed: 1) { world in
            Session(provider: world.harness, scheduler: world.scheduler)
        }
        #expect(fine.passed, "\(fine.failures)")
    }

    @Test("noLedgerAnomaly: an anomaly fails the run unless the scenario allows it; allowing another does not help")
    func ledgerAnomaly() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: metrics, delivery: missing}]
            """
        let failing = try run(yaml)
        #expect(failing.failures.map(\.description) == [
            "invariant a noLedgerAnomaly: metricsMissing (allow it with expect.allowAnomalies if the scenario provokes it)",
        ])
        #expect(!(try run(yaml + "\nexpect: {allowAnomalies: [duplicateMetrics]}").passed))
        #expect(try run(yaml + "\nexpect: {allowAnomalies: [metricsMissing]}").passed)
    }

    @Test("every queue layout and request setup runs retries, cancels and faults without breaking a queue rule, to the same ends",
          arguments: ["alamofire", "suppliedRoot", "separateSerialization"], ["lazy", "eager"])
    func queueLayouts(_ queues: String, _ setup: String) throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, latency: 10ms, json: {ok: true}}]}
            client: {queues: \(queues), setup: \(setup), retry: {limit: 2, scale: 0.1}, validate: true}
            script:
              - {request: GET http://api.test/a, name: a, repeat: 4}
              - {cancel: a#4, during: backoff}
            faults: [{kind: status, name: busy, status: 503, attempts: 1}]
            expect:
              requests:
                a#1: {status: 200, attempts: 2, finishedBy: 120ms}
                a#4: {error: cancelled}
            """)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.failures("queueRules").isEmpty)
        #expect(outcome.requests.map(\.endNanoseconds) == [120_000_000, 120_000_000, 120_000_000, 60_000_000])
    }

    @Test("a JSON path reaches a key holding a dot or a bracket with [\"key\"] (or ['key']); a malformed one is a load error")
    func quotedKeysInPaths() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, body: '{"meta":{"user.name":"Ada","a[1]":2},"list":[{"x.y":3}]}'}]}
            script: [{request: GET http://api.test/a, name: a}]
            expect:
              requests:
                a: {json: [{path: 'meta["user.name"]', equals: Ada}, {path: "meta['a[1]']", equals: 2}, {path: 'list[0]["x.y"]', equals: 3}]}
            """)
        #expect(outcome.passed, "\(outcome.failures)")
        for bad in [#"meta["user.name"#, "meta..a", ".a", "a.", "items[x]", "items[0]x", "a]"] {
            #expect(parseError("""
                traffic: {stubs: [{url: http://api.test/a, json: {}}]}
                script: [{request: GET http://api.test/a, name: a}]
                expect: {requests: {a: {json: {path: '\(bad)', equals: 1}}}}
                """) != nil, "\(bad)")
        }
    }

    @Test("every fixture holds the invariants no file can break (no leaked URLProtocol, no illegal transition)")
    func unbreakableInvariants() throws {
        for file in fixtureScenarios {
            let outcome = try ScenarioRunner().run(try Scenario.load(file), seed: 3)
            #expect(outcome.failures.filter { $0.kind == .invariant }.isEmpty, "\(file.lastPathComponent): \(outcome.failures)")
        }
    }
}

/// A user's interceptor that wrongly assumes it is called on the app's queue.
private struct AppQueueAssuming: RequestInterceptor {
    let appQueue: SimulatedQueue

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        appQueue.preconditionCurrent()
        completion(.success(urlRequest))
    }
}
