import Foundation
import Testing
import TapedeckScenarios

/// Loose bounds for a binomial count: mean ± 5 standard deviations (a fixed set of seeds makes the
/// count deterministic; the bounds say the draws have the asked-for shape).
private func binomialBounds(trials: Int, perMille: Int) -> ClosedRange<Int> {
    let p = Double(perMille) / 1_000
    let mean = Double(trials) * p
    let spread = 5 * (Double(trials) * p * (1 - p)).squareRoot()
    return Int((mean - spread).rounded(.down))...Int((mean + spread).rounded(.up))
}

@Suite("Fault sites: BUGGIFY's shape — enabled per seed, fired per occurrence, replayable as a schedule")
struct FaultSiteTests {
    private static func yaml(enabled: Int, probability: Int, repeats: Int) -> String {
        """
        traffic: {stubs: [{url: http://api.test/a}]}
        script: [{request: GET http://api.test/a, name: a, repeat: \(repeats)}]
        faults: [{kind: status, name: flaky, status: 500, enabled: \(enabled), probability: \(probability)}]
        """
    }

    @Test("enabled: a per-mille chance, per seed, that the site is on for the whole run", arguments: [300, 500])
    func enabledPerSeed(_ perMille: Int) throws {
        let scenario = try parse(Self.yaml(enabled: perMille, probability: 1_000, repeats: 3))
        var enabledSeeds = 0
        for seed in UInt64(1)...200 {
            let outcome = try ScenarioRunner().run(scenario, seed: seed)
            let on = outcome.enabledSites == ["flaky"]
            if on { enabledSeeds += 1 }
            // On: it strikes every request (probability 1000); off: none.
            #expect(outcome.requests.map(\.status) == Array(repeating: on ? 500 : 200, count: 3), "seed \(seed)")
            #expect(outcome.faults.count == (on ? 3 : 0))
            // The same seed decides the same way again.
            if seed <= 10 { #expect(try ScenarioRunner().run(scenario, seed: seed).enabledSites == outcome.enabledSites) }
        }
        let bounds = binomialBounds(trials: 200, perMille: perMille)
        #expect(bounds.contains(enabledSeeds), "\(enabledSeeds) of 200 seeds enabled the site; expected within \(bounds)")
    }

    @Test("probability: an enabled site fires at each occurrence with its per-mille chance")
    func probabilityPerOccurrence() throws {
        let scenario = try parse(Self.yaml(enabled: 1_000, probability: 250, repeats: 10))
        var fired = 0
        var patterns: Set<[Int?]> = []
        for seed in UInt64(1)...200 {
            let outcome = try ScenarioRunner().run(scenario, seed: seed)
            #expect(outcome.enabledSites == ["flaky"])
            let hits = outcome.requests.filter { $0.status == 500 }.count
            #expect(outcome.faults.count == hits)
            fired += hits
            patterns.insert(outcome.requests.map(\.status))
        }
        let bounds = binomialBounds(trials: 2_000, perMille: 250)
        #expect(bounds.contains(fired), "\(fired) of 2000 occurrences fired; expected within \(bounds)")
        #expect(patterns.count > 50, "which requests are hit varies with the seed")
    }

    @Test("one site firing, or not, never shifts another's draws: a site that only hits request a leaves a random site's decision on request b as it was")
    func drawsAreKeyedPerOccurrence() throws {
        func scenario(aProbability: Int) throws -> Scenario {
            try parse("""
                traffic: {stubs: [{url: http://api.test/a}, {url: http://api.test/b}]}
                script: [{request: GET http://api.test/a, name: a}, {request: GET http://api.test/b, name: b, at: 1s}]
                faults:
                  - {kind: status, name: A, status: 500, route: GET http://api.test/a, probability: \(aProbability)}
                  - {kind: status, name: B, status: 503, probability: 300}
                """)
        }
        let (always, never) = (try scenario(aProbability: 1_000), try scenario(aProbability: 0))
        var bHit = 0
        for seed in UInt64(1)...100 {
            let (with, without) = (try ScenarioRunner().run(always, seed: seed), try ScenarioRunner().run(never, seed: seed))
            // A, first in the file, keeps B from being tried on a (it fires), or not (it never does)
            #expect(with.requests.first?.status == 500)
            let b = with.requests.last?.status
            #expect(b == without.requests.last?.status, "seed \(seed): b got \(String(describing: b)) with A firing, \(String(describing: without.requests.last?.status)) without")
            if b == 503 { bHit += 1 }
        }
        #expect(binomialBounds(trials: 100, perMille: 300).contains(bHit), "\(bHit) of 100")
    }

    @Test("the extremes: enabled 0 never turns a site on; probability 0 never fires; 1000 and 1000 always fire")
    func extremes() throws {
        for seed in UInt64(1)...20 {
            let off = try ScenarioRunner().run(try parse(Self.yaml(enabled: 0, probability: 1_000, repeats: 2)), seed: seed)
            #expect(off.enabledSites.isEmpty && off.faults.isEmpty)
            let never = try ScenarioRunner().run(try parse(Self.yaml(enabled: 1_000, probability: 0, repeats: 2)), seed: seed)
            #expect(never.enabledSites == ["flaky"] && never.faults.isEmpty)
            let always = try ScenarioRunner().run(try parse(Self.yaml(enabled: 1_000, probability: 1_000, repeats: 2)), seed: seed)
            #expect(always.faults.count == 2)
        }
    }

    @Test("targeting: route, attempt, exchange number and time window limit where a site strikes")
    func targeting() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}, {url: http://api.test/b}]}
            script:
              - {request: GET http://api.test/a, name: a, repeat: 4, every: 100ms}
              - {request: GET http://api.test/b, name: b, at: 1s}
            faults:
              - {kind: status, name: windowed, status: 500, route: GET http://api.test/a, window: {from: 100ms, until: 300ms}}
              - {kind: status, name: fourth, status: 502, exchanges: 4}
              - {kind: status, name: other-route, status: 504, route: http://api.test/b}
            """)
        #expect(outcome.requests.map(\.status) == [200, 500, 500, 502, 504])
        #expect(outcome.faults.map(\.site) == ["windowed", "windowed", "fourth", "other-route"])
        #expect(outcome.faults.map(\.exchange) == [2, 3, 4, 5])
    }

    @Test("a recorded schedule replays the same firings, whatever the seed, with no random draw")
    func scheduleReplays() throws {
        let base = """
            traffic: {stubs: [{url: http://api.test/a}, {url: http://api.test/b}]}
            script:
              - {request: GET http://api.test/a, name: a, repeat: 8}
              - {request: GET http://api.test/b, name: b, repeat: 8}
            faults:
              - {kind: status, name: flaky, status: 500, route: http://api.test/a, probability: 500}
              - {kind: latency, name: lag, delay: 10ms, jitter: 90ms, route: http://api.test/b, probability: 500}
            """
        let original = try run(base, seed: 7)
        #expect(!original.faults.isEmpty && original.faults.count < 16, "seed 7 fires some sites, not all")
        // The schedule a user writes from what fired: the latency's draw is what its request waited beyond 10 ms.
        var lines = ["schedule:", "  faults:"]
        for fault in original.faults {
            let request = try #require(fault.request)
            let drawn = fault.site == "lag" ? (original.request(request).endNanoseconds ?? 0) - 10_000_000 : 0
            lines.append("    - {site: \(fault.site), request: \(request), attempt: \(fault.attempt), drawn: \(drawn)}")
        }
        let scheduled = base + "\n" + lines.joined(separator: "\n")
        for seed: UInt64 in [7, 8, 1_234] {
            let replay = try run(scheduled, seed: seed)
            #expect(replay.faults.map { [$0.site, $0.request ?? "", String($0.attempt), String($0.timeNanoseconds)] }
                    == original.faults.map { [$0.site, $0.request ?? "", String($0.attempt), String($0.timeNanoseconds)] }, "seed \(seed)")
            #expect(replay.requests.map(\.status) == original.requests.map(\.status))
            #expect(replay.requests.map(\.endNanoseconds) == original.requests.map(\.endNanoseconds))
            // Under a schedule every site counts as enabled: the schedule, not the seed, decides.
            #expect(replay.enabledSites == ["flaky", "lag"])
        }
        // Another seed without the schedule decides differently.
        let other = try run(base, seed: 8)
        #expect(other.faults.map { "\($0.site) \($0.request ?? "")" } != original.faults.map { "\($0.site) \($0.request ?? "")" })
    }

    @Test("a scheduled latency draw past the site's jitter is taken as its jitter (a hand-edited schedule cannot make a delay the site could not)")
    func scheduledDrawIsClamped() throws {
        func end(_ drawn: String) throws -> Int64? {
            try run("""
                traffic: {stubs: [{url: http://api.test/items}]}
                script: [{request: GET http://api.test/items, name: items}]
                faults: [{name: lat, kind: latency, delay: 1ms, jitter: 5ms}]
                schedule: {faults: [{site: lat, request: items, attempt: 1, drawn: \(drawn)}]}
                """).request("items").endNanoseconds
        }
        let atJitter = try #require(try end("5000000"))
        #expect(try end("99999999999") == atJitter)
        #expect(try end("0")! < atJitter)
    }

    @Test("sites at one point combine: latencies add up, a bandwidth paces, and the first other site that fires acts (a slow 503 with a slow body)")
    func sitesCombine() throws {
        let yaml = """
            traffic: {stubs: [{url: http://api.test/a, body: "0123456789012345678901234567890123456789"}]}
            client: {validate: true}
            script: [{request: GET http://api.test/a, name: a}]
            faults:
              - {kind: status, name: busy, status: 503, retryAfter: 2s}
              - {kind: latency, name: lag, delay: 300ms}
              - {kind: reset, name: cut, afterBytes: 10}
              - {kind: bandwidth, name: pace, bytesPerSecond: 20}
              - {kind: bandwidth, name: pace2, bytesPerSecond: 1}
              - {kind: slowFirstByte, name: lag2, delay: 200ms}
            """
        // Given a 503 ahead of two delays, a reset and two paces on one route, When it runs,
        let outcome = try run(yaml)
        let request = outcome.request("a")
        // Then the 503 acts (the reset after it is not tried), both delays hold the head up, and the
        // first pace brings the 40 body bytes in over two seconds
        #expect(request.status == 503 && request.attempts == 1)
        #expect(outcome.faults.map(\.site) == ["busy", "lag", "pace", "lag2"])
        let end = try #require(request.endNanoseconds)
        #expect((2_500_000_000...2_600_000_000).contains(end), "500 ms late, then 40 bytes at 20 B/s: ended at \(end) ns")
        #expect(outcome.timelineShowsFault("busy", on: "a") && outcome.timelineShowsFault("lag", on: "a"))
        // And without the status the reset acts after the delays: 10 bytes, then the lost connection
        let reset = try run(yaml.replacingOccurrences(of: "  - {kind: status, name: busy, status: 503, retryAfter: 2s}\n", with: ""))
        #expect(reset.request("a").error == .connectionLost, "\(reset.request("a"))")
        #expect(reset.faults.map(\.site) == ["lag", "cut", "pace", "lag2"])
        #expect((500_000_000...1_100_000_000).contains(reset.request("a").endNanoseconds ?? 0), "\(String(describing: reset.request("a").endNanoseconds))")
    }

    @Test("an empty schedule fires nothing, even for sites that always fire")
    func emptySchedule() throws {
        let outcome = try run("""
            traffic: {stubs: [{url: http://api.test/a}]}
            script: [{request: GET http://api.test/a, name: a}]
            faults: [{kind: refused, name: always}]
            schedule: {faults: []}
            """)
        #expect(outcome.faults.isEmpty && outcome.request("a").status == 200)
    }
}
