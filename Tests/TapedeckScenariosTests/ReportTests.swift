import Foundation
import Testing
@testable import TapedeckScenarios
import TapedeckScheduling

@Suite("Reports: the text timeline fits a terminal, JSON outcomes and JSON-lines traces read back")
struct ReportTests {
    /// Every fixture's outcome, and a run with long names, long results and failures.
    private static func outcomes() throws -> [Outcome] {
        var outcomes = try fixtureScenarios.map { try ScenarioRunner().run(try Scenario.load($0), seed: 1) }
        outcomes.append(try run("""
            traffic: {stubs: [{url: http://api.test/report, body: \(textBody(5_000))}]}
            client: {retry: {limit: 2, scale: 0.1}}
            script:
              - {request: GET http://api.test/report, name: a-request-with-a-very-long-descriptive-name, repeat: 3, every: 1s}
              - {request: GET http://api.test/report, name: b}
            faults: [{kind: reset, afterBytes: 100, name: a-fault-site-with-a-long-name}]
            expect: {requests: {b: {error: none}}}
            """))
        return outcomes
    }

    @Test("the text timeline fits 80 and 120 columns, one line per lane", arguments: [80, 120])
    func textTimelineFits(_ width: Int) throws {
        for outcome in try Self.outcomes() {
            let lines = TextTimeline(outcome.timeline, width: width).render().split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines {
                #expect(line.count <= width, "\(outcome.scenario) at \(width): \(line.count) columns: \(line)")
            }
            #expect(lines.count >= outcome.timeline.lanes.count)
            for lane in outcome.timeline.lanes {
                // A name of up to 24 characters whole; a longer one cut (with `…`, keeping a `#N`).
                let shown = lane.name.count <= 24 ? lane.name + " " : String(lane.name.prefix(16))
                #expect(lines.contains { $0.hasPrefix(shown) }, "\(outcome.scenario): lane \(lane.name)")
            }
            // The whole printout embeds the same timeline.
            #expect(OutcomeText(outcome, width: width).render().contains(TextTimeline(outcome.timeline, width: width).render()))
        }
    }

    @Test("a long lane name is cut with … and keeps a repeat's #N, so repeats stay apart (text and SVG)")
    func longNamesKeepRepeatNumbers() throws {
        // Given two repeats of a step whose name is longer than the name column
        let name = "this-is-a-very-long-request-name-for-the-user-profile-avatar-thumbnail"
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {}}]}
            script: [{request: GET http://api.test/a, name: \(name), repeat: 2}]
            """)
        // When the timeline is drawn
        let text = TextTimeline(outcome.timeline, width: 100).render()
        let svg = SVGTimeline(outcome.timeline).render()
        // Then each lane's name is cut, says so, and ends in its own repeat number
        let lanes = text.split(separator: "\n").filter { $0.hasPrefix("this-is") }.map { String($0.prefix { $0 != " " }) }
        #expect(lanes.count == 2 && lanes[0].hasSuffix("…#1") && lanes[1].hasSuffix("…#2") && lanes[0].count < name.count, "\(lanes)")
        #expect(svg.contains("…#1") && svg.contains("…#2"), "the SVG's names keep it too")
    }

    @Test("the text timeline draws attempts, failed attempts, backoff, faults and the end where they happened")
    func textTimelineDraws() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}]}
            client: {retry: {limit: 1, scale: 1}, validate: true}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: status, name: busy, status: 503, attempts: 1}]
            """)
        let lane = try #require(TextTimeline(outcome.timeline, width: 80).render().split(separator: "\n").first)
        #expect(lane.hasPrefix("a "))
        #expect(lane.contains("!"))      // the fault, at t=0
        #expect(lane.contains("·"))      // the 1 s backoff
        #expect(lane.hasSuffix("▏ 200"))
    }

    @Test("a cancel after short retries that the text timeline pushes right (each attempt keeps a column) is drawn after them, in the order they happened")
    func textTimelineKeepsOrder() throws {
        // Given five quick 503s with short backoffs, cancelled in the fifth backoff, beside a
        // 10 s request that sets the axis (so the retries are worth under a column each)
        let outcome = try run("""
            traffic:
              stubs:
                - {match: GET http://api.test/quick, latency: 5ms, json: {ok: 1}}
                - {match: GET http://api.test/slow, latency: 10s, json: {ok: 1}}
            client: {validate: true, retry: {limit: 5, scale: 0.01}}
            script:
              - request: GET http://api.test/quick
              - {cancel: quick, during: backoff#5}
              - request: GET http://api.test/slow
            faults: [{name: busy, kind: status, status: 503, route: GET http://api.test/quick}]
            """)
        for width in [40, 80, 120] {
            let lane = try #require(TextTimeline(outcome.timeline, width: width).render().split(separator: "\n").first { $0.hasPrefix("quick") })
            let chart = String(lane.drop { $0 != "▕" }.dropFirst().prefix { $0 != "▏" })
            // Then the five attempts (each marked by its fault) come before the cancel, and
            // nothing is drawn after it
            let cancel = try #require(chart.lastIndex(of: "x"), "\(lane)")
            #expect(chart[..<cancel].filter { "!▓".contains($0) }.count == 5, "at \(width): \(lane)")
            #expect(chart[chart.index(after: cancel)...].allSatisfy { $0 == " " }, "at \(width): \(lane)")
        }
    }

    @Test("lanes named in wide characters (CJK, emoji) still fit the width and line up: a wide character takes two columns")
    func wideNames() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {}}]}
            script:
              - {request: GET http://api.test/a, name: 商品一覧を取得する処理の名前がとても長い}
              - {request: GET http://api.test/a, name: "🚀 launch"}
              - {request: GET http://api.test/a, name: plain}
            """)
        for width in [80, 120] {
            let lines = TextTimeline(outcome.timeline, width: width).render().split(separator: "\n")
            for line in lines { #expect(TextTimeline.columns(line) <= width, "\(width): \(line)") }
            // The chart starts in one column on every lane
            let starts = Set(lines.prefix(3).map { line in TextTimeline.columns(line.prefix { $0 != "▕" }) })
            #expect(starts.count == 1, "\(lines.prefix(3))")
        }
        #expect(TextTimeline.columns("商品") == 4 && TextTimeline.columns("🚀a") == 3 && TextTimeline.columns("café") == 4)
    }

    @Test("the SVG's time axis keeps a few round ticks for runs of days and up to the billion seconds a file allows")
    func longAxes() throws {
        for (seconds, unit) in [(3_600 * 1_000, "d"), (1_000_000_000, "d"), (3 * 3_600, "h"), (180, "m")] {
            let axis = TimeAxis(duration: Int64(seconds) * 1_000_000_000, maxTicks: 10)
            #expect(axis.ticks.count >= 2 && axis.ticks.count <= 11, "\(seconds) s: \(axis.ticks.count) ticks")
            #expect(axis.end >= Int64(seconds) * 1_000_000_000)
            #expect(axis.label(axis.end).hasSuffix(unit), "\(seconds) s: \(axis.label(axis.end))")
        }
        #expect(TimeAxis(duration: 3_600_000_000_000 * 1_000, maxTicks: 10).label(10 * 86_400_000_000_000) == "10d")
        // A clock at its very end (a client's own wait past its range) still gets an axis
        let saturated = TimeAxis(duration: .max, maxTicks: 10)
        #expect(saturated.ticks.count >= 2 && saturated.ticks.count <= 11 && saturated.end <= .max)
        // A minutes axis whose step is seconds: the ticks under a minute read as seconds, not "0m20s"
        let minutes = TimeAxis(duration: 150 * 1_000_000_000, maxTicks: 10)
        #expect(minutes.ticks.map(minutes.label).allSatisfy { !$0.hasPrefix("0m") }, "\(minutes.ticks.map(minutes.label))")
    }

    @Test("OutcomeJSON round-trips: decoding what it printed gives the outcome back (bodies are not printed); it says passed")
    func outcomeJSONRoundTrips() throws {
        for outcome in try Self.outcomes() {
            let text = try OutcomeJSON.encode(outcome)
            let decoded = try JSONDecoder().decode(Outcome.self, from: Data(text.utf8))
            var expected = outcome
            for index in expected.requests.indices { expected.requests[index].body = nil }
            #expect(decoded == expected, "\(outcome.scenario)")
            #expect(try OutcomeJSON.encode(decoded) == text)
            // The verdict is there to read, not to work out from `failures`.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(object["passed"] as? Bool == outcome.passed, "\(outcome.scenario)")
        }
    }

    @Test("TraceJSONLines.parse(render(trace)) == trace, for real traces and awkward payloads")
    func traceRoundTrips() throws {
        for file in fixtureScenarios.prefix(3) {
            let (_, trace) = try ScenarioRunner().runKeepingTrace(try Scenario.load(file), seed: 2)
            #expect(!trace.isEmpty)
            #expect(try TraceJSONLines.parse(TraceJSONLines.render(trace)) == trace, "\(file.lastPathComponent)")
        }
        let awkward = [
            TraceStep(index: 0, time: .zero, queue: "", job: 0, event: "sync", payload: ""),
            TraceStep(index: 1, time: VirtualInstant.zero.advanced(by: .nanoseconds(1)), queue: "q \"quoted\" \\ back",
                      job: UInt64.max, event: "net.head", payload: "line\nbreak\ttab\r\u{1}\u{1F} é 🎞 </script>"),
        ]
        let text = TraceJSONLines.render(awkward)
        #expect(text.split(separator: "\n").count == 2)
        #expect(try TraceJSONLines.parse(text) == awkward)
        #expect(try TraceJSONLines.parse("") == [])
    }

    @Test("the SVG has one lane per request and the HTML report embeds it, with the failures and the reproduction")
    func svgAndHTML() throws {
        let outcome = try Self.outcomes().last!
        let svg = SVGTimeline(outcome.timeline).render()
        // One lane per request (failed lanes are `class="lane failed"`; token lanes are support lanes).
        #expect(svg.components(separatedBy: " data-lane=\"").count - 1 == outcome.timeline.lanes.filter(\.isRequest).count)
        #expect(outcome.timeline.lanes.filter(\.isRequest).count == outcome.requests.count)
        let html = HTMLReport(outcome).render()
        #expect(html.contains(svg))
        #expect(html.components(separatedBy: "<tr class=\"request").count - 1 == outcome.requests.count)
        #expect(html.contains(outcome.reproduction))
        #expect(!html.contains("src=") && !html.contains("<link"))
    }
}
