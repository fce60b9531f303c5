import Foundation
import Testing
@testable import TapedeckScenarios

/// What `tapedeck run` prints: why requests failed, durations, result labels, the fired faults in
/// time order, a run of no virtual time, and a provider target's whole URL.
@Suite("Reports: the text outcome")
struct OutcomeTextTests {
    @Test("a failed check is followed by why its request failed (the network's own words), once per request")
    func whyUnderCheck() throws {
        // Given a stub whose method does not match the request, and a status expected
        let outcome = try run("""
            traffic:
              stubs: [{match: POST http://api.test/items, json: {}}]
            script: [{request: GET http://api.test/items}]
            expect:
              requests:
                items: {status: 200, bodyBytes: 2}
            """)
        // When the outcome is printed
        let lines = OutcomeText(outcome).render().split(separator: "\n").map(String.init)
        // Then under the first failed check of `items` comes the reason, and only once
        let check = try #require(lines.firstIndex { $0.hasPrefix("✗ expectation items status:") })
        #expect(lines[check + 1] == "    why (transport): no route: GET http://api.test/items: route * */*: stub POST http://api.test/items does not match",
                "\(lines)")
        #expect(lines.filter { $0.contains("why (") }.count == 1)
    }

    @Test("why: an NSError inside a longer description gives its localized description, with the text around it kept when the description goes on after it", arguments: [
        ("retry failed: Error Domain=TapedeckClient.ClientError Code=8 UserInfo={NSLocalizedDescription=validation failed: code(503)} (original error: code(401))",
         "retry failed: validation failed: code(503) (original error: code(401))"),
        ("the task failed: Error Domain=NSURLErrorDomain Code=-1001 UserInfo={NSErrorFailingURLKey=http://a.test/t, NSLocalizedDescription=tapedeck: timed out, NSUnderlyingError=x} (original error: code(401))",
         "the task failed: timed out (original error: code(401))"),
        ("the task failed: Error Domain=NSURLErrorDomain Code=-1002 UserInfo={NSErrorFailingURLKey=http://a.test/t, NSLocalizedDescription=tapedeck: no route}",
         "tapedeck: no route"),
        ("Error Domain=NSURLErrorDomain Code=-1004 UserInfo={NSLocalizedDescription=could not connect}", "could not connect"),
        ("no NSError here", "no NSError here"),
    ])
    func whyReadsNestedErrors(detail: String, expected: String) {
        #expect(OutcomeText.reason(detail) == expected)
    }

    @Test("an attempt is drawn failed as the client saw it: a 404 its request accepts is not, a 200 that failed validation is, a retried one is")
    func attemptsFailAsTheClientSaw() throws {
        let outcome = try run("""
            traffic:
              stubs:
                - {match: GET http://api.test/missing, status: 404, json: {}}
                - {match: GET http://api.test/html, headers: {Content-Type: text/html}, body: <p/>}
                - {match: GET http://api.test/flaky, responses: [{status: 503}, {json: {}}]}
            client: {headers: {Accept: application/json}, validate: true, retry: {limit: 1, statuses: [503]}}
            script:
              - {request: GET http://api.test/missing, name: strict}
              - {request: GET http://api.test/missing, name: lenient, validate: {statuses: [200-299, 404]}}
              - {request: GET http://api.test/html, name: html}
              - {request: GET http://api.test/flaky, name: flaky}
            """)
        func failed(_ name: String) -> [Bool]? {
            outcome.lane(name)?.spans.filter { $0.kind == .attempt }.map(\.failed)
        }
        #expect(failed("strict") == [true])
        #expect(failed("lenient") == [false])
        #expect(failed("html") == [true])
        #expect(failed("flaky") == [true, false])
    }

    @Test("a recording run's trace hash is said to be its own: replaying the cassette gives another")
    func recordingRunHash() throws {
        var outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {}}]}
            script: [{request: GET http://api.test/a}]
            """)
        #expect(OutcomeText(outcome).render().hasSuffix("trace hash: \(outcome.traceHash)"))
        outcome.recording = RecordingReport(mode: "once", cassette: "api.har.gz", replayed: 0, recorded: 1, recordedFailures: [],
                                            entriesBefore: 0, entriesAfter: 1, replaced: false, problem: nil)
        #expect(OutcomeText(outcome).render().hasSuffix("trace hash: \(outcome.traceHash) (this recording run's; replaying the cassette, as the reproduce line does, gives its own)"))
        #expect(outcome.recording?.note == "cassette api.har.gz (--record once): 1 new entry added, now 1")
    }

    @Test("a request that failed as the scenario expects is explained in its own section")
    func whySection() throws {
        let outcome = try run("""
            traffic:
              stubs: [{match: POST http://api.test/items, json: {}}]
            script: [{request: GET http://api.test/items}]
            expect:
              requests:
                items: {error: transport}
            """)
        let text = OutcomeText(outcome).render()
        #expect(outcome.passed)
        #expect(text.contains("\nwhy requests failed:\n  items (transport): no route: GET http://api.test/items: "), "\(text)")
    }

    @Test("durations keep hours, minutes and the fraction of a second", arguments: [
        (Int64(3_600_000_000_000), "1h"), (5_400_000_000_000, "1h30m"), (5_459_500_000_000, "1h30m59.5s"),
        (3_600_000_000_000_000, "1000h"), (150_000_000_000, "2m30s"), (90_000_000_000, "90s"), (1_500_000, "1.5ms"),
    ])
    func durations(_ nanoseconds: Int64, _ text: String) throws {
        let outcome = try run("""
            traffic:
              stubs: [{match: GET http://api.test/a, json: {}}]
            script: [{request: GET http://api.test/a, at: \(Double(nanoseconds) / 1e9)}]
            """)
        #expect(OutcomeText(outcome).render().contains("passed in \(text) of virtual time"), "\(OutcomeText(outcome).render())")
    }

    @Test("a content type refused by validation is said in the text output; a refused status is not repeated there")
    func refusedContentTypeExplained() throws {
        let outcome = try run("""
            traffic:
              stubs:
                - {match: GET http://api.test/page, body: "<html></html>", headers: {Content-Type: text/html}}
                - {match: GET http://api.test/gone, status: 410}
            client: {validate: true, headers: {Accept: application/json}}
            script: [{request: GET http://api.test/page}, {request: GET http://api.test/gone}]
            expect:
              requests:
                page: {error: validation}
                gone: {error: validation}
            """)
        let text = OutcomeText(outcome).render()
        #expect(text.contains("page (validation): response validation failed: unacceptableContentType"), "\(text)")
        #expect(text.contains("responseContentType: \"text/html\""), "\(text)")
        #expect(!text.contains("gone (validation)"), "the table's 'validation after 410' says it already")
    }

    @Test("a result label is printed whole when the width leaves room for it, else cut with an ellipsis")
    func wholeResultLabel() throws {
        let outcome = try run("""
            traffic:
              stubs: [{match: GET http://api.test/gone, status: 410}]
            client: {validate: true}
            script: [{request: GET http://api.test/gone}]
            expect:
              requests:
                gone: {error: validation}
            """)
        let lane = try #require(TextTimeline(outcome.timeline, width: 100).render().split(separator: "\n").first)
        #expect(lane.hasSuffix("▏ validation after 410"), "\(lane)")
        #expect(SVGTimeline(outcome.timeline).render().contains("</title>validation after 410</text>"), "the SVG's result column has room too")
        // Too narrow for it: cut short, and saying so (a cut `410` must not read as `4`).
        let narrow = try #require(TextTimeline(outcome.timeline, width: 56).render().split(separator: "\n").first)
        #expect(narrow.hasSuffix("▏ validation af…"), "\(narrow)")
    }

    @Test("the faults that fired are listed in time order, a token expiry among them")
    func faultsInTimeOrder() throws {
        let outcome = try run("""
            traffic:
              auth: {token: POST http://api.test/token, protect: http://api.test/me}
              stubs: [{match: GET http://api.test/me, latency: 1s, json: {}}]
            client: {auth: true, validate: true}
            script: [{request: GET http://api.test/me}]
            faults:
              - {name: slow, kind: latency, delay: 500ms}
              - {name: expiry, kind: tokenExpiry, at: 1ms}
            """)
        let times = outcome.faults.map(\.timeNanoseconds)
        #expect(times == times.sorted() && outcome.faults.first?.site == "expiry", "\(outcome.faults)")
    }

    @Test("a fault on the response head is listed at the instant it was decided and says when a delay let the head arrive")
    func headFaultSaysWhenTheHeadCame() throws {
        // Given a 503 and a 2 s latency decided together, when the head was due at 0 s
        let outcome = try run("""
            traffic: {stubs: [{match: GET http://api.test/a, json: {}}]}
            script: [{request: GET http://api.test/a}]
            faults:
              - {name: busy, kind: status, status: 503}
              - {name: slow, kind: latency, delay: 2s}
            """)
        // Then both are at 0 s, and both say the head came at 2 s
        let text = OutcomeText(outcome).render()
        #expect(text.contains("  t=0s  busy on a attempt 1: responseHead: status 503 (the head arrived at 2s)"), "\(text)")
        #expect(text.contains("  t=0s  slow on a attempt 1: responseHead: delay 2s (the head arrived at 2s)"), "\(text)")
        // While a head that came when it was due says nothing more
        let prompt = try run("""
            traffic: {stubs: [{match: GET http://api.test/a, latency: 40ms, json: {}}]}
            script: [{request: GET http://api.test/a}]
            faults: [{name: busy, kind: status, status: 503}]
            """)
        #expect(prompt.faults.map(\.what) == ["responseHead: status 503"] && prompt.faults.first?.timeNanoseconds == 40_000_000)
    }

    @Test("a run of no virtual time ends its axis at 0s, not at a nanosecond")
    func zeroLengthAxis() throws {
        let outcome = try run("""
            traffic:
              stubs: [{match: GET http://api.test/a, json: {}}]
            script: [{request: GET http://api.test/a}]
            """)
        #expect(outcome.virtualNanoseconds == 0)
        let axis = try #require(TextTimeline(outcome.timeline).render().split(separator: "\n").dropFirst().first)
        #expect(axis.hasSuffix(" 0s") && !axis.contains("µs"), "\(axis)")
        let svg = SVGTimeline(outcome.timeline).render()
        #expect(!svg.contains(">1ns<"), "no 1ns tick")
    }

    @Test("a provider target's URL includes its query parameters, as the network received them")
    func providerQuery() throws {
        let outcome = try run("""
            client:
              provider:
                baseURL: http://api.test
                targets: {repos: {path: /repos, task: {query: {sort: updated, per_page: 50, dir: "a/b:c"}}}}
            traffic:
              stubs: [{match: GET http://api.test/repos, json: []}]
            script: [{target: repos}]
            """)
        // As the provider's query encoding sends it: everything but unreserved characters escaped.
        #expect(outcome.request("repos").url == "http://api.test/repos?dir=a%2Fb%3Ac&per_page=50&sort=updated")
    }

    @Test("attempts shorter than a column each keep a column of their own, the waits between them drawn as waits")
    func shortAttemptsStayApart() {
        // Three 10 ms attempts with 100 ms and 300 ms waits, on a 4 s axis: a column is ~60 ms.
        func attempt(_ start: Int64, failed: Bool) -> Timeline.Span {
            Timeline.Span(kind: .attempt, startNanoseconds: start, endNanoseconds: start + 10_000_000, label: failed ? "500" : "200", failed: failed)
        }
        func wait(_ start: Int64, _ end: Int64) -> Timeline.Span {
            Timeline.Span(kind: .backoff, startNanoseconds: start, endNanoseconds: end, label: "", failed: false)
        }
        let lane = Timeline.Lane(name: "lost", result: "200", passed: true, spans: [
            attempt(0, failed: true), wait(10_000_000, 110_000_000), attempt(110_000_000, failed: true),
            wait(120_000_000, 420_000_000), attempt(420_000_000, failed: false),
        ])
        let text = TextTimeline(Timeline(durationNanoseconds: 4_000_000_000, lanes: [lane]), width: 80).render()
        let cells = text.split(separator: "\n")[0].split(separator: "▕")[1].prefix { $0 != "▏" }
        let groups = cells.split(whereSeparator: { $0 == "·" || $0 == " " }).map(String.init)
        #expect(groups.prefix(3) == ["▓", "▓", "█"], "\(cells)")
        #expect(cells.hasPrefix("▓·▓"), "\(cells)")
    }

    @Test("the lanes fit any width --width accepts, down to 40 columns: long names give way first", arguments: [40, 55, 80])
    func narrowWidths(_ width: Int) {
        let lanes = ["a-rather-long-request-name#12", "b"].map { name in
            Timeline.Lane(name: name, result: "connectionLost", passed: false, spans: [
                Timeline.Span(kind: .attempt, startNanoseconds: 0, endNanoseconds: 30_000_000, label: "", failed: true),
            ])
        }
        let text = TextTimeline(Timeline(durationNanoseconds: 60_000_000, lanes: lanes), width: width).render()
        for line in text.split(separator: "\n") {
            #expect(TextTimeline.columns(String(line)) <= width, "\(width): \(line)")
        }
    }
}

extension OutcomeTextTests {
    @Test("a failure line prints a file's control characters as escapes: one line, no terminal sequence")
    func controlCharactersEscaped() {
        #expect(OutcomeText.printable("multi\nline \u{1B}[31mred") == #"multi\nline \u{1B}[31mred"#)
        #expect(OutcomeText.printable("café ✓") == "café ✓")
    }
}
