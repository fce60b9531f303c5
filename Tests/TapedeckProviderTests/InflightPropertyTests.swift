import Foundation
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

/// De-duplication over many seeds, with transport faults, status overrides, resets, a slow request
/// closure on some seeds, and cancels at random instants (some before the request is even made).
@Suite("Provider: in-flight de-duplication over many seeds")
struct InflightPropertyTests {
    struct Call {
        let caller: Int
        let target: API
        let calledAt: VirtualInstant
        var cancelledAt: VirtualInstant?
        var told: [(time: VirtualInstant, result: Result<Response, ProviderError>)] = []
    }

    struct Outcome {
        var calls: [Call]
        var exchanges: Int
        var willSends: Int
        var traceHash: TraceHash
        var leftInFlight: Int
        var activeRequests: Int
    }

    static func world(seed: UInt64) throws -> Outcome {
        var plan = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 3)
        let world = World(seed: seed, latency: .jittered(base: .milliseconds(60), jitter: .milliseconds(80)))
        world.network.faults = ClosureFaultHook { point, _, random in
            switch point {
            case .beforeConnect: random.chance(1, in: 8) ? .fail(.networkConnectionLost) : .proceed
            case .responseHead: random.chance(1, in: 8) ? .overrideStatus([500, 503, 404][random.next(below: 3)]) : .proceed
            case let .bodyChunk(offset, size): random.chance(1, in: 12) ? .resetAfter(bytes: offset + size / 2) : .proceed
            case .completion, .metricsDelivery: .proceed
            }
        }
        let slowMapping = plan.chance(1, in: 3)
        let mappingQueue = world.scheduler.makeQueue(label: "app.mapping", target: nil)
        let provider = MoyaProvider<API>(
            session: world.session,
            requestClosure: { endpoint, done in
                guard slowMapping else { return MoyaProvider<API>.defaultRequestMapping(for: endpoint, closure: done) }
                mappingQueue.asyncAfter(delay: .milliseconds(25)) { MoyaProvider<API>.defaultRequestMapping(for: endpoint, closure: done) }
            },
            trackInflights: true)
        let targets: [API] = [.zen, .user("a"), .search("q", page: 1)]
        let app = world.scheduler.makeQueue(label: "app", target: nil)
        let calls = Box<[Call]>([])
        for caller in 0..<30 {
            let target = targets[plan.next(below: targets.count)]
            let at = seconds(Double(plan.next(below: 40)) * 0.01)
            let cancelAfter: Double? = plan.chance(1, in: 4) ? Double(plan.next(below: 15)) * 0.01 : nil
            app.asyncAfter(deadline: at) {
                calls.mutate { $0.append(Call(caller: caller, target: target, calledAt: world.scheduler.now)) }
                let token = provider.request(target) { result in
                    calls.mutate { calls in
                        let index = calls.firstIndex { $0.caller == caller }!
                        calls[index].told.append((world.scheduler.now, result))
                    }
                }
                guard let cancelAfter else { return }
                app.asyncAfter(delay: .seconds(rounding: cancelAfter)) {
                    calls.mutate { calls in
                        let index = calls.firstIndex { $0.caller == caller }!
                        if calls[index].told.isEmpty { calls[index].cancelledAt = world.scheduler.now }
                    }
                    token.cancel()
                }
            }
        }
        try world.run()
        return Outcome(
            calls: calls.value, exchanges: world.network.records.count,
            willSends: world.steps.count { $0.hasPrefix("provider.willSend") },
            traceHash: world.scheduler.traceHash, leftInFlight: provider.inflightRequests.count,
            activeRequests: world.session.activeRequestCount)
    }

    @Test("120 seeds: every caller is told once; only callers who cancelled see a cancellation; shared results are identical and arrive in call order")
    func properties() throws {
        var totalCalls = 0
        var totalExchanges = 0
        var sharedResponses = 0
        for seed in UInt64(0)..<120 {
            let outcome = try Self.world(seed: seed)
            totalCalls += outcome.calls.count
            totalExchanges += outcome.exchanges
            #expect(outcome.calls.count == 30, "seed \(seed)")
            #expect(outcome.leftInFlight == 0 && outcome.activeRequests == 0, "seed \(seed)")
            // One adaptation (so one willSend) per exchange; a cancel can land between the two.
            #expect(outcome.exchanges <= outcome.willSends, "seed \(seed)")
            for call in outcome.calls {
                #expect(call.told.count == 1, "seed \(seed) caller \(call.caller): told \(call.told.count) times")
                guard let told = call.told.first else { continue }
                let cancelled = (try? told.result.get()) == nil && told.result.failureError?.isExplicitlyCancelled == true
                if let cancelledAt = call.cancelledAt {
                    #expect(cancelled, "seed \(seed) caller \(call.caller) cancelled before it was told")
                    #expect(told.time <= cancelledAt.advanced(by: .milliseconds(200)), "seed \(seed): told soon after its cancel")
                } else {
                    #expect(!cancelled, "seed \(seed) caller \(call.caller): a cancellation it never asked for")
                }
            }
            // Callers holding the same Response object shared one request: same endpoint, told at the same instant.
            var holders: [ObjectIdentifier: [Call]] = [:]
            for call in outcome.calls {
                if let response = try? call.told.first?.result.get() { holders[ObjectIdentifier(response), default: []].append(call) }
            }
            for group in holders.values where group.count > 1 {
                sharedResponses += 1
                #expect(Set(group.map(\.target)).count == 1, "seed \(seed)")
                #expect(Set(group.map { $0.told[0].time }).count == 1, "seed \(seed)")
            }
            // Per endpoint, callers who did not cancel are told in the order they called.
            for target in Set(outcome.calls.map(\.target)) {
                let told = outcome.calls.filter { $0.target == target && $0.cancelledAt == nil }
                    .sorted { ($0.told[0].time, $0.calledAt) < ($1.told[0].time, $1.calledAt) }
                #expect(told.map(\.calledAt) == told.map(\.calledAt).sorted(), "seed \(seed) \(target)")
            }
        }
        #expect(totalExchanges < totalCalls * 2 / 3, "sharing saves requests: \(totalExchanges) exchanges for \(totalCalls) calls")
        #expect(sharedResponses > 60, "many responses were shared (\(sharedResponses))")
    }

    @Test("same seed, same trace hash and the same results (20 seeds, each run twice)")
    func determinism() throws {
        for seed in UInt64(0)..<20 {
            let first = try Self.world(seed: seed)
            let second = try Self.world(seed: seed)
            #expect(first.traceHash == second.traceHash, "seed \(seed)")
            #expect(first.calls.map { describe($0.told[0].result) } == second.calls.map { describe($0.told[0].result) }, "seed \(seed)")
        }
        #expect(try Self.world(seed: 1).traceHash != Self.world(seed: 2).traceHash, "the seed matters")
    }
}
