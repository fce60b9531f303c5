import Foundation
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: redirects and synthesised metrics")
struct RedirectMetricsTests {
    private func redirectFixture(policy: @escaping @Sendable (HTTPURLResponse, URLRequest) -> URLRequest?) -> BridgeFixture {
        let fixture = BridgeFixture(redirectPolicy: policy)
        fixture.network.stub(path: "/old", options: RouteOptions(latency: .fixed(.milliseconds(10))), ResponsePlan(status: 301, headers: [("Location", "/new")]))
        fixture.network.route(path: "/new") { request, _ in .response(.text(200, "new \(request.url.query ?? "")")) }
        fixture.network.route(path: "/elsewhere") { _, _ in .response(.text(200, "elsewhere")) }
        return fixture
    }

    @Test("the client's delegate decides each redirect; following it ends at the target without wasRedirectedTo")
    func followRedirect() throws {
        let fixture = redirectFixture { _, request in request }
        fixture.get("A", "http://api.test/old")
        try fixture.scheduler.runUntilIdle()
        #expect(fixture.delegate.lines == [
            "0.01s A redirect 301 → /new", "0.01s A response 200", "0.01s A data 4", "0.01s A metrics", "0.01s A complete ok",
        ])
        let metrics = try #require(fixture.delegate.metrics(fixture.task("A")!))
        #expect(metrics.redirectCount == 1)
        #expect(metrics.transactions.map(\.url.path) == ["/old", "/new"])
    }

    @Test("refusing a redirect hands the 3xx to the client; modifying it goes where the client says")
    func refuseAndModify() throws {
        let refusing = redirectFixture { _, _ in nil }
        refusing.get("A", "http://api.test/old")
        try refusing.scheduler.runUntilIdle()
        #expect(refusing.delegate.lines.contains("0.01s A response 301"))

        let modifying = redirectFixture { _, request in
            var changed = request
            changed.url = URL(string: "http://api.test/elsewhere")
            return changed
        }
        modifying.get("A", "http://api.test/old")
        try modifying.scheduler.runUntilIdle()
        #expect(String(decoding: modifying.delegate.body(modifying.task("A")!), as: UTF8.self) == "elsewhere")
    }

    @Test("metrics values come from virtual time for every task")
    func metricsValues() throws {
        let fixture = BridgeFixture()
        fixture.network.stub(path: "/m", options: RouteOptions(latency: .fixed(.milliseconds(200)), connect: .milliseconds(50), bandwidth: 2_000, chunkSize: 1_000),
                             ResponsePlan(status: 200, body: Data(count: 2_000)))
        fixture.get("A", "http://api.test/m", after: .seconds(1))
        try fixture.scheduler.runUntilIdle()
        let metrics = try #require(fixture.delegate.metrics(fixture.task("A")!))
        let transaction = try #require(metrics.transactions.first)
        #expect(metrics.taskStart == seconds(1))
        #expect(transaction.connectStart == seconds(1) && transaction.connectEnd == seconds(1.05))
        #expect(transaction.requestStart == seconds(1.05) && transaction.requestEnd == seconds(1.05))
        #expect(transaction.responseStart == seconds(1.25) && transaction.responseEnd == seconds(2.25))
        #expect(transaction.bytesReceived == 2_000 && transaction.status == 200)
        #expect(metrics.taskEnd == seconds(2.25))
        #expect(fixture.harness.deliveredMetrics.count == 1)
    }

    @Test("metrics arrive before or after the completion, or twice, or never, as injected")
    func metricsOrderInjection() throws {
        let fixture = BridgeFixture()
        fixture.network.stub(path: "/*", .text(200, "ok"))
        fixture.network.faults = ClosureFaultHook { point, context, _ in
            guard point == .metricsDelivery else { return .proceed }
            switch context.request.url.path {
            case "/after": return .deliverMetrics(.afterCompletion)
            case "/twice": return .deliverMetrics(.duplicate)
            case "/never": return .deliverMetrics(.missing)
            default: return .deliverMetrics(.beforeCompletion)
            }
        }
        for (index, path) in ["before", "after", "twice", "never"].enumerated() {
            fixture.get(path, "http://api.test/\(path)", after: .seconds(Double(index)))
        }
        try fixture.scheduler.runUntilIdle()
        func tail(_ name: String) -> [String] {
            fixture.delegate.lines.filter { $0.contains(" \(name) ") && ($0.hasSuffix("metrics") || $0.contains("complete")) }
                .map { String($0.split(separator: " ").last!) }
        }
        #expect(tail("before") == ["metrics", "ok"])
        #expect(tail("after") == ["ok", "metrics"])
        #expect(tail("twice") == ["metrics", "ok", "metrics"])
        #expect(tail("never") == ["ok"])
    }
}
