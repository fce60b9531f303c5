import Foundation
import Testing
import TapedeckScenarios

/// The wait of a request for a token refresh is no backoff: the timeline draws it as a refresh
/// wait (text, JSON, SVG), and a `during: backoff` cancel that only such a wait could meet is
/// warned about when the file loads.
@Suite("Token refresh waits are not backoffs")
struct RefreshWaitTests {
    /// Two requests get 401 at 2 s (the tokens expired at 1 s) and wait 500 ms for the refresh.
    private func scenario(retry: Bool, cancel: Bool = true) -> String {
        """
        traffic:
          auth:
            token: POST http://auth.test/token
            protect: http://api.test/*
          stubs:
            - {match: GET http://api.test/*, json: {ok: true}}
        client:
          auth: true
          validate: true\(retry ? "\n  retry: true" : "")
        script:
          - request: GET http://api.test/me
            at: 2s
          - request: GET http://api.test/orders
            at: 2s\(cancel ? "\n  - cancel: orders\n    during: backoff" : "")
        faults:
          - {kind: tokenExpiry, name: revoke, at: 1s}
          - {kind: latency, name: slow-token, delay: 500ms, route: POST http://auth.test/token}
        """
    }

    @Test("the wait between a 401 and the retry after the refresh is a refresh wait, drawn '~' and dotted, not a backoff")
    func refreshWaitIsNotABackoff() throws {
        // Given a request that waits 500 ms for the token refresh between its attempts
        let outcome = try run(scenario(retry: false, cancel: false))
        // Then its lane's wait is a refresh wait, in the value, the text and the SVG
        let spans = try #require(outcome.lane("me")?.spans)
        #expect(spans.map(\.kind) == [.attempt, .refreshWait, .attempt])
        let text = TextTimeline(outcome.timeline, width: 100).render()
        let lane = try #require(text.split(separator: "\n").first { $0.hasPrefix("me ") })
        #expect(lane.contains("▓~~") && !lane.contains("·") && text.contains("~ refresh wait"), "\(text)")
        let json = String(decoding: try JSONEncoder().encode(outcome.timeline), as: UTF8.self)
        #expect(json.contains(#""kind":"refreshWait""#) && !json.contains(#""kind":"backoff""#))
        let svg = SVGTimeline(outcome.timeline).render()
        #expect(svg.contains(#"class="refresh-wait""#) && svg.contains("waiting for a token refresh") && !svg.contains(#"class="backoff""#))
    }

    @Test("a run with backoffs and no refresh wait keeps its legend: no refresh wait is named")
    func legendOnlyWhenDrawn() throws {
        let outcome = try run("""
            traffic: {stubs: [{match: GET http://api.test/a, json: {}}]}
            client: {validate: true, retry: true}
            script: [{request: GET http://api.test/a}]
            faults: [{kind: status, status: 503, attempts: 1}]
            """)
        #expect(outcome.lane("a")?.spans.map(\.kind) == [.attempt, .backoff, .attempt])
        #expect(!TextTimeline(outcome.timeline, width: 100).render().contains("refresh wait"))
        #expect(!SVGTimeline(outcome.timeline).render().contains("refresh wait"))
    }

    @Test("a during: backoff cancel under client.auth without client.retry is warned about: the refresh wait is no backoff")
    func warnsWhenOnlyARefreshWaitCouldMeetIt() throws {
        // Given a cancel during a backoff of a client that only refreshes tokens
        let warnings = ScenarioRunner().warnings(for: try parse(scenario(retry: false)))
        // Then loading says it can never happen, at the cancel's `during`
        #expect(warnings.count == 1 && warnings[0].contains("script[2].during") && warnings[0].contains("this cancel can never happen"), "\(warnings)")
        // And the run shows it: the request is not cancelled
        #expect(try run(scenario(retry: false)).request("orders").error == .none)
        // While with client.retry a backoff can come, and nothing is said
        #expect(ScenarioRunner().warnings(for: try parse(scenario(retry: true))).isEmpty)
    }
}
