import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// UserCode/EverydayCalls.swift on the simulated network: what reaches the server for each call,
/// and what the caller gets back.
@Suite("Compat: everyday Alamofire calls")
struct EverydayCallsTests {
    private func echoBackend() -> SimulatedBackend {
        let backend = SimulatedBackend()
        for path in ["/search", "/items", "/items/*"] {
            backend.serve(path: path) { _ in .json(200, #"{"ok":true}"#) }
        }
        backend.serve(path: "/teapot") { _ in ResponsePlan(status: 418) }
        return backend
    }

    @Test("untyped parameters go in the query with URLEncoding.default: sorted keys, numeric booleans, bracketed arrays")
    func urlEncodedQuery() throws {
        let backend = echoBackend()
        let api = backend.withTransport { ShopAPI() }

        api.search("tape deck").response { _ in }
        try backend.run()

        let request = try #require(backend.requests.first)
        #expect(request.url.query == "exact=1&page=2&q=tape%20deck&tags%5B%5D=a&tags%5B%5D=b")
        // The configuration's headers (Alamofire's defaults plus the app's User-Agent) and the adapter's.
        #expect(request.headerFields[.userAgent] == "Shop/1.0")
        #expect(request.headerFields[.acceptEncoding] == HTTPHeader.defaultAcceptEncoding.value)
        #expect(request.headerFields[HTTPField.Name("X-Trace")!] == "shop")
    }

    @Test("JSONEncoding puts sorted JSON in the body; Basic authorization and Accept are sent")
    func jsonBodyWithBasicAuthorization() throws {
        let backend = echoBackend()
        let api = backend.withTransport { ShopAPI() }

        api.create(name: "reel").response { _ in }
        api.create(item: NewItem(name: "spool", count: 2)).response { _ in }
        try backend.run()

        let (untyped, typed) = (backend.requests[0], backend.requests[1])
        #expect(untyped.method == .post)
        #expect(untyped.body.map { String(decoding: $0, as: UTF8.self) } == #"{"count":1,"name":"reel"}"#)
        #expect(untyped.headerFields[.contentType] == "application/json")
        #expect(untyped.headerFields[.authorization] == "Basic " + Data("ada:lovelace".utf8).base64EncodedString())
        #expect(untyped.headerFields[.accept] == "application/json")
        #expect(typed.body.map { String(decoding: $0, as: UTF8.self) } == #"{"count":2,"name":"spool"}"#)
    }

    @Test("a URLRequest built with URLRequest(url:method:headers:) is sent as built")
    func handBuiltURLRequest() throws {
        let backend = echoBackend()
        let api = backend.withTransport { ShopAPI() }

        try api.replace(id: 9, body: Data("{}".utf8)).response { _ in }
        try backend.run()

        let request = try #require(backend.requests.first)
        #expect(request.method == .put && request.path == "/items/9")
        #expect(request.headerFields[HTTPField.Name("X-Request")!] == "replace")
        #expect(request.headerFields[.contentType] == "application/json")
    }

    @Test("a custom validator's error arrives as responseValidationFailed(customValidationFailed) with the error underneath")
    func customValidatorError() throws {
        let backend = echoBackend()
        let api = backend.withTransport { ShopAPI() }
        let explained = Box<String?>(nil)

        api.brew().responseData { response in explained.value = response.error.map(explain) }
        try backend.run()

        #expect(explained.value == "teapot")
        #expect(backend.hits("/teapot") == 1)   // a validation error is not retried by RetryPolicy for 418
    }

    @Test("HTTPHeaders is a collection: isEmpty, first, count, sorted(), map")
    func headersAsACollection() {
        var headers: HTTPHeaders = [.userAgent("Shop/1.0"), .accept("application/json")]
        headers.add(.authorization(bearerToken: "t"))
        headers.add(name: "accept", value: "text/plain")   // replaces the field in place, name spelling too
        #expect(describe(headers) == "3 fields, first User-Agent; accept,Authorization,User-Agent")
        #expect(headers["ACCEPT"] == "text/plain")
        #expect(describe(HTTPHeaders()) == "none")
        #expect(headers.map(\.value).last == "Bearer t")
    }

    @Test("cURLDescription and onURLRequestCreation see the adapted request")
    func requestAccessors() throws {
        let backend = echoBackend()
        let api = backend.withTransport { ShopAPI() }
        let created = Box<[String]>([])
        let curl = Box<String?>(nil)

        let request = api.create(name: "reel")
            .onURLRequestCreation { created.value.append($0.headers["X-Trace"] ?? "-") }
            .cURLDescription { curl.value = $0 }
        request.response { _ in }
        try backend.run()

        #expect(created.value == ["shop"])
        let description = try #require(curl.value)
        #expect(description.hasPrefix("$ curl -v \\\n\t-X POST"))
        #expect(description.contains(#"-H "X-Trace: shop""#))
        #expect(description.contains(#"-d "{\"count\":1,\"name\":\"reel\"}""#))
        #expect(description.hasSuffix(#""https://api.example.com/items""#))
        #expect(request.firstTask === request.lastTask)
    }
}
