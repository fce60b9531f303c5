import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: lockstep makes URLSession deterministic")
struct DeterminismTests {
    /// 100 concurrent requests: half with tied latencies, half jittered, some failing, some
    /// cancelled, two client roots; returns the trace hash and the client's log.
    static func run(seed: UInt64, mode: Harness.Mode = .lockstep, requests: Int = 100) throws -> (hash: TraceHash, lines: [String]) {
        let fixture = BridgeFixture(seed: seed, mode: mode)
        fixture.network.stub(path: "/tied", options: RouteOptions(latency: .fixed(.milliseconds(50)), bandwidth: 20_000, chunkSize: 500),
                             ResponsePlan(status: 200, body: Data(count: 1_500)))
        fixture.network.stub(path: "/jitter", options: RouteOptions(latency: .jittered(base: .milliseconds(10), jitter: .milliseconds(40))),
                             .json(200, #"{"ok":true}"#))
        fixture.network.faults = FaultRules([.init(.beforeConnect, .fail(.networkConnectionLost), probability: (1, 10))])
        let pending = (0..<requests).map { fixture.scheduler.beginPending("request \($0)") }
        for index in 0..<requests {
            fixture.get("r\(index)", "http://api.test/\(index % 2 == 0 ? "tied" : "jitter")?i=\(index)")
            if index % 17 == 0 {
                fixture.at(.milliseconds(55), "r\(index)") { task in task.cancel() }
            }
        }
        // In unordered mode callbacks may still be on their way when the simulation runs dry.
        var rounds = 0
        while true {
            do {
                try fixture.scheduler.runUntilIdle()
            } catch SimulationError.stalled {
            }
            let done = fixture.delegate.lines.count { $0.contains("complete") }
            if done == requests || rounds > 2_000 { break }
            rounds += 1
            usleep(1_000)
        }
        pending.forEach { $0.resolve() }
        return (fixture.scheduler.traceHash, fixture.delegate.lines)
    }

    @Test("100 concurrent requests, 200 runs in one process: one trace hash")
    func sameSeedSameHash() throws {
        var hashes = Set<TraceHash>()
        var first: [String]?
        for _ in 0..<200 {
            let run = try Self.run(seed: 42)
            hashes.insert(run.hash)
            if first == nil { first = run.lines }
            #expect(run.lines.count { $0.contains("complete") } == 100)
        }
        #expect(hashes.count == 1)
        #expect(first?.contains { $0.contains("complete \(URLError.networkConnectionLost.rawValue)") } == true)
        #expect(first?.contains { $0.contains("complete \(URLError.cancelled.rawValue)") } == true)
    }

    @Test("different seeds give different, valid interleavings")
    func differentSeedsDiffer() throws {
        var hashes = Set<TraceHash>()
        for seed in UInt64(1)...10 {
            let run = try Self.run(seed: seed)
            hashes.insert(run.hash)
            #expect(run.lines.count { $0.contains("complete") } == 100)
        }
        #expect(hashes.count == 10)
    }

    /// Runs a few requests and waits until URLSession's delegate queue has run every callback.
    private static func settled(mode: Harness.Mode) throws -> BridgeFixture {
        let fixture = BridgeFixture(seed: 42, mode: mode)
        fixture.network.stub(path: "/a", options: RouteOptions(latency: .fixed(.milliseconds(5))), .json(200, "{}"))
        for index in 0..<8 { fixture.get("r\(index)", "http://api.test/a?i=\(index)") }
        var rounds = 0
        while fixture.delegate.lines.count(where: { $0.contains("complete") }) < 8 && rounds < 2_000 {
            do { try fixture.scheduler.runUntilIdle() } catch SimulationError.stalled {}
            rounds += 1
            usleep(1_000)
        }
        fixture.session.delegateQueue.waitUntilAllOperationsAreFinished()
        return fixture
    }

    // Not "ten unordered runs give more than one hash", which thread timing could make false: what
    // lockstep prevents is that callbacks run outside the simulation, where no seed orders them.
    // That happens to every single callback without lockstep, so it is asserted exactly.
    @Test("without lockstep every callback runs on URLSession's threads, outside the simulation's order")
    func unorderedRunsOutsideTheSimulation() throws {
        let unordered = try Self.settled(mode: .unordered)
        let lines = unordered.delegate.lines
        #expect(lines.count { $0.contains("complete") } == 8)
        // Each callback checked that it runs on the client's root queue; none did.
        let violations = unordered.scheduler.violations
        #expect(violations.count == lines.count)
        #expect(violations.allSatisfy { $0.kind == .notOnQueue && $0.queue == "client.rootQueue" && $0.runningOn.isEmpty })

        let lockstep = try Self.settled(mode: .lockstep)
        #expect(lockstep.delegate.lines.count == lines.count)
        #expect(lockstep.scheduler.violations.isEmpty)
    }

    @Test("several harnesses run side by side on different threads, each isolated and deterministic")
    func parallelHarnesses() throws {
        let expected = try Self.run(seed: 7, requests: 30).hash
        let results = Mutex<[TraceHash]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            if let hash = try? Self.run(seed: 7, requests: 30).hash {
                results.withLock { $0.append(hash) }
            }
        }
        #expect(results.withLock { $0 } == Array(repeating: expected, count: 6))
    }
}

@Suite("Bridge: cookies in a fixed order")
struct CookieOrderTests {
    @Test("the server sees a session's stored cookies sorted, whatever order corelibs' storage (a hashed dictionary) hands them in")
    func storedCookiesArriveSorted() throws {
        // Given a server that sets six cookies, then reads the Cookie field of the next request.
        let fixture = BridgeFixture()
        let names = ["zeta", "alpha", "mike", "bravo", "yankee", "echo"]
        fixture.network.route(path: "/set") { _, _ in
            .response(ResponsePlan(status: 200, headers: names.enumerated().map { ("Set-Cookie", "\($0.element)=\($0.offset); Path=/") }))
        }
        let seen = Mutex<String?>(nil)
        let fields = Mutex(0)
        fixture.network.route(path: "/read") { request, _ in
            seen.withLock { $0 = request.headerFields[.cookie] }
            fields.withLock { $0 = request.headerFields[fields: .cookie].count }
            return .response(.text(200, "ok"))
        }
        // When the session asks one, then the other.
        fixture.get("set", "http://api.test/set")
        fixture.get("read", "http://api.test/read", after: .seconds(1))
        try fixture.scheduler.runUntilIdle()
        // Then all six came back, in one order for every run of every process (six cookies in
        // storage order would be sorted by chance once in 720 runs).
        #expect(seen.withLock { $0 } == "alpha=1; bravo=3; echo=5; mike=2; yankee=4; zeta=0")
        // In one Cookie field, as sent (a field per cookie would reach a live server comma-joined).
        #expect(fields.withLock { $0 } == 1)
    }

    @Test("a snapshot's Cookie fields become one Cookie header joined with '; ' in a URLRequest")
    func cookieFieldsJoin() {
        var fields = HTTPFieldsBuilder()
        fields.append("Cookie", "a=1")
        fields.append("Cookie", "b=2")
        fields.append("Accept", "text/html")
        fields.append("Accept", "application/json")
        let request = RequestSnapshot(method: .get, url: URL(string: "http://api.test/")!, headerFields: fields.fields).urlRequest()
        #expect(request.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/html,application/json" || request.value(forHTTPHeaderField: "Accept") == "text/html, application/json")
    }
}
