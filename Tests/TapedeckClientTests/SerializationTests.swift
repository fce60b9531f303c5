import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: response serializers, redirects, parameters")
struct SerializationTests {
    struct Item: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    @Test("data, string, JSON and Decodable serializers turn one body into four values")
    func serializers() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/item", .json(200, #"{"id":7,"name":"tape"}"#))
        let data = Box<Data?>(nil), string = Box<String?>(nil), json = Box<ClientJSON?>(nil), item = Box<Item?>(nil)
        let foundation = Box<String?>(nil)
        fixture.session.request("http://api.test/item")
            .responseData { data.value = $0.value }
            .responseString { string.value = $0.value }
            .responseJSON { response in
                // Alamofire's reading: a dictionary of Any, its numbers NSNumbers.
                let object = response.value as? [String: Any]
                foundation.value = (object?["id"] as? Int).map { "\($0) \(object?["name"] as? String ?? "-")" }
            }
            .responseDecodable(of: ClientJSON.self) { json.value = $0.value }
            .responseDecodable(of: Item.self) { item.value = $0.value }
        try fixture.run()
        #expect(data.value == Data(#"{"id":7,"name":"tape"}"#.utf8))
        #expect(string.value == #"{"id":7,"name":"tape"}"#)
        #expect(foundation.value == "7 tape")
        #expect(json.value == .object(["id": .number(7), "name": .string("tape")]))
        #expect(item.value == Item(id: 7, name: "tape"))
    }

    struct Rejected: Error, Equatable {
        let reason: String
    }

    /// A preprocessor that refuses every body, as an app does for an envelope saying `ok: false`.
    struct RejectingPreprocessor: DataPreprocessor {
        let error: any Error
        func preprocess(_ data: Data) throws -> Data { throw error }
    }

    @Test("a preprocessor's error is the app's own in every serializer (a custom serialization failure), a decoder's a decoding failure, a ClientError kept as it is")
    func preprocessorErrorsAreNotDecodingFailures() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/item", .json(200, #"{"id":7,"name":"tape"}"#))
        let refuse = RejectingPreprocessor(error: Rejected(reason: "nope"))
        let kinds = Box<[String: String]>([:])
        @Sendable func kind(_ error: ClientError?) -> String {
            switch error {
            case let .responseSerializationFailed(.customSerializationFailed(inner))?: return "custom \((inner as? Rejected)?.reason ?? "?")"
            case .responseSerializationFailed(.decodingFailed)?: return "decoding"
            case .responseSerializationFailed(.inputDataNilOrZeroLength)?: return "empty"
            case nil: return "value"
            default: return "other \(error!)"
            }
        }
        let request = fixture.session.request("http://api.test/item")
        request.responseData(dataPreprocessor: refuse) { r in kinds.mutate { $0["data"] = kind(r.error) } }
        request.responseString(dataPreprocessor: refuse) { r in kinds.mutate { $0["string"] = kind(r.error) } }
        request.responseDecodable(of: Item.self, dataPreprocessor: refuse) { r in kinds.mutate { $0["decodable"] = kind(r.error) } }
        // A ClientError from the preprocessor passes through unwrapped.
        let own = RejectingPreprocessor(error: ClientError.responseSerializationFailed(reason: .inputDataNilOrZeroLength))
        request.responseDecodable(of: Item.self, dataPreprocessor: own) { r in kinds.mutate { $0["decodable, ClientError"] = kind(r.error) } }
        // The decoder's own error is still a decoding failure.
        request.responseDecodable(of: [String].self) { r in kinds.mutate { $0["decoder"] = kind(r.error) } }
        try fixture.run()
        #expect(kinds.value == ["data": "custom nope", "string": "custom nope", "decodable": "custom nope",
                                "decodable, ClientError": "empty", "decoder": "decoding"])
    }

    @Test("every serializer completes only after all of them ran, in the order added")
    func completionsAfterAllSerializers() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/item", .json(200, #"{"id":1,"name":"a"}"#))
        let order = Box<[String]>([])
        fixture.session.request("http://api.test/item")
            .responseData { _ in order.mutate { $0.append("data") } }
            .responseString { _ in order.mutate { $0.append("string") } }
        try fixture.run()
        #expect(order.value == ["data", "string"])
        #expect(fixture.events.names.suffix(3) == ["requestDidFinish", "didParseResponse", "didParseResponse"])
    }

    @Test("empty bodies: fine for 204, 205 and HEAD; otherwise inputDataNilOrZeroLength; Decodable needs Empty")
    func emptyBodies() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        fixture.network.stub(host: "api.test", path: "/empty200", ResponsePlan(status: 200))
        let results = Box<[String: String]>([:])
        fixture.session.request("http://api.test/status/204").responseData { r in results.mutate { $0["204 data"] = r.value.map { "\($0.count)" } ?? "error" } }
        fixture.session.request("http://api.test/status/205").responseString { r in results.mutate { $0["205 string"] = r.value ?? "error" } }
        fixture.session.request("http://api.test/get", method: .head).responseJSON { r in results.mutate { $0["HEAD json"] = r.value is NSNull ? "null" : "error" } }
        fixture.session.request("http://api.test/empty200").responseData { r in
            results.mutate { $0["200 data"] = r.error.map { "\($0.isResponseSerializationError)" } ?? "value" }
        }
        fixture.session.request("http://api.test/status/204").responseDecodable(of: Empty.self) { r in results.mutate { $0["204 Empty"] = r.value == nil ? "error" : "empty" } }
        fixture.session.request("http://api.test/status/204").responseDecodable(of: Item.self) { r in
            results.mutate { $0["204 Item"] = r.error.map { "\($0.isResponseSerializationError)" } ?? "value" }
        }
        try fixture.run()
        #expect(results.value == ["204 data": "0", "205 string": "", "HEAD json": "null", "200 data": "true", "204 Empty": "empty", "204 Item": "true"])
    }

    @Test("a serializer rethrows the request's error unchanged (a validation error stays a validation error)")
    func serializerKeepsRequestError() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let error = Box<ClientError?>(nil)
        fixture.session.request("http://api.test/status/404").validate().responseDecodable(of: Item.self) { error.value = $0.error }
        try fixture.run()
        #expect(error.value?.responseCode == 404)
    }

    @Test("redirect policies per session and per request: follow, don't follow, modify")
    func redirectPolicies() throws {
        let fixture = ClientFixture(redirectHandler: Redirector.doNotFollow)
        fixture.network.stub(host: "api.test", path: "/old", ResponsePlan(status: 302, headers: [("Location", "/new")]))
        fixture.network.stub(host: "api.test", path: "/new", .text(200, "new"))
        fixture.network.stub(host: "api.test", path: "/elsewhere", .text(200, "elsewhere"))
        let statuses = Box<[String: String]>([:])
        func record(_ key: String) -> @Sendable (ClientDataResponse<Data?>) -> Void {
            { response in
                statuses.mutate { $0[key] = "\(response.response?.statusCode ?? 0) \(String(decoding: response.data ?? Data(), as: UTF8.self))" }
            }
        }
        fixture.session.request("http://api.test/old").response(completionHandler: record("session"))
        fixture.session.request("http://api.test/old").redirect(using: Redirector.follow).response(completionHandler: record("follow"))
        fixture.session.request("http://api.test/old").redirect(using: Redirector.modify { _, request, _ in
            var request = request
            request.url = URL(string: "http://api.test/elsewhere")
            return request
        }).response(completionHandler: record("modify"))
        try fixture.run()
        #expect(statuses.value == ["session": "302 ", "follow": "200 new", "modify": "200 elsewhere"])
        #expect(fixture.events.count("urlSession.willPerformHTTPRedirection") == 3)
    }

    @Test("form parameters go in the query for GET and in the body for POST; JSON parameters in the body")
    func parameterEncoders() throws {
        struct Query: Encodable, Sendable {
            let page: Int
            let tags: [String]
            let filter: [String: String]
            let exact: Bool
            let q: String
        }
        let fixture = ClientFixture()
        let seen = Box<[String]>([])
        fixture.network.route(host: "api.test", path: "/echo") { request, _ in
            seen.mutate {
                $0.append("\(request.method.rawValue) \(request.url.query ?? "") \(request.headerFields[.contentType] ?? "-") \(String(decoding: request.body ?? Data(), as: UTF8.self))")
            }
            return .response(.json(200, "{}"))
        }
        let parameters = Query(page: 2, tags: ["a", "b"], filter: ["kind": "tape deck"], exact: true, q: "x&y=z")
        fixture.session.request("http://api.test/echo", parameters: parameters).response { _ in }
        fixture.session.request("http://api.test/echo", method: .post, parameters: parameters).response { _ in }
        fixture.session.request("http://api.test/echo", method: .post, parameters: ["b": 2, "a": 1], encoder: JSONParameterEncoder.default).response { _ in }
        try fixture.run()
        let form = "exact=1&filter%5Bkind%5D=tape%20deck&page=2&q=x%26y%3Dz&tags%5B%5D=a&tags%5B%5D=b"
        #expect(seen.value == [
            "GET \(form) - ",
            "POST  application/x-www-form-urlencoded; charset=utf-8 \(form)",
            #"POST  application/json {"a":1,"b":2}"#,
        ])
    }

    @Test("the default headers: Accept-Encoding, Accept-Language and a User-Agent")
    func defaultHeaders() {
        let headers = HTTPHeaders.default
        #expect(headers["Accept-Encoding"] == "br;q=1.0, gzip;q=0.9, deflate;q=0.8")
        #expect(headers["accept-language"]?.isEmpty == false)
        #expect(headers["User-Agent"]?.hasPrefix("TapedeckClient/") == true)
        var custom = headers
        custom.update(name: "accept-encoding", value: "gzip")
        #expect(custom.count == 3 && custom["Accept-Encoding"] == "gzip")
    }

    @Test("async: the DataTask's handler is added when it is made, so driving the scheduler first is enough")
    func asyncResponses() async throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/item", .json(200, #"{"id":3,"name":"c"}"#))
        let task = fixture.session.request("http://api.test/item").serializingDecodable(Item.self)
        try fixture.run()
        #expect(try await task.value == Item(id: 3, name: "c"))
        #expect(await task.response.response?.statusCode == 200)
        #expect(fixture.events.names.last == "didParseResponse")
    }
}
