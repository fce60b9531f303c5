import Foundation
import Testing
import TapedeckScenarios

/// A scenario whose client is a Moya-style provider (`client.provider`, `- target:` steps): the
/// targets go through TapedeckProvider over the session the `client` section describes, on the
/// simulator, with the same faults, expectations and determinism as plain requests.
@Suite("Scenarios: a provider as the client")
struct ProviderScenarioTests {
    static let fixture = fixtureScenarios.first { $0.lastPathComponent == "provider-inflight.yaml" }!

    @Test("trackInflights: five callers of one endpoint share its exchanges under every seed; a cancelled caller leaves the others alone")
    func sharedFlights() throws {
        let scenario = try Scenario.load(Self.fixture)
        var resets = 0
        for seed in UInt64(1)...40 {
            let outcome = try ScenarioRunner().run(scenario, seed: seed)
            #expect(outcome.passed, "seed \(seed): \(outcome.failures.map(\.description))")
            let callers: [RequestOutcome] = (1...5).map { outcome.request("items#\($0)") }
            #expect(Set(callers.map { $0.body }).count == 1, "seed \(seed): every caller gets the same body")
            #expect(callers.allSatisfy { $0.status == 200 && $0.endNanoseconds == callers[0].endNanoseconds })
            #expect(outcome.request("leaving").error == .cancelled)
            #expect(outcome.request("leaving").endNanoseconds == 1_000_000)
            // One shared request: its retries are the only extra exchanges (the reset hits attempt 1).
            let reset = outcome.faults.contains { $0.site == "flaky-list" }
            #expect(outcome.request("items#1").attempts == (reset ? 2 : 1))
            if reset { resets += 1 }
        }
        #expect(resets > 5 && resets < 35, "the reset site is enabled per seed (\(resets) of 40)")
    }

    @Test("the access-token plugin's token reaches the server: the token server accepts it, and rejects another")
    func accessToken() throws {
        func scenario(token: String) -> String {
            """
            traffic:
              auth: {token: POST http://api.test/token, protect: GET http://api.test/me, initialToken: good}
              stubs: [{url: http://api.test/me, json: {name: Ada}}]
            client:
              provider:
                baseURL: http://api.test
                plugins: [{accessToken: \(token)}]
                targets:
                  me: {path: /me, auth: bearer}
                  anonymous: {path: /me}
            script:
              - target: me
              - target: anonymous
            """
        }
        let accepted = try run(scenario(token: "good"))
        #expect(accepted.request("me").status == 200)
        #expect(accepted.request("anonymous").status == 401, "a target without 'auth' gets no token")
        let rejected = try run(scenario(token: "stale"))
        #expect(rejected.request("me").status == 401)
    }

    @Test("a delayed stub answers at exactly its delay on the virtual clock, under every seed, and never reaches the network")
    func delayedStub() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/zen, status: 500}]}
            client:
              provider:
                baseURL: http://api.test
                stub: {delayed: 5s}
                targets:
                  zen: {path: /zen, sample: {status: 200, body: calm}}
                  soon: {path: /zen, stub: immediate, sample: {status: 204}}
                  live: {path: /zen, stub: never}
            script:
              - target: zen
                at: 250ms
              - target: soon
              - target: live
            expect:
              exchanges:
                GET http://api.test/zen: 1
            """
        for seed in UInt64(1)...20 {
            let outcome = try run(yaml, seed: seed)
            #expect(outcome.passed, "seed \(seed): \(outcome.failures.map(\.description))")
            #expect(outcome.request("zen").endNanoseconds == 5_250_000_000)
            #expect(outcome.request("zen").body == Data("calm".utf8))
            #expect(outcome.request("soon").status == 204 && outcome.request("soon").endNanoseconds == 0)
            #expect(outcome.request("live").status == 500, "only the unstubbed target goes to the network")
        }
    }

    @Test("validation and stubbed failures come out as the session's error kinds")
    func errors() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/gone, status: 404}]}
            client:
              provider:
                baseURL: http://api.test
                targets:
                  gone: {path: /gone, validate: successCodes}
                  lenient: {path: /gone}
                  offline: {path: /x, stub: immediate, sample: {fail: notConnectedToInternet}}
                  picky: {path: /x, stub: immediate, validate: [201], sample: {status: 200}}
            script:
              - target: gone
              - target: lenient
              - target: offline
              - target: picky
            """)
        #expect(outcome.request("gone").error == .validation && outcome.request("gone").status == 404)
        #expect(outcome.request("lenient").error == .none && outcome.request("lenient").status == 404)
        #expect(outcome.request("offline").error == .notConnected)
        #expect(outcome.request("picky").error == .validation && outcome.request("picky").status == 200)
    }

    @Test("a target's task: query parameters are in the URL the network sees, a JSON body is sent as JSON")
    func tasks() throws {
        let outcome = try run("""
            traffic:
              stubs:
                - {url: "http://api.test/search?page=2&q=tape", body: found}
                - {url: http://api.test/search, status: 400}
                - {match: POST http://api.test/orders, status: 201}
            client:
              provider:
                baseURL: http://api.test
                targets:
                  search: {path: /search, task: {query: {q: tape, page: 2}}}
                  order: {path: /orders, method: post, task: {json: {item: 1, gift: true}}}
            script:
              - target: search
              - target: order
            expect:
              requests:
                search: {status: 200, bodyContains: found}
                order: {status: 201}
            """)
        #expect(outcome.passed, "\(outcome.failures.map(\.description))")
    }

    @Test("cancels reach provider requests: at an instant, during a backoff, and at an attempt")
    func cancels() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/busy, status: 503}]}
            client:
              retry: {limit: 3}
              provider:
                baseURL: http://api.test
                targets:
                  busy: {path: /busy, validate: successCodes}
            script:
              - target: busy
                name: inBackoff
              - cancel: inBackoff
                during: backoff#2
              - target: busy
                name: atAttempt
              - cancel: atAttempt
                atAttempt: 3
            """
        for seed in UInt64(1)...10 {
            let outcome = try run(yaml, seed: seed)
            #expect(outcome.request("inBackoff").error == .cancelled)
            #expect(outcome.request("inBackoff").attempts == 2, "cancelled while waiting for its second retry")
            #expect(outcome.request("atAttempt").error == .cancelled)
            #expect(outcome.request("atAttempt").attempts == 2, "cancelled as its third attempt starts, before it is sent")
        }
    }

    @Test("the logger and activity plugins write into the trace, so the trace hash covers them")
    func pluginsInTrace() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a}]}
            client:
              provider:
                baseURL: http://api.test
                plugins: [activity, logger]
                targets:
                  a: {path: /a}
            script:
              - target: a
            """
        let (outcome, trace) = try ScenarioRunner().runKeepingTrace(try parse(yaml), seed: 3)
        let events = trace.map(\.event)
        #expect(events.contains("provider.activity") && events.contains("provider.log") && events.contains("provider.willSend"))
        let again = try ScenarioRunner().run(try parse(yaml), seed: 3)
        #expect(again.traceHash == outcome.traceHash)
        let quiet = try run(yaml.replacingOccurrences(of: "[activity, logger]", with: "[]"), seed: 3)
        #expect(quiet.traceHash != outcome.traceHash)
    }

    @Test("the logger plugin logs a transport error in one fixed form (userInfo keys sorted), so every run of a seed has one trace hash")
    func loggedErrorIsStable() throws {
        // Given a provider request with the logger plugin whose only attempt loses its connection
        let scenario = try parse("""
            traffic: {stubs: [{url: http://api.app.test/x, json: {ok: true}}]}
            client:
              provider:
                baseURL: http://api.app.test
                plugins: [logger]
                targets:
                  x: {path: /x}
            script:
              - target: x
            faults:
              - {name: drop, kind: connectionLost}
            """)
        // When it runs many times from one seed
        var hashes: Set<String> = []
        var errorLines: Set<String> = []
        for _ in 0..<12 {
            let (outcome, trace) = try ScenarioRunner().runKeepingTrace(scenario, seed: 1)
            hashes.insert(outcome.traceHash)
            errorLines.formUnion(trace.filter { $0.event == "provider.log" && $0.payload.contains("Error") }.map(\.payload))
        }
        // Then the error is logged as one line, with the NSError's userInfo keys in sorted order
        #expect(errorLines == ["""
            info: Error calling x: the URLSession task failed: Error Domain=NSURLErrorDomain Code=-1005 \
            UserInfo={NSErrorFailingURLKey=http://api.app.test/x, NSLocalizedDescription=tapedeck: network connection lost}
            """])
        #expect(hashes.count == 1)
    }

    @Test("bad provider files name the key and say what to do", arguments: [
        ("script: [{target: a}]\ntraffic: {stubs: [{url: http://api.test/a}]}", "a 'target:' step needs a provider"),
        ("""
         traffic: {stubs: [{url: http://api.test/a}]}
         client: {provider: {baseURL: http://api.test, targets: {items: {path: /items}}}}
         script: [{target: itesm}]
         """, "no target named 'itesm' — did you mean 'items'?"),
        ("""
         traffic: {stubs: [{url: http://api.test/a}]}
         client: {provider: {targets: {items: {path: /items}}}}
         script: [{target: items}]
         """, "target 'items' has no base URL"),
        ("""
         traffic: {stubs: [{url: http://api.test/a}]}
         client: {provider: {baseURL: http://api.test, stub: sometimes, targets: {a: {}}}}
         script: [{target: a}]
         """, "'sometimes'"),
        ("""
         traffic: {stubs: [{url: http://api.test/a}]}
         client: {provider: {baseURL: http://api.test, targets: {a: {task: {query: [1, 2]}}}}}
         script: [{target: a}]
         """, "'query' parameters must be a mapping"),
    ])
    func badFiles(yaml: String, message: String) {
        let error = parseError(yaml)
        #expect(error != nil)
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    @Test("a step naming a target that is in the file but unreadable gets no false 'no target' error; a misspelt one still does")
    func unreadableTargetIsNotMissing() throws {
        for targets in ["{items: {path: /items}}", "{items: [1], other: {path: /o}}", "{items: {path: [1]}}"] {
            let base = targets.contains("other") || targets.contains("[1]}") ? "baseURL: http://api.test, " : ""
            let error = try #require(parseError("""
                traffic: {stubs: [{url: http://api.test/a}]}
                client: {provider: {\(base)targets: \(targets)}}
                script: [{target: items}, {target: itmes}]
                """))
            #expect(!error.description.contains("no target named 'items'"), "\(error)")
            #expect(!error.description.contains("needs a provider"), "\(error)")
            #expect(error.description.contains("no target named 'itmes'") || error.description.contains("'itmes'"), "\(error)")
        }
    }
}
