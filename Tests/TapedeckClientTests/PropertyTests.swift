import Foundation
import Testing
import TapedeckBridge
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whole-pipeline properties over many seeds: whatever the interleaving of cancellations, retries,
/// metrics orders and transport faults, every response handler runs exactly once, every request ends
/// finished, nothing stalls, no queue rule is broken and no protocol instance is left behind.
@Suite("Pipeline: properties over many seeds")
struct PropertyTests {
    /// What one seeded world did.
    struct Outcome {
        var handlerCalls: [Int]
        var expectedCalls: [Int]
        var states: [Request.State]
        var errors: [String]
        var anomalies: [String]
        var violations: [QueueViolation]
        var retainedProtocols: Int
        var illegalTransitions: [String]
        var traceHash: TraceHash
        var end: VirtualInstant
        var retries: Int
    }

    /// Builds a world from `seed`: 24 requests over routes with jittered latency, a fault hook that
    /// draws failures, status overrides, resets, stalls and metrics orders from the seeded stream,
    /// RetryPolicy on the session, timeouts on some requests, and cancels at random virtual instants
    /// (some before the request ever starts).
    static func world(seed: UInt64) throws -> Outcome {
        var plan = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let fixture = ClientFixture(seed: seed, interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.25),
                                    metricsGracePeriod: .milliseconds(300))
        let network = fixture.network
        let jitter = RouteOptions(latency: .jittered(base: .milliseconds(20), jitter: .milliseconds(40)))
        network.stub(host: "api.test", path: "/json", options: jitter, .json(200, #"{"ok":true,"n":1}"#))
        network.stub(host: "api.test", path: "/blob",
                     options: RouteOptions(latency: .fixed(.milliseconds(10)), bandwidth: 4_000),
                     ResponsePlan(status: 200, headers: [("Content-Type", "application/octet-stream")], body: Data(repeating: 7, count: 2_000)))
        network.stub(host: "api.test", path: "/created", options: jitter, ResponsePlan(status: 201))
        network.faults = ClosureFaultHook { point, _, random in
            switch point {
            case .beforeConnect:
                if random.chance(1, in: 12) { return .fail(.networkConnectionLost) }
                if random.chance(1, in: 25) { return .fail(.cannotConnectToHost) }
                if random.chance(1, in: 30) { return .stall }
                return .proceed
            case .responseHead:
                return random.chance(1, in: 8) ? .overrideStatus([500, 503, 404, 408][random.next(below: 4)]) : .proceed
            case let .bodyChunk(offset, size):
                return random.chance(1, in: 20) ? .resetAfter(bytes: offset + size / 2) : .proceed
            case .completion:
                return random.chance(1, in: 40) ? .delay(.milliseconds(random.next(below: 500))) : .proceed
            case .metricsDelivery:
                let orders: [MetricsDelivery] = [.beforeCompletion, .afterCompletion, .afterCompletion, .missing, .duplicate]
                return .deliverMetrics(orders[random.next(below: orders.count)])
            }
        }

        let count = 24
        let calls = Box([Int](repeating: 0, count: count))
        var expected = [Int](repeating: 0, count: count)
        var requests: [DataRequest] = []
        let paths = ["/json", "/blob", "/created"]
        for index in 0..<count {
            let path = paths[plan.next(below: paths.count)]
            let timeout = plan.chance(1, in: 3) ? TimeInterval(1 + plan.next(below: 3)) : nil
            let request = fixture.session.request("http://api.test\(path)?i=\(index)") { urlRequest in
                if let timeout { urlRequest.timeoutInterval = timeout }
            }
            if plan.chance(1, in: 2) { request.validate() }
            let record: @Sendable () -> Void = { calls.mutate { $0[index] += 1 } }
            switch plan.next(below: 3) {
            case 0:
                request.response { _ in record() }
                expected[index] = 1
            case 1:
                request.responseData { _ in record() }.responseString { _ in record() }
                expected[index] = 2
            default:
                request.responseJSON { _ in record() }
                expected[index] = 1
            }
            switch plan.next(below: 10) {
            case 0:
                request.cancel()
            case 1, 2, 3:
                let delay = Duration.milliseconds(plan.next(below: 3_000))
                fixture.session.rootQueue.asyncAfter(delay: delay) { request.cancel() }
            default:
                break
            }
            requests.append(request)
        }
        try fixture.run()
        return Outcome(
            handlerCalls: calls.value, expectedCalls: expected,
            states: requests.map(\.state),
            errors: requests.map { request in
                // The URLError's userInfo prints in hash order, so compare codes, not descriptions.
                request.error.map { error in (error.underlyingError as? URLError).map { "URLError \($0.code.rawValue)" } ?? "\(error)" } ?? "-"
            },
            anomalies: fixture.events.details(of: "ledgerAnomaly"),
            violations: fixture.scheduler.violations,
            retainedProtocols: fixture.harness.retainedProtocolCount,
            illegalTransitions: fixture.network.illegalTransitions + fixture.harness.illegalTransitions,
            traceHash: fixture.scheduler.traceHash,
            end: fixture.scheduler.now,
            retries: requests.reduce(0) { $0 + $1.retryCount })
    }

    @Test("200 seeds: each handler runs once, every request finishes, no rule broken, nothing leaks")
    func everyRequestCompletesOnce() throws {
        var retries = 0
        var cancelled = 0
        var anomalyKinds = Set<String>()
        for seed in UInt64(1)...200 {
            let outcome = try Self.world(seed: seed)
            #expect(outcome.handlerCalls == outcome.expectedCalls, "seed \(seed): \(outcome.states) \(outcome.errors)")
            #expect(outcome.states.allSatisfy { $0 == .finished || $0 == .cancelled }, "seed \(seed): \(outcome.states)")
            #expect(outcome.violations.isEmpty, "seed \(seed): \(outcome.violations)")
            #expect(outcome.retainedProtocols == 0, "seed \(seed)")
            #expect(outcome.illegalTransitions.isEmpty, "seed \(seed): \(outcome.illegalTransitions)")
            #expect(!outcome.anomalies.contains { $0.hasPrefix("duplicateCompletion") }, "seed \(seed): \(outcome.anomalies)")
            retries += outcome.retries
            cancelled += outcome.states.count { $0 == .cancelled }
            anomalyKinds.formUnion(outcome.anomalies)
        }
        // The worlds really exercised what the property is about.
        #expect(retries > 100)
        #expect(cancelled > 200)
        #expect(anomalyKinds.isSuperset(of: ["metricsMissing", "duplicateMetrics"]), "\(anomalyKinds)")
    }

    @Test("same seed, same world: trace hash, errors and end instant match over 20 seeds × 5 runs")
    func sameSeedSameWorld() throws {
        var hashes = Set<TraceHash>()
        for seed in UInt64(1)...20 {
            let first = try Self.world(seed: seed)
            hashes.insert(first.traceHash)
            for _ in 0..<4 {
                let again = try Self.world(seed: seed)
                #expect(again.traceHash == first.traceHash, "seed \(seed)")
                #expect(again.errors == first.errors, "seed \(seed)")
                #expect(again.end == first.end, "seed \(seed)")
            }
        }
        #expect(hashes.count == 20, "different seeds give different worlds")
    }
}
