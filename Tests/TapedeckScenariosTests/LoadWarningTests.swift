import Foundation
import Testing
import TapedeckScenarios

/// What loads but can never take effect is a warning (file, line, column, key), not an error; and a
/// cut past the body is no firing.
@Suite("Scenario files: what can never take effect is a warning")
struct LoadWarningTests {
    private func warnings(_ yaml: String) throws -> [String] {
        ScenarioRunner().warnings(for: try parse(yaml, file: "warn.yaml"))
    }

    @Test("a fault route that matches no request of the script is named with its line, column and key")
    func routeMatchesNothing() throws {
        // Given a fault whose route has a typo (feeds for feed)
        let found = try warnings("""
            traffic: {stubs: [{match: "GET http://feed.test/v1/feed*", json: {}}]}
            script:
              - request: GET http://feed.test/v1/feed?page=2
            faults:
              - name: busy
                kind: status
                status: 503
                route: GET http://feed.test/v1/feeds?page=2
            """)
        // Then one warning points at faults[0].route
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("warn.yaml:8:12: faults[0].route: 'GET http://feed.test/v1/feeds?page=2' matches no request of the script; it can never fire") == true,
                "\(found)")
    }

    @Test("a bare number of 10 or more where a duration goes is read as seconds with a warning at its place; with a unit, or under 10, it is not")
    func bareSeconds() throws {
        let found = try warnings("""
            traffic: {stubs: [{url: http://api.test/a, latency: 200, json: {}}]}
            script:
              - {request: GET http://api.test/a, at: 2}
              - {request: GET http://api.test/a, name: b, at: 30s}
              - {request: GET http://api.test/a, name: c, at: 12.5}
            """)
        #expect(found == [
            "warn.yaml:1:53: traffic.stubs[0].latency: 200 is read as 200 seconds (a bare number is seconds) — write 200ms for milliseconds, or 200s to say seconds and silence this",
            "warn.yaml:5:51: script[2].at: 12.5 is read as 12.5 seconds (a bare number is seconds) — write 12.5ms for milliseconds, or 12.5s to say seconds and silence this",
        ], "\(found)")
        // Keys that count in seconds where they come from take a bare number silently
        #expect(try warnings("""
            traffic: {stubs: [{url: http://api.test/a, json: {}}]}
            client: {timeouts: {request: 30, resource: 600}, retry: {honourRetryAfter: true, retryAfterLimit: 3600}}
            script: [{request: GET http://api.test/a}]
            faults: [{kind: status, status: 503, retryAfter: 120}]
            """).isEmpty)
        // And the value is seconds all the same
        #expect(try parse("traffic: {stubs: [{url: http://api.test/a, json: {}}]}\nscript: [{request: GET http://api.test/a, at: 12}]").requests[0].start == .seconds(12))
    }

    @Test("an expected attempt count past what the retry limit or the retried methods allow is a warning at its key; one within it is not")
    func attemptsThatCannotBeReached() throws {
        func file(retry: String, method: String = "GET", attempts: String) -> String {
            """
            traffic: {stubs: [{url: http://api.test/a, status: 503}]}
            client: {retry: \(retry)}
            script: [{request: \(method) http://api.test/a, name: a}]
            expect:
              requests:
                a: {attempts: \(attempts)}
            """
        }
        let past = try warnings(file(retry: "{limit: 1}", attempts: "5"))
        #expect(past == ["warn.yaml:6:19: expect.requests.a.attempts: the client retries at most 1 time, so 'a' makes at most 2 attempts "
                         + "and never 5; this expectation can never hold — raise client.retry.limit, or expect at most 2"], "\(past)")
        let post = try warnings(file(retry: "{limit: 3}", method: "POST", attempts: "2-4"))
        #expect(post.first?.contains("'a' is a POST, which client.retry does not retry") == true, "\(post)")
        #expect(try warnings(file(retry: "{limit: 3}", attempts: "2-4")).isEmpty)
        #expect(try warnings(file(retry: "false", attempts: "1")).isEmpty)
    }

    @Test("a cancel during a backoff and a fault on attempt 2 of a POST the retry policy's methods leave out are warnings; with POST among the methods they are not")
    func methodsTheClientDoesNotRetry() throws {
        func file(_ retry: String) -> String {
            """
            traffic: {stubs: [{match: POST http://api.test/orders, status: 201}]}
            client: {validate: true, retry: \(retry)}
            script:
              - {request: POST http://api.test/orders, json: {item: 1}}
              - {cancel: orders, during: backoff}
            faults:
              - {name: second, kind: status, status: 503, route: POST http://api.test/orders, attempts: 2}
            """
        }
        let found = try warnings(file("true"))
        #expect(found.count == 2, "\(found)")
        #expect(found.first?.contains("script[1].during: 'orders' is a POST, which client.retry does not retry") == true, "\(found)")
        #expect(found.last?.contains("faults[0].attempts: the requests its route matches are POSTs") == true, "\(found)")
        #expect(try warnings(file("{methods: [POST]}")).isEmpty)
    }

    @Test("the warning's example is the script's request most like the route, not its first")
    func exampleIsTheClosestRequest() throws {
        let found = try warnings("""
            traffic: {stubs: [{match: "*", json: {}}]}
            script:
              - request: GET http://api.test/json
              - request: GET http://api.test/headers
              - request: GET http://api.test/anything/items?a=1&b=2
            faults:
              - {name: typo, kind: status, status: 503, route: GET http://api.test/header}
              - {name: order, kind: status, status: 503, route: GET http://api.test/anything/item?b=2&a=1}
            """)
        #expect(found.count == 2)
        #expect(found.first?.contains("e.g. 'GET http://api.test/headers'") == true, "\(found)")
        #expect(found.last?.contains("e.g. 'GET http://api.test/anything/items?a=1&b=2'") == true, "\(found)")
    }

    @Test("a route reached only through a stub's redirect, or the token endpoint the client refreshes at, is no warning")
    func redirectAndTokenRoutes() throws {
        let found = try warnings("""
            traffic:
              stubs:
                - {match: GET http://api.test/old, status: 302, headers: {Location: /new}}
                - {match: GET http://api.test/new, json: {}}
                - {match: GET http://api.test/me, json: {}}
              auth: {token: POST http://auth.test/token, protect: [http://api.test/me]}
            client: {auth: true}
            script:
              - request: GET http://api.test/old
              - request: GET http://api.test/me
            faults:
              - {name: moved, kind: connectionLost, route: GET http://api.test/new}
              - {name: refresh, kind: connectionLost, route: POST http://auth.test/token}
              - {name: direct, kind: connectionLost, route: http://api.test/old}
            """)
        #expect(found.isEmpty, "\(found)")
    }

    @Test("a cancel during a backoff the client never waits in is a warning; with enough retries it is none")
    func cancelDuringBackoff() throws {
        let script = """
            traffic: {stubs: [{match: "*", json: {}}]}
            script:
              - request: GET http://api.test/items
              - cancel: items
                during: backoff#2
            """
        let none = try warnings(script)
        #expect(none.count == 1)
        #expect(none.first?.contains(":5:13: script[1].during: the client does not retry, so 'items' never waits in a backoff") == true, "\(none)")
        let one = try warnings(script + "\nclient: {retry: {limit: 1}}")
        #expect(one.first?.contains("the client retries at most 1 time, so 'items' never waits for retry 2") == true, "\(one)")
        #expect(try warnings(script + "\nclient: {retry: {limit: 2}}").isEmpty)
    }

    @Test("a cancel at an attempt, and a fault on attempts, past the client's retry limit are warnings; within it, or with client.auth, none")
    func attemptsPastTheRetryLimit() throws {
        let script = """
            traffic: {stubs: [{match: "*", status: 503}]}
            script:
              - request: GET http://api.test/items
              - cancel: items
                atAttempt: 5
            faults:
              - {name: late, kind: status, status: 500, attempts: 7-9}
              - {name: some, kind: status, status: 500, attempts: [1, 7]}
            """
        // Given one retry: at most two attempts
        let one = try warnings(script + "\nclient: {retry: {limit: 1}}")
        #expect(one.count == 2, "\(one)")
        #expect(one.first?.contains(":5:16: script[1].atAttempt: the client retries at most 1 time, so 'items' makes at most 2 attempts "
                                    + "and never reaches attempt 5; this cancel can never happen — raise client.retry.limit, or cancel at an earlier attempt") == true,
                "\(one)")
        #expect(one.last?.contains(":7:55: faults[0].attempts: the client retries at most 1 time, so no request makes more than 2 attempts "
                                   + "and attempts 7-9 never come; this fault can never fire") == true, "\(one)")
        // Without retry: the same two, said so
        let none = try warnings(script)
        #expect(none.count == 2 && none.first?.contains("the client does not retry, so 'items' makes at most 1 attempt and never reaches attempt 5") == true,
                "\(none)")
        // With enough retries, or with refreshes that retry too, nothing
        #expect(try warnings(script + "\nclient: {retry: {limit: 8}}").isEmpty)
        let authenticated = script.replacingOccurrences(of: "traffic: {stubs: [{match: \"*\", status: 503}]}", with: """
            traffic:
              stubs: [{match: "*", status: 503}]
              auth: {token: POST http://auth.test/token, protect: [http://api.test/items]}
            client: {auth: true}
            """)
        #expect(try warnings(authenticated).isEmpty)
    }

    @Test("warnings come in file order, whatever check found them")
    func warningsInFileOrder() throws {
        // A cancel during a backoff that never happens (line 4), before a fault route that matches nothing (line 7)
        let found = try warnings("""
            traffic: {stubs: [{match: "GET http://feed.test/v1/feed", json: {}}]}
            script:
              - {request: GET http://feed.test/v1/feed, name: items}
              - {cancel: items, during: backoff}
            faults:
              - name: busy
                kind: status
                status: 503
                route: GET http://feed.test/v1/feeds
            """)
        #expect(found.count == 2, "\(found)")
        #expect(found.first?.hasPrefix("warn.yaml:4:") == true && found.last?.hasPrefix("warn.yaml:9:") == true, "\(found)")
    }

    @Test("a reset or truncation at or past the body's length is not listed among the faults that fired; one short of it is")
    func cutPastTheBodyIsNoFiring() throws {
        // Given a 100-byte body and cuts after 100 and 99 bytes
        func outcome(_ fault: String) throws -> Outcome {
            try run("""
                traffic: {stubs: [{url: http://api.test/a, body: \(String(repeating: "x", count: 100))}]}
                script: [{request: GET http://api.test/a, name: a}]
                faults: [\(fault)]
                """)
        }
        // When each runs
        let past = try outcome("{kind: truncate, name: cut, afterBytes: 100}")
        let reset = try outcome("{kind: reset, name: drop, afterBytes: 5000}")
        let resetAtEnd = try outcome("{kind: reset, name: drop, afterBytes: 100}")
        let short = try outcome("{kind: truncate, name: cut, afterBytes: 99}")
        // Then the cuts that cut nothing are no firing, and the body arrives whole
        #expect(past.faults.isEmpty && past.request("a").faults.isEmpty && past.request("a").bodyBytes == 100)
        #expect(reset.faults.isEmpty && reset.request("a").error == .none)
        // A reset after exactly the whole body too: the client has every byte its head announced.
        #expect(resetAtEnd.faults.isEmpty && resetAtEnd.request("a").error == .none && resetAtEnd.request("a").bodyBytes == 100,
                "\(resetAtEnd.request("a"))")
        #expect(short.faults.map(\.site) == ["cut"] && short.request("a").bodyBytes == 99)
    }

    @Test("a cut that cuts nothing leaves the answer to the sites after it: a reset at the body's end, then a 500, gives the 500")
    func cutPastTheBodyDoesNotShadow() throws {
        let outcome = try run("""
            traffic: {stubs: [{match: GET http://api.test/small, latency: 10ms, body: "0123456789"}]}
            script: [{request: GET http://api.test/small, name: small}]
            faults:
              - {name: noop-reset, kind: reset, afterBytes: 10}
              - {name: real-status, kind: status, status: 500}
            """)
        #expect(outcome.request("small").status == 500, "\(outcome.request("small"))")
        #expect(outcome.faults.map(\.site) == ["real-status"], "\(outcome.faults)")
        // and a cut one byte short still decides, as the first site that fires
        let short = try run("""
            traffic: {stubs: [{match: GET http://api.test/small, latency: 10ms, body: "0123456789"}]}
            script: [{request: GET http://api.test/small, name: small}]
            faults:
              - {name: short-reset, kind: reset, afterBytes: 9}
              - {name: real-status, kind: status, status: 500}
            """)
        #expect(short.faults.map(\.site) == ["short-reset"] && short.request("small").status == 200, "\(short.faults)")
    }

    @Test("a fault whose effect the attempt never reached is not listed: a status or a cut behind a head that came after the timeout, a cut the body never reached")
    func unreachedFaultsAreNoFiring() throws {
        func outcome(timeouts: String, faults: String) throws -> Outcome {
            try run("""
                traffic: {stubs: [{url: http://api.test/a, body: \(String(repeating: "x", count: 100))}]}
                client: {timeouts: \(timeouts)}
                script: [{request: GET http://api.test/a, name: a}]
                faults: [\(faults)]
                """)
        }
        let lateStatus = "{kind: slowFirstByte, name: late, delay: 5s}, {kind: status, name: teapot, status: 418}"
        let lateCut = "{kind: slowFirstByte, name: late, delay: 5s}, {kind: reset, name: cut, afterBytes: 50}"
        // When the head is due after the request timeout
        let timedOut = try outcome(timeouts: "{request: 1s}", faults: lateStatus)
        let timedOutCut = try outcome(timeouts: "{request: 1s}", faults: lateCut)
        // Then only the delay, which made it late, fired: the status and the reset never acted
        #expect(timedOut.request("a").error == .timedOut, "\(timedOut.request("a"))")
        #expect(timedOut.faults.map(\.site) == ["late"] && timedOut.request("a").faults.count == 1, "\(timedOut.faults)")
        #expect(timedOutCut.faults.map(\.site) == ["late"] && timedOutCut.request("a").faults.count == 1, "\(timedOutCut.faults)")
        // With a timeout the head beats, both act
        let slowTeapot = try outcome(timeouts: "{request: 10s}", faults: lateStatus)
        #expect(slowTeapot.request("a").status == 418 && slowTeapot.faults.map(\.site) == ["late", "teapot"], "\(slowTeapot.faults)")
        let slowCut = try outcome(timeouts: "{request: 10s}", faults: lateCut)
        #expect(slowCut.request("a").error == .connectionLost && slowCut.request("a").bodyBytes == 50, "\(slowCut.request("a"))")
        #expect(slowCut.faults.map(\.site) == ["late", "cut"], "\(slowCut.faults)")
        // A body at 10 bytes a second meets the 2 s resource timeout before a reset at 50 bytes
        let throttled = try outcome(timeouts: "{resource: 2s}", faults: "{kind: bandwidth, name: slow, bytesPerSecond: 10}, {kind: reset, name: cut, afterBytes: 50}")
        #expect(throttled.request("a").error == .timedOut, "\(throttled.request("a"))")
        #expect(throttled.request("a").errorDetail?.contains("timed out (the resource timeout, 2s, passed)") == true)
        #expect(throttled.faults.map(\.site) == ["slow"], "\(throttled.faults)")
        // Behind a followed redirect, on the next hop's head: the same (the hop's own faults acted)
        let hop = try run("""
            traffic:
              stubs:
                - {url: http://api.test/old, status: 302, headers: {Location: http://api.test/new}, body: moved}
                - {url: http://api.test/new, body: hello}
            client: {timeouts: {request: 1s}}
            script: [{request: GET http://api.test/old, name: a}]
            faults:
              - {kind: latency, name: hop, delay: 100ms, route: GET http://api.test/old}
              - {kind: slowFirstByte, name: late, delay: 5s, route: GET http://api.test/new}
              - {kind: status, name: teapot, status: 418, route: GET http://api.test/new}
            """)
        #expect(hop.request("a").error == .timedOut && hop.faults.map(\.site) == ["hop", "late"], "\(hop.faults)")
        // and with time enough, it is the reset that ends it
        let cutThrottled = try outcome(timeouts: "{resource: 20s}", faults: "{kind: bandwidth, name: slow, bytesPerSecond: 10}, {kind: reset, name: cut, afterBytes: 50}")
        #expect(cutThrottled.faults.map(\.site) == ["slow", "cut"] && cutThrottled.request("a").bodyBytes == 50, "\(cutThrottled.faults)")
    }
}
