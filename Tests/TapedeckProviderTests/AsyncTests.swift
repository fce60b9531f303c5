import Foundation
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

/// The async API under simulation: start synchronously, drive the scheduler, then await — one
/// result at a time. (`try await provider.request(_:)` itself is exercised live, in LiveTests.swift.)
@Suite("Provider: async API on the simulator")
struct AsyncTests {
    @Test("start, run, await: each result as the completion saw it; failures thrown as ProviderError with their cause")
    func startRunAwait() async throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session)
        let zen = provider.start(.zen)
        let missing = provider.start(.status(404))
        try world.run()
        #expect(try await zen.response.mapString() == "Keep it logically awesome.")
        do {
            _ = try await missing.response
            Issue.record("a 404 passes .successCodes validation")
        } catch let error as ProviderError {
            #expect(error.clientError?.responseCode == 404 && error.response?.statusCode == 404)
        }
        let first = try await zen.response
        #expect(try await zen.response === first, "awaiting again gives the same Response")
    }

    @Test("a delayed stub awaited after the run: the value is there at exactly t = 5 s; a waiter registered before the run gets the same object")
    func delayedStub() async throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session, stubClosure: MoyaProvider.delayedStub(5))
        let pending = provider.start(.user("ada"))
        let early = _Concurrency.Task { try await pending.response }   // may register before or after the completion: same result
        try world.run()
        #expect(world.scheduler.now == seconds(5))
        let response = try await pending.response
        #expect(try response.map(User.self) == User(login: "ada", id: 1))
        #expect(try await early.value === response)
    }

    @Test("PendingResponse.cancel before the scheduler runs: a cancellation, nothing reaches the network; cancelling twice is harmless")
    func cancelPending() async throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session)
        let pending = provider.start(.zen)
        pending.cancel()
        pending.cancel()
        #expect(pending.isCancelled)
        try world.run()
        let result = await pending.result
        #expect(result.failureError?.isExplicitlyCancelled == true, "\(result)")
        #expect(world.network.records.isEmpty)
    }

    @Test("same seed, same awaited results and trace hash (10 seeds, a connection lost on one route every other time)")
    func deterministic() async throws {
        func run(seed: UInt64) async throws -> (String, TraceHash) {
            let world = World(seed: seed, latency: .jittered(base: .milliseconds(60), jitter: .milliseconds(80)))
            world.network.faults = ClosureFaultHook { point, context, random in
                guard case .beforeConnect = point, context.request.url.path == "/search" else { return .proceed }
                return random.chance(1, in: 2) ? .fail(.networkConnectionLost) : .proceed
            }
            let provider = MoyaProvider<API>(session: world.session, trackInflights: true)
            let pendings = [provider.start(.zen), provider.start(.search("a", page: 1)), provider.start(.zen), provider.start(.user("b"))]
            try world.run()
            var outcome: [String] = []
            for pending in pendings { outcome.append(describe(await pending.result)) }
            return (outcome.joined(separator: " "), world.scheduler.traceHash)
        }
        var searchOutcomes: Set<String> = []
        for seed in UInt64(1)...10 {
            let first = try await run(seed: seed)
            let second = try await run(seed: seed)
            #expect(first == second, "seed \(seed)")
            searchOutcomes.insert(first.0.split(separator: " ")[1].description)
        }
        #expect(searchOutcomes == ["200", "error"], "the fault fires under some seeds and not others")
    }
}
