import Foundation
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

/// Moya's `trackInflights`: callers of equal endpoints share one request while it is in flight.
/// Unlike Moya, a caller's cancel ends only its own wait.
@Suite("Provider: in-flight de-duplication")
struct InflightTests {
    @Test("two callers of one endpoint share one exchange and get the same Response object, in call order")
    func sharing() throws {
        let world = World()
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, plugins: [RecordingPlugin(name: "p", log: log)], trackInflights: true)
        let order = Box<[(Int, Response?)]>([])
        provider.request(.zen) { result in order.mutate { $0.append((1, try? result.get())) } }
        provider.request(.zen) { result in order.mutate { $0.append((2, try? result.get())) } }
        provider.request(.user("other")) { result in order.mutate { $0.append((3, try? result.get())) } }
        let during = Box<[Endpoint: Int]>([:])
        world.scheduler.makeQueue(label: "app", target: nil).asyncAfter(deadline: seconds(0.05)) { during.value = provider.inflightRequests }
        try world.run()
        #expect(world.network.records.count == 2, "zen once, user once")
        #expect(during.value.values.sorted() == [1, 2])
        #expect(during.value[provider.endpoint(.zen)] == 2)
        #expect(provider.inflightRequests.isEmpty)
        let zen = order.value.filter { $0.0 != 3 }
        #expect(zen.map(\.0) == [1, 2])
        #expect(zen[0].1 != nil && zen[0].1 === zen[1].1, "the identical Response object")
        #expect(log.value.filter { $0.hasPrefix("p.willSend zen") }.count == 1, "one request, one willSend")
        #expect(log.value.filter { $0.hasPrefix("p.didReceive zen") }.count == 1, "one response, one didReceive")
        #expect(log.value.filter { $0.hasPrefix("p.process zen") }.count == 2, "each caller's own process")
    }

    @Test("equal endpoints share even from different call sites; different parameters do not; without trackInflights nothing is shared")
    func matching() throws {
        let world = World()
        let tracking = MoyaProvider<API>(session: world.session, trackInflights: true)
        for target in [API.search("a", page: 1), .search("a", page: 1), .search("a", page: 2)] { tracking.request(target) { _ in } }
        try world.run()
        #expect(world.network.records.count == 2)
        #expect(tracking.endpoint(.search("a", page: 1)) == tracking.endpoint(.search("a", page: 1)))
        #expect(tracking.endpoint(.search("a", page: 1)) != tracking.endpoint(.search("a", page: 2)))

        let plain = MoyaProvider<API>(session: world.session)
        plain.request(.zen) { _ in }
        plain.request(.zen) { _ in }
        try world.run()
        #expect(world.network.records.count == 4)
    }

    @Test("a completion that asks for the same endpoint again starts a new request (an ended flight is not shared)")
    func reRequestFromCompletion() throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session, trackInflights: true)
        let again = Box<String?>(nil)
        provider.request(.zen) { _ in provider.request(.zen) { again.value = describe($0) } }
        try world.run()
        #expect(again.value == "200")
        #expect(world.network.records.count == 2)
    }

    @Test("cancelling one caller's token does not cancel the others': it is told at once, the request goes on for the rest")
    func cancelOneOfThree() throws {
        let world = World()
        let provider = MoyaProvider<API>(session: world.session, trackInflights: true)
        let told = Box<[(caller: Int, time: VirtualInstant, result: String)]>([])
        let tokens = (1...3).map { caller in
            provider.request(.zen) { result in told.mutate { $0.append((caller, world.scheduler.now, describe(result))) } }
        }
        world.scheduler.makeQueue(label: "app", target: nil).asyncAfter(deadline: seconds(0.03)) { tokens[0].cancel() }
        try world.run()
        #expect(told.value.map(\.caller) == [1, 2, 3])
        #expect(told.value.map(\.result) == ["cancelled", "200", "200"])
        #expect(told.value[0].time == seconds(0.03), "the cancelled caller is told when it cancels")
        #expect(world.network.records.map(\.outcome) == [.response(200)])
    }

    @Test("when every caller cancels, the shared request itself is cancelled and each caller is told")
    func cancelAll() throws {
        let world = World()
        let log = Box<[String]>([])
        let provider = MoyaProvider<API>(session: world.session, plugins: [RecordingPlugin(name: "p", log: log)], trackInflights: true)
        let told = Box<[String]>([])
        let tokens = (1...2).map { _ in provider.request(.zen) { result in told.mutate { $0.append(describe(result)) } } }
        let app = world.scheduler.makeQueue(label: "app", target: nil)
        app.asyncAfter(deadline: seconds(0.02)) { tokens[1].cancel() }
        app.asyncAfter(deadline: seconds(0.04)) { tokens[0].cancel() }
        try world.run()
        #expect(told.value == ["cancelled", "cancelled"])
        #expect(world.network.records.map(\.outcome) == [.cancelled])
        #expect(log.value.filter { $0.hasPrefix("p.didReceive") } == ["p.didReceive zen cancelled"], "the request's end is still reported once")
        #expect(world.session.activeRequestCount == 0)
    }
}
