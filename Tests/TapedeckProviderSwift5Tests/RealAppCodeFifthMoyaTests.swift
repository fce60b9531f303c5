import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckProvider
import TapedeckSimulatedBackend

/// UserCode/FifthRoundPlugins.swift (Moya 15 plugin shapes from open-source apps, Swift 5 mode) on
/// the simulated network.
@Suite("Compat: a fifth round of Moya app code")
struct RealAppCodeFifthMoyaTests {
    @Test("a process plugin turns an error envelope into a failure; prepare plugins set the timeout per raw target and add token fields; map at a key path with a snake-case decoder")
    func pluginsOverMultiTarget() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "shop.example.com", path: "/v2/items") { _ in
            .json(200, #"{"code":0,"data":{"items":[{"item_id":1,"display_name":"Lamp"}]}}"#)
        }
        backend.serve(host: "shop.example.com", path: "/v2/orders") { _ in .json(200, #"{"code":4003,"msg":"sold out"}"#) }
        backend.serve(host: "shop.example.com", path: "/v2/reports/export") { _ in .json(200, #"{"code":0}"#) }
        let service = backend.withTransport { ShopService() }

        // When
        service.loadItems(page: 2)
        service.auth.update(token: "t-2")
        service.order(itemId: 1)
        service.export()
        try backend.run()

        // Then
        #expect(service.items == [ShopItem(itemId: 1, displayName: "Lamp")])
        #expect(service.failures == ["order 4003 sold out 200"])
        #expect(service.exported == 200)
        let list = try #require(backend.requests.first { $0.url.path == "/v2/items" })
        #expect(list.url.query == "page=2&tags=new&tags=sale")
        // The token is read when the plugin's prepare runs: during the session's adaptation, after
        // the caller's later `update(token:)` (Moya 15 runs prepare in its MoyaRequestInterceptor too)
        #expect(list.headerFields[.authorization] == "t-2")
        #expect(list.headerFields.first { $0.name.canonicalName == "stream-auth-type" }?.value == "jwt")
        let order = try #require(backend.requests.first { $0.url.path == "/v2/orders" })
        #expect(order.headerFields[.authorization] == "t-2")
        #expect(order.body.map { String(decoding: $0, as: UTF8.self) } == #"{"item_id":1}"#)
        #expect(service.auth.seenTimeouts == [15, 15, 120])
    }
}
