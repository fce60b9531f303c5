import Foundation
import Testing
import TapedeckScenarios

/// The catalogue's response faults through the runner: cut and corrupted bodies, status
/// overrides with Retry-After, metrics order, duplicate completions and token expiry.
@Suite("Fault catalogue: reset, truncate, corrupt gzip, status + Retry-After, metrics, duplicate completion, token expiry")
struct FaultResponseTests {
    @Test("reset after N bytes: the N bytes are delivered first, then the connection is lost")
    func resetAfterBytes() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/report, body: \(textBody(10_000))}]}
            script: [{request: GET http://api.test/report, name: report}]
            faults: [{kind: reset, name: drop, afterBytes: 4KiB}]
            expect:
              requests:
                report: {error: connectionLost, bodyBytes: 4096}
            """)
        let request = outcome.request("report")
        #expect(request.error == .connectionLost)
        #expect(request.status == 200)
        #expect(request.result == "connectionLost after 200")
        #expect(request.bodyBytes == 4_096)
        #expect(request.body == Data(textBody(4_096).utf8))
        #expect(outcome.faults.map(\.site) == ["drop"])
        #expect(outcome.faults.first?.what == "responseHead: reset after 4096 bytes")
        #expect(outcome.timelineShowsFault("drop", on: "report"))
        #expect(outcome.passed, "\(outcome.failures)")
    }

    @Test("a body fault on a redirect fails the transfer there, as libcurl reads a redirect's body before following it; latency on it only delays the hop")
    func faultOnRedirect() throws {
        let yaml = """
            traffic:
              stubs:
                - {url: http://api.test/old, status: 302, headers: {Location: http://api.test/new}, body: \(textBody(200))}
                - {url: http://api.test/new, json: {moved: true}}
            script: [{request: GET http://api.test/old, name: hop}]
            faults: [{kind: reset, name: drop, afterBytes: 4, route: GET http://api.test/old}]
            """
        let broken = try run(yaml).request("hop")
        #expect(broken.error == .connectionLost && broken.status == 302, "\(broken.result)")
        let slowed = try run(yaml.replacingOccurrences(of: "{kind: reset, name: drop, afterBytes: 4,", with: "{kind: latency, name: drop, delay: 1s,"))
            .request("hop")
        #expect(slowed.error == .none && slowed.status == 200, "\(slowed.result)")
    }

    @Test("on a redirect, a cut at or past its body cuts nothing (the hop is followed, no fault listed), and a bandwidth slows the hop by its body's transfer time")
    func redirectBodyTiming() throws {
        let yaml = """
            traffic:
              stubs:
                - {url: http://api.test/old, status: 301, headers: {Location: http://api.test/new}, body: 12345}
                - {url: http://api.test/new, json: {moved: true}}
            script: [{request: GET http://api.test/old, name: hop}]
            faults: [FAULT]
            """
        // Given a reset after 1 KiB on every route, When a 5-byte redirect comes, Then it is followed whole
        let uncut = try run(yaml.replacingOccurrences(of: "FAULT", with: "{kind: reset, name: big, afterBytes: 1KiB}"))
        #expect(uncut.request("hop").status == 200 && uncut.request("hop").error == .none, "\(uncut.request("hop").result)")
        #expect(uncut.faults.isEmpty, "\(uncut.faults)")
        let truncated = try run(yaml.replacingOccurrences(of: "FAULT", with: "{kind: truncate, name: big, afterBytes: 5, route: GET http://api.test/old}"))
        #expect(truncated.request("hop").status == 200 && truncated.faults.isEmpty)
        // Given 1 byte per second on the redirect, Then its 5 bytes take 5 s before the hop
        let paced = try run(yaml.replacingOccurrences(of: "FAULT", with: "{kind: bandwidth, name: slow, bytesPerSecond: 1, route: GET http://api.test/old}"))
        #expect(paced.request("hop").status == 200)
        let end = try #require(paced.request("hop").endNanoseconds)
        #expect((5_000_000_000...5_100_000_000).contains(end), "ended at \(end) ns")
    }

    @Test("truncate: fewer bytes than Content-Length, then the error corelibs' libcurl reports")
    func truncate() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/report, body: \(textBody(10_000))}]}
            script: [{request: GET http://api.test/report, name: report}]
            faults: [{kind: truncate, name: cut, afterBytes: 1000}]
            """)
        let request = outcome.request("report")
        #expect(request.error == .transport)
        #expect(request.bodyBytes == 1_000)
        let detail = try #require(request.errorDetail)
        #expect(detail.contains("transfer closed with 9000 bytes remaining to read"), "\(detail)")
        #expect(outcome.faults.map(\.site) == ["cut"])
        #expect(outcome.timelineShowsFault("cut", on: "report"))
    }

    @Test("truncate and reset count bytes on the wire for a cassette body kept decoded but sent gzip (Content-Length 4116, 23157 decoded)")
    func cutsCountWireBytesOfDecodedCassetteBody() throws {
        // Given the api cassette's report: `_bodyForm: decoded`, Content-Encoding gzip, Content-Length 4116
        func report(_ fault: String) throws -> RequestOutcome {
            try run("""
                traffic: {cassette: {file: \(apiCassette.path), match: {url: ignoringQuery}}}
                script: [{request: GET http://api.shop.test/api/report, name: report}]
                faults: [\(fault)]
                """).request("report")
        }
        // When a truncation cuts it after 1000 bytes, or after 5000 (past its 4116 wire bytes), or a reset after 1 KiB
        let cut = try report("{kind: truncate, name: cut, afterBytes: 1000}")
        let past = try report("{kind: truncate, name: cut, afterBytes: 5000}")
        let reset = try report("{kind: reset, name: drop, afterBytes: 1KiB}")
        // Then the remainder is counted in wire bytes, a cut past the wire body changes nothing,
        // and the client holds the decoded bytes the delivered wire bytes stand for
        let detail = try #require(cut.errorDetail)
        #expect(detail.contains("transfer closed with 3116 bytes remaining to read"), "\(detail)")
        #expect(past.error == .none && past.status == 200 && past.bodyBytes == 23_157, "\(past.result)")
        #expect(reset.error == .connectionLost && reset.bodyBytes == 23_157 * 1_024 / 4_116, "\(reset.result) \(reset.bodyBytes)")
    }

    @Test("corrupt gzip: the head arrives, then the decoding error URLSession on Linux reports, and no body")
    func corruptGzip() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {items: [1, 2, 3]}}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: corruptGzip, name: garbled}]
            """)
        let request = outcome.request("a")
        #expect(request.error == .transport)
        #expect(request.bodyBytes == 0)
        let detail = try #require(request.errorDetail)
        // corelibs: URLError.unknown (-1) with libcurl's content-decoding message and zlib's reason.
        #expect(detail.contains("Code=-1 "), "\(detail)")
        #expect(detail.contains("Error while processing content unencoding: "), "\(detail)")
        #expect(outcome.faults.map(\.site) == ["garbled"])
        #expect(outcome.timelineShowsFault("garbled", on: "a"))
        // The same body, gzip-compressed intact by the stub, decodes fine.
        let intact = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {items: [1, 2, 3]}, gzip: true}]}
            script: [{request: GET http://api.test/a, name: a}]
            """)
        #expect(intact.request("a").body == Data(#"{"items":[1,2,3]}"#.utf8))
    }

    @Test("corrupt gzip of an answer with no body (a 204, an answer to HEAD) changes nothing: the request succeeds and no fault is listed")
    func corruptGzipWithoutABody() throws {
        let outcome = try run("""
            traffic:
              stubs:
                - {url: http://api.test/gone, status: 204}
                - {match: HEAD http://api.test/a, json: {items: [1, 2, 3]}}
            script:
              - {request: GET http://api.test/gone, name: gone}
              - {request: HEAD http://api.test/a, name: head}
            faults: [{kind: corruptGzip, name: garbled}]
            """)
        #expect(outcome.request("gone").status == 204 && outcome.request("gone").error == ErrorKind.none)
        #expect(outcome.request("head").status == 200 && outcome.request("head").error == ErrorKind.none)
        #expect(outcome.faults.isEmpty, "\(outcome.faults)")
    }

    /// A 503 (or 429) on the first attempt carrying Retry-After, a retry policy that may or may not honour it.
    private func retryAfter(status: Int, header: String, honour: Bool, at start: String = "0s") throws -> Outcome {
        try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            client:
              retry: {limit: 1, statuses: [\(status)], honourRetryAfter: \(honour)}
              validate: true
            script: [{request: GET http://api.test/a, name: a, at: \(start)}]
            faults: [{kind: status, name: busy, status: \(status), \(header), attempts: 1}]
            expect:
              requests:
                a: {status: 200, attempts: 2}
            """)
    }

    @Test("status override with Retry-After in seconds: honoured, the retry waits 3 s; ignored (Alamofire's default), 0.5 s",
          arguments: [503, 429])
    func retryAfterSeconds(_ status: Int) throws {
        let honoured = try retryAfter(status: status, header: "retryAfter: 3s", honour: true)
        #expect(honoured.passed, "\(honoured.failures)")
        #expect(honoured.request("a").endNanoseconds == 3_000_000_000)
        #expect(honoured.faults.first?.what == "responseHead: status \(status) [Retry-After: 3]")
        #expect(honoured.lane("a")?.spans.map(\.label) == ["\(status)", "", "200"])
        #expect(honoured.timelineShowsFault("busy", on: "a"))

        // The field carries whole seconds: a fraction rounds up, never down to an early retry.
        let fraction = try retryAfter(status: status, header: "retryAfter: 1500ms", honour: true)
        #expect(fraction.faults.first?.what == "responseHead: status \(status) [Retry-After: 2]")
        #expect(fraction.request("a").endNanoseconds == 2_000_000_000)

        let ignored = try retryAfter(status: status, header: "retryAfter: 3s", honour: false)
        #expect(ignored.passed, "\(ignored.failures)")
        #expect(ignored.request("a").endNanoseconds == 500_000_000)
        #expect(ignored.faults.map(\.site) == ["busy"])
    }

    @Test("status override with Retry-After as an HTTP date (against the response's Date): honoured, 2 s; ignored, 0.5 s; a fraction rounds up")
    func retryAfterDate() throws {
        let honoured = try retryAfter(status: 503, header: "retryAfterDate: 2s", honour: true)
        #expect(honoured.passed, "\(honoured.failures)")
        #expect(honoured.request("a").endNanoseconds == 2_000_000_000)
        let what = try #require(honoured.faults.first?.what)
        #expect(what.contains("Date: Thu, 01 Jan 2026 00:00:00 GMT"), "\(what)")
        #expect(what.contains("Retry-After: Thu, 01 Jan 2026 00:00:02 GMT"), "\(what)")

        let ignored = try retryAfter(status: 503, header: "retryAfterDate: 2s", honour: false)
        #expect(ignored.request("a").endNanoseconds == 500_000_000)

        // Whole seconds, as in `retryAfter`: 1.5 s rounds up to a date 2 s on (it was 1 s on: a
        // retry earlier than asked).
        let fraction = try retryAfter(status: 503, header: "retryAfterDate: 1500ms", honour: true)
        #expect(fraction.faults.first?.what.contains("Retry-After: Thu, 01 Jan 2026 00:00:02 GMT") == true, "\(fraction.faults)")
        #expect(fraction.request("a").endNanoseconds == 2_000_000_000)
    }

    @Test("retryAfterDate away from a whole second: Retry-After is the Date (now, rounded down) plus the wait, as a server writes it, and the client waits exactly that")
    func retryAfterDateIsDatePlusWait() throws {
        // Given a 503 asking for 5 s as an HTTP date, at t = 2.058 s
        let outcome = try retryAfter(status: 503, header: "retryAfterDate: 5s", honour: true, at: "2058ms")
        // Then Date is 00:00:02 and Retry-After 00:00:07 (not 00:00:08: now + 5 s rounded up)
        let what = try #require(outcome.faults.first?.what)
        #expect(what.contains("Date: Thu, 01 Jan 2026 00:00:02 GMT") && what.contains("Retry-After: Thu, 01 Jan 2026 00:00:07 GMT"), "\(what)")
        // And the retry comes 5 s after the 503
        #expect(outcome.request("a").endNanoseconds == 7_058_000_000)
    }

    @Test("Retry-After: 1.5 is not delay-seconds (digits only, RFC 9110): the honouring policy ignores it and backs off as usual")
    func fractionalRetryAfterIgnored() throws {
        // Given a stub's 503 with Retry-After 1.5, then a 200, and a policy honouring Retry-After
        let outcome = try run("""
            traffic:
              stubs:
                - url: http://api.test/a
                  responses:
                    - {status: 503, headers: {Retry-After: "1.5"}}
                    - {json: {ok: true}}
            client:
              retry: {limit: 1, honourRetryAfter: true}
              validate: true
            script: [{request: GET http://api.test/a, name: a}]
            """)
        // Then the retry waits the backoff (0.5 s), not 1.5 s
        #expect(outcome.request("a").status == 200 && outcome.request("a").attempts == 2)
        #expect(outcome.request("a").endNanoseconds == 500_000_000)
    }

    @Test("status override without a retry: the overridden status is what the user sees, headers added")
    func statusOverride() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            client: {validate: true}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: status, name: teapot, status: 418, headers: {X-Why: tea}}]
            """)
        #expect(outcome.request("a").status == 418)
        #expect(outcome.request("a").error == .validation)
        #expect(outcome.faults.first?.what == "responseHead: status 418 [X-Why: tea]")
    }

    @Test("metrics before, after, missing, duplicated: each request finishes once; missing and duplicated ones are ledger anomalies",
          arguments: [("before", nil), ("after", nil), ("missing", "metricsMissing"), ("duplicate", "duplicateMetrics")] as [(String, String?)])
    func metrics(_ delivery: String, _ anomaly: String?) throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            client: {metricsGrace: 50ms}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: metrics, name: m, delivery: \(delivery)}]
            """
        let outcome = try run(yaml)
        let request = outcome.request("a")
        #expect(request.status == 200 && request.handlerCalls == 1)
        #expect(outcome.faults.map(\.site) == ["m"])
        #expect(outcome.timelineShowsFault("m", on: "a"))
        if let anomaly {
            #expect(outcome.failures("noLedgerAnomaly").map(\.message).contains { $0.hasPrefix(anomaly) }, "\(outcome.failures)")
            #expect(outcome.failures("noLedgerAnomaly").first?.request == "a")
            let allowed = try run(yaml + "\nexpect: {allowAnomalies: [\(anomaly)]}")
            #expect(allowed.passed, "\(allowed.failures)")
        } else {
            #expect(outcome.passed, "\(outcome.failures)")
        }
        if delivery == "missing" {
            // The client stops waiting for the metrics after its grace period.
            #expect(request.endNanoseconds == 50_000_000)
        } else {
            #expect(request.endNanoseconds == 0)
        }
    }

    @Test("duplicate completion: the handler still runs once; the second callback is a ledger anomaly")
    func duplicateCompletion() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a, json: {ok: true}}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: duplicateCompletion, name: twice}]
            """
        let outcome = try run(yaml)
        #expect(outcome.request("a").handlerCalls == 1)
        #expect(outcome.request("a").status == 200)
        #expect(outcome.failures("completesOnce").isEmpty)
        #expect(outcome.failures("noLedgerAnomaly").map(\.message).contains { $0.hasPrefix("duplicateCompletion") }, "\(outcome.failures)")
        #expect(outcome.faults.map(\.site) == ["twice"])
        #expect(outcome.timelineShowsFault("twice", on: "a"))
        #expect(try run(yaml + "\nexpect: {allowAnomalies: duplicateCompletion}").passed)
    }

    @Test("token expiry: every token issued before the instant is rejected; the next request gets a 401, refreshes once, retries")
    func tokenExpiry() throws {
        let outcome = try run("""
            traffic:
              stubs: [{url: http://api.test/private/me, json: {name: Ada}}]
              auth: {token: POST http://api.test/token, protect: http://api.test/private/*}
            client: {auth: true, validate: true}
            script:
              - request: GET http://api.test/private/me
                name: before
              - request: GET http://api.test/private/me
                name: after
                at: 2s
                repeat: 2
            faults: [{kind: tokenExpiry, name: revoke, at: 1s}]
            expect:
              requests:
                before: {status: 200, attempts: 1}
                after: {status: 200, attempts: 2, json: [{path: name, equals: Ada}]}
              exchanges:
                POST http://api.test/token: 1
            """)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.faults.contains { $0.site == "revoke" && $0.timeNanoseconds == 1_000_000_000 && $0.request == nil })
        #expect(outcome.request("after#1").faults.contains { $0.hasPrefix("token rejected (401)") })
        #expect(outcome.request("before").faults.isEmpty)
        #expect(outcome.lane("token server")?.marks.map(\.label) == ["revoke: token server: every token expires"])
        #expect(outcome.lane("token refresh")?.result == "1×")
        // Without the expiry nothing is rejected.
        let calm = try run("""
            traffic:
              stubs: [{url: http://api.test/private/me, json: {name: Ada}}]
              auth: {token: POST http://api.test/token, protect: http://api.test/private/*}
            client: {auth: true}
            script: [{request: GET http://api.test/private/me, name: after, at: 2s}]
            """)
        #expect(calm.request("after").attempts == 1 && calm.lane("token refresh") == nil)

        // Refreshes are separate exchanges, not attempts of one request: no wait between them.
        let polling = try run("""
            traffic:
              stubs: [{url: http://api.test/me, latency: 100ms, json: {id: 7}}]
              auth: {token: POST http://api.test/token, protect: http://api.test/me, lifetime: 2500ms}
            client: {auth: true, validate: true}
            script: [{request: GET http://api.test/me, name: poll, repeat: 8, every: 1s}]
            """)
        let refreshes = try #require(polling.lane("token refresh"))
        #expect(refreshes.spans.count >= 2 && refreshes.spans.allSatisfy { $0.kind == .attempt }, "\(refreshes.spans)")
    }

    @Test("a lifetime with a fraction of a second reaches the client exactly (expires_in 0.4): one refresh, one attempt, no loop")
    func subsecondLifetime() throws {
        let outcome = try run("""
            traffic:
              stubs: [{url: http://api.test/me, latency: 10ms, json: {name: ada}}]
              auth: {token: POST http://api.test/token, protect: http://api.test/me, lifetime: 400ms}
            client: {auth: true, validate: true}
            script: [{request: GET http://api.test/me, name: me, at: 1s}]
            """)
        #expect(outcome.request("me").status == 200 && outcome.request("me").attempts == 1, "\(outcome.request("me"))")
        #expect(outcome.lane("token refresh")?.spans.count == 1)
    }

    @Test("a token refresh that fails after a 401 ends the request with kind retry (the retrier failed), not the token endpoint's error")
    func refreshFails() throws {
        let outcome = try run("""
            traffic:
              stubs: [{url: http://api.test/private/me, json: {name: Ada}}]
              auth: {token: POST http://api.test/token, protect: http://api.test/private/*}
            client: {auth: true, validate: true}
            script: [{request: GET http://api.test/private/me, name: me, at: 1s}]
            faults:
              - {kind: tokenExpiry, name: revoke, at: 0s}
              - {kind: refused, name: down, route: POST http://api.test/token}
            """)
        #expect(outcome.request("me").error == .retry)
        #expect(outcome.request("me").status == 401)
        #expect(outcome.faults.map(\.site).contains("down"))
        // and the refused refresh is marked on the refreshes' lane
        #expect(outcome.lane("token refresh")?.marks.contains { $0.kind == .fault && $0.label.hasPrefix("down:") } == true,
                "\(String(describing: outcome.lane("token refresh")))")
    }

    @Test("a stub's fail comes after its latency, as a response would")
    func stubFailureLatency() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, latency: 1s, responses: [{fail: timedOut}, {status: 200}]}]}
            client: {retry: {limit: 1, errorCodes: [timedOut]}}
            script: [{request: GET http://api.test/a, name: a}]
            """)
        // 1 s to the timeout, the 0.5 s backoff, 1 s to the 200.
        #expect(outcome.request("a").status == 200 && outcome.request("a").attempts == 2)
        #expect(outcome.request("a").endNanoseconds == 2_500_000_000)
        #expect(outcome.lane("a")?.spans.first.map { $0.endNanoseconds - $0.startNanoseconds } == 1_000_000_000)
    }
}
