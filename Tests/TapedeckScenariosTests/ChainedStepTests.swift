import Foundation
import Testing
import TapedeckScenarios

/// Script steps with `after`: sent once another request has finished, however long it took.
@Suite("Chained script steps (after)")
struct ChainedStepTests {
    /// Page 1 answers 503 then 200 (a retry after the 0.5 s backoff); pages 2 and 3 are chained.
    static let pages = """
        traffic:
          stubs:
            - url: http://api.test/items?page=1
              latency: 40ms
              responses:
                - {status: 503}
                - {json: {page: 1}}
            - {url: http://api.test/items?page=2, latency: 30ms, json: {page: 2}}
            - {url: http://api.test/items?page=3, latency: 20ms, json: {page: 3}}
        client:
          retry: {limit: 1}
          validate: true
        script:
          - request: GET http://api.test/items?page=1
            name: page1
          - request: GET http://api.test/items?page=2
            name: page2
            after: page1
          - request: GET http://api.test/items?page=3
            name: page3
            after: page2
            at: 100ms
        """

    @Test("a chained step is sent when what it waits for has finished, retries included, and 'at' counts from then")
    func pagesInSequence() throws {
        let outcome = try run(Self.pages)
        let page1 = outcome.request("page1"), page2 = outcome.request("page2"), page3 = outcome.request("page3")
        #expect(page1.status == 200 && page1.attempts == 2)
        #expect(page2.status == 200 && page3.status == 200)
        // page1: 40 ms, 0.5 s backoff, 40 ms; page2 starts at its end, page3 100 ms after page2's end
        let end1 = try #require(page1.endNanoseconds), end2 = try #require(page2.endNanoseconds)
        #expect(end1 == 580_000_000)
        #expect(page2.startNanoseconds == end1 && end2 == end1 + 30_000_000)
        #expect(page3.startNanoseconds == end2 + 100_000_000 && page3.endNanoseconds == end2 + 120_000_000)
        #expect(outcome.passed, "\(outcome.failures)")
        // The same seed gives the same trace; the chain holds under other seeds too
        #expect(try run(Self.pages).traceHash == outcome.traceHash)
        for seed: UInt64 in 2...6 {
            let other = try run(Self.pages, seed: seed)
            #expect(other.request("page2").startNanoseconds == other.request("page1").endNanoseconds)
        }
    }

    @Test("after a repeated step waits for every repeat; after one repeat waits for that one only")
    func afterRepeats() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, latency: 10ms, json: {}}, {url: http://api.test/b, json: {}}]}
            script:
              - request: GET http://api.test/a
                name: a
                repeat: 3
                every: 50ms
              - request: GET http://api.test/b
                name: all
                after: a
              - request: GET http://api.test/b
                name: first
                after: a#1
            """)
        // a#3 is sent at 100 ms and ends at 110 ms; a#1 ends at 10 ms
        #expect(outcome.request("all").startNanoseconds == 110_000_000)
        #expect(outcome.request("first").startNanoseconds == 10_000_000)
    }

    @Test("a chained step is sent after a failed or cancelled request too")
    func afterFailure() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, latency: 1s, json: {}}, {url: http://api.test/b, json: {}}]}
            script:
              - request: GET http://api.test/a
                name: a
              - cancel: a
                at: 200ms
              - request: GET http://api.test/b
                name: b
                after: a
            """)
        #expect(outcome.request("a").error == .cancelled)
        #expect(outcome.request("b").status == 200 && outcome.request("b").startNanoseconds == 200_000_000)
    }

    @Test("the reader refuses an after naming no request, its own step, or a chain that comes back to its start")
    func badAfters() throws {
        let unknown = try #require(parseError("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/a
                name: page1
              - request: GET http://api.test/a
                name: page2
                after: pag1
            """))
        #expect(unknown.line == 7 && unknown.path == "script[1].after")
        #expect(unknown.reason == "no request is named 'pag1'" && unknown.hint == "did you mean 'page1'?")
        let itself = try #require(parseError("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/a
                name: poll
                repeat: 2
                after: poll#1
            """))
        #expect(itself.reason == "'poll' cannot wait for itself")
        let cycle = try #require(parseError("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script:
              - request: GET http://api.test/a
                name: a
                after: c
              - request: GET http://api.test/a
                name: b
                after: a
              - request: GET http://api.test/a
                name: c
                after: b
            """))
        #expect(cycle.line == 5 && cycle.reason == "'a' waits for 'c' waits for 'b' waits for 'a': none of them would ever be sent")
        #expect(cycle.more.isEmpty, "one cycle, reported once")
    }

    @Test("waits composed past the clock's 10⁹ s (a chain of long 'at' offsets) fail the run with clockRange, not pass with saturated timings")
    func chainPastTheClock() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a, json: {}}]}
            script:
              - {request: GET http://api.test/a, name: s1, at: 600000000s}
              - {request: GET http://api.test/a, name: s2, after: s1, at: 600000000s}
            """)
        #expect(!outcome.passed)
        #expect(outcome.failures.contains { $0.check == "clockRange" && $0.message.contains("past the 10⁹ s") }, "\(outcome.failures)")
    }

    @Test("a long chain loads and runs in time linear in its length (each step's wait is found once)")
    func longChainLoads() throws {
        var yaml = "traffic: {stubs: [{url: http://api.test/a, json: {}}]}\nscript:\n  - {request: GET http://api.test/a, name: p0}\n"
        for index in 1..<3_000 { yaml += "  - {request: GET http://api.test/a, name: p\(index), after: p\(index - 1)}\n" }
        let scenario = try parse(yaml)
        #expect(scenario.requests.count == 3_000)
        let outcome = try ScenarioRunner().run(scenario, seed: 1)
        #expect(outcome.passed && outcome.request("p2999").startNanoseconds == outcome.request("p2998").endNanoseconds)
    }
}
