import Foundation
import Testing
import TapedeckCassettes
import TapedeckScenarios
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fault plan file — the `faults:` of a scenario, or what `tapedeck serve --faults` reads — struck
/// into the traffic of a client on its own URLSession (as real Alamofire, Moya or an app's own
/// code make one) under a tape: the client sees each fault as it would from a real server, the
/// firings are listed, and the same seed strikes the same requests.
@Suite("Tape: a fault plan file against a client's own URLSession")
struct TapeFaultPlanTests {
    static let plan = """
    seed: 9
    faults:
      - name: first-503
        kind: status
        status: 503
        retryAfter: 1s
        route: GET http://api.test/items
        attempts: 1
      - name: slow-second
        kind: latency
        delay: 300ms
        route: GET http://api.test/items
        attempts: 2
      - name: cut
        kind: reset
        afterBytes: 10
        route: GET http://api.test/big
      - name: expiry
        kind: tokenExpiry
        at: 1s
    """

    /// A cassette answering `/items` with JSON and `/big` with 1,000 bytes.
    private func cassette(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("api.har.gz")
        func get(_ index: Int, _ path: String, _ body: Data, type: String) -> Interaction {
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test\(path)")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", type),
                                                                                   HeaderField("Content-Length", String(body.count))], body: body)))
        }
        try CassetteFile.write(Cassette(interactions: [
            get(0, "/items", Data(#"{"items":["tape"]}"#.utf8), type: "application/json"),
            get(1, "/big", Data(repeating: UInt8(ascii: "x"), count: 1_000), type: "application/octet-stream"),
        ]), to: url)
        return url
    }

    private struct Seen: Sendable, Equatable {
        var status: Int?
        var retryAfter: String?
        var bytes: Int
        var error: URLError.Code?
    }

    /// Three requests a client makes on its own URLSession: `/items` twice (its retry), `/big` once.
    private func client(_ tape: Tape) async throws -> [Seen] {
        let session = URLSession(configuration: tape.configuration())
        defer { session.invalidateAndCancel() }
        return try await tape.serving {
            var seen: [Seen] = []
            for path in ["/items", "/items", "/big"] {
                do {
                    let (data, response) = try await session.data(from: URL(string: "http://api.test\(path)")!)
                    let http = response as? HTTPURLResponse
                    seen.append(Seen(status: http?.statusCode, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"), bytes: data.count))
                } catch let error as URLError {
                    seen.append(Seen(bytes: 0, error: error.code))
                }
            }
            return seen
        }
    }

    @Test("the client gets the 503 with Retry-After, then the slow 200, then a reset: each firing listed with its request and attempt")
    func strikesAClientsOwnSession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let tape = try Tape(cassette: cassette(in: directory), mode: .replayOnly)
        let faults = tape.injectFaults(try FaultPlan.parse(Self.plan, file: "plan.yaml"))
        #expect(faults.seed == 9, "the plan's seed wins over the tape's")
        #expect(faults.unsupported == ["expiry (tokenExpiry)"])
        #expect(tape.faults === faults)

        let seen = try await client(tape)
        // (A status override keeps the recorded body, as in a scenario.)
        #expect(seen == [Seen(status: 503, retryAfter: "1", bytes: 18), Seen(status: 200, bytes: 18), Seen(bytes: 0, error: .networkConnectionLost)])
        #expect(faults.fired.map(\.site) == ["first-503", "slow-second", "cut"])
        #expect(faults.fired.map(\.attempt) == [1, 2, 1])
        #expect(faults.fired[2].url.absoluteString == "http://api.test/big" && faults.fired[2].method == "GET")
        // The latency moved the second answer 300 ms later on the virtual clock.
        #expect(faults.fired[1].time < faults.fired[2].time)
        try tape.finish()
    }

    @Test("probabilistic sites: the same seed strikes the same requests on every run; the seeds differ between them")
    func seeded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = try cassette(in: directory)
        let flaky = try FaultPlan.parse("""
        faults:
          - name: flaky
            kind: status
            status: 500
            probability: 500
        """, file: "flaky.yaml")
        func firings(seed: UInt64) async throws -> [Int] {
            let tape = try Tape(cassette: url, mode: .replayOnly)
            let faults = tape.injectFaults(flaky, seed: seed)
            let session = URLSession(configuration: tape.configuration())
            defer { session.invalidateAndCancel() }
            try await tape.serving {
                for _ in 0..<24 { _ = try await session.data(from: URL(string: "http://api.test/items")!) }
            }
            try tape.finish()
            return faults.fired.map(\.attempt)
        }
        let first = try await firings(seed: 3)
        #expect(try await firings(seed: 3) == first)
        #expect(!first.isEmpty && first.count < 24, "about half of the attempts: \(first)")
        var all: Set<[Int]> = [first]
        for seed in 4...8 as ClosedRange<UInt64> { all.insert(try await firings(seed: seed)) }
        #expect(all.count >= 3, "the seed decides which attempts fail: \(all)")
    }

    @Test("the .cassette trait's faults: a plan file beside the test strikes the test's traffic", .cassette("login", mode: .replayOnly, faults: "Scenarios/login-faults.yaml"))
    func trait() async throws {
        let tape = try #require(Tape.current)
        let faults = try #require(tape.faults)
        let session = URLSession(configuration: tape.configuration())
        defer { session.invalidateAndCancel() }
        let (_, response) = try await tape.serving { try await session.data(for: loginRequest()) }
        #expect((response as? HTTPURLResponse)?.statusCode == 429)
        #expect(faults.fired.map(\.site) == ["throttled"])
    }

    @Test("a bad plan file fails with its file, line and key")
    func badPlan() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let tape = try Tape(cassette: cassette(in: directory), mode: .replayOnly)
        let plan = directory.file("bad.yaml")
        try Data("faults:\n  - kind: status\n    stauts: 503\n".utf8).write(to: plan)
        #expect {
            try tape.injectFaults(from: plan)
        } throws: { error in
            let text = "\(error)"
            return text.contains("bad.yaml:3:") && text.contains("stauts")
        }
        #expect(tape.faults == nil)
        try tape.finish()
    }
}
