import Foundation
import Testing
import TapedeckClient
import TapedeckProvider
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Target → endpoint → URLRequest, for every task; endpoint changes and equality.
@Suite("Provider: targets and endpoints")
struct EndpointTests {
    func endpoint(_ task: TargetTask, method: HTTPMethod = .get, headers: [String: String]? = ["Accept": "application/json"]) -> Endpoint {
        Endpoint(url: "http://api.test/items", sampleResponseClosure: { .networkResponse(200, Data()) }, method: method, task: task,
                 httpHeaderFields: headers)
    }

    func body(_ request: URLRequest) -> String? {
        request.httpBody.flatMap { String(data: $0, encoding: .utf8) }
    }

    @Test("the default mapping: URL from base URL and path (an empty path keeps the base URL), method, task, header fields, sample response")
    func defaultMapping() throws {
        let endpoint = MoyaProvider<API>.defaultEndpointMapping(for: .user("ada"))
        #expect(endpoint.url == "http://api.test/users/ada")
        #expect(endpoint.method == .get && endpoint.httpHeaderFields == ["Accept": "application/json"])
        guard case let .networkResponse(200, data) = endpoint.sampleResponseClosure() else {
            Issue.record("expected a 200 sample")
            return
        }
        #expect(data == API.user("ada").sampleData)
        let root = StubbedTarget(baseURL: URL(string: "http://api.test/v1")!)
        #expect(URL(target: root).absoluteString == "http://api.test/v1")
        let request = try endpoint.urlRequest()
        #expect(request.httpMethod == "GET" && request.value(forHTTPHeaderField: "Accept") == "application/json" && request.httpBody == nil)
    }

    @Test("header names keep their spelling on the URLRequest (swift-corelibs-foundation re-cases names set one by one), as Moya's and Alamofire's do")
    func headerNamesKeepTheirSpelling() throws {
        let request = try endpoint(.requestPlain, headers: ["X-Request-ID": "7", "OCS-APIRequest": "true"]).urlRequest()
        #expect(request.allHTTPHeaderFields?["X-Request-ID"] == "7" && request.allHTTPHeaderFields?["OCS-APIRequest"] == "true",
                "\(request.allHTTPHeaderFields ?? [:])")
        // The client's own header setter, which Session uses for `headers:` and adapters use
        var plain = URLRequest(url: URL(string: "http://api.test/")!)
        plain.headers = ["X-NC-Account": "bob", "Accept": "application/json"]
        plain.headers.add(name: "X-API-Key", value: "k")
        #expect(plain.allHTTPHeaderFields == ["X-NC-Account": "bob", "Accept": "application/json", "X-API-Key": "k"], "\(plain.allHTTPHeaderFields ?? [:])")
        // Two spellings of one name are one field, the same one in every process
        let twice = try endpoint(.requestPlain, headers: ["Authorization": "from-target", "authorization": "from-plugin"]).urlRequest()
        #expect(twice.allHTTPHeaderFields == ["authorization": "from-plugin"], "\(twice.allHTTPHeaderFields ?? [:])")
    }

    @Test("plain and data tasks; JSON-encodable bodies with sorted keys and a Content-Type unless one is set; a custom encoder as given")
    func bodies() throws {
        #expect(try endpoint(.requestPlain).urlRequest().httpBody == nil)
        #expect(try endpoint(.requestData(Data([1, 2]))).urlRequest().httpBody == Data([1, 2]))
        let json = try endpoint(.requestJSONEncodable(Item(id: 3, name: "c")), method: .post).urlRequest()
        #expect(body(json) == #"{"id":3,"name":"c"}"#)
        #expect(json.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let kept = try endpoint(.requestJSONEncodable(Item(id: 3, name: "c")), headers: ["Content-Type": "application/vnd.x+json"]).urlRequest()
        #expect(kept.value(forHTTPHeaderField: "Content-Type") == "application/vnd.x+json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let custom = try endpoint(.requestCustomJSONEncodable(Item(id: 3, name: "c"), encoder: encoder)).urlRequest()
        #expect(body(custom)?.contains("\n") == true)
    }

    @Test("parameters: query for GET, form body for POST, JSON body; nested values, arrays, booleans and sorted keys")
    func parameters() throws {
        let parameters: [String: any Sendable] = ["q": "a b", "page": 2, "flag": true, "tags": ["x", "y"], "filter": ["max": 9, "min": 1]]
        let query = try endpoint(.requestParameters(parameters: parameters, encoding: .methodDependent)).urlRequest()
        #expect(query.url?.query == "filter%5Bmax%5D=9&filter%5Bmin%5D=1&flag=1&page=2&q=a%20b&tags%5B%5D=x&tags%5B%5D=y")
        #expect(query.httpBody == nil)
        let form = try endpoint(.requestParameters(parameters: ["b": 1, "a": false], encoding: .methodDependent), method: .post).urlRequest()
        #expect(body(form) == "a=0&b=1" && form.url?.query == nil)
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        let literal = try endpoint(.requestParameters(parameters: ["a": false, "t": ["1"]],
                                                      encoding: .url(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal))).urlRequest()
        #expect(literal.url?.query == "a=false&t=1")
        let json = try endpoint(.requestParameters(parameters: ["b": [1, 2], "a": ["z": NSNull()]], encoding: .json), method: .post).urlRequest()
        #expect(body(json) == #"{"a":{"z":null},"b":[1,2]}"#)
        #expect(json.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let custom = TargetTask.Encoding.custom("header") { request, parameters in
            var request = request
            request.setValue("\(parameters.count)", forHTTPHeaderField: "X-Count")
            return request
        }
        #expect(try endpoint(.requestParameters(parameters: ["a": 1], encoding: custom)).urlRequest().value(forHTTPHeaderField: "X-Count") == "1")
    }

    @Test("composite tasks: body data or body parameters, URL parameters in the query; a body encoding that would write the query is an error, not a crash")
    func composite() throws {
        let data = try endpoint(.requestCompositeData(bodyData: Data("raw".utf8), urlParameters: ["v": 1]), method: .post).urlRequest()
        #expect(body(data) == "raw" && data.url?.query == "v=1")
        let parameters = try endpoint(.requestCompositeParameters(bodyParameters: ["a": 1], bodyEncoding: .json, urlParameters: ["v": 2]),
                                      method: .post).urlRequest()
        #expect(body(parameters) == #"{"a":1}"# && parameters.url?.query == "v=2")
        #expect {
            try endpoint(.requestCompositeParameters(bodyParameters: ["a": 1], bodyEncoding: .queryString, urlParameters: [:])).urlRequest()
        } throws: { error in
            guard case .parameterEncoding? = error as? ProviderError else { return false }
            return true
        }
    }

    @Test("errors: a URL string that is no URL, an Encodable that throws, a parameter that is no JSON or form value")
    func errors() {
        let bad = Endpoint(url: "http://bad host", sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
                           task: .requestPlain, httpHeaderFields: nil)
        #expect(throws: ProviderError.self) { try bad.urlRequest() }
        #expect(Self.kind { try bad.urlRequest() } == "requestMapping")
        #expect(Self.kind { try endpoint(.requestJSONEncodable(Failing())).urlRequest() } == "encodableMapping")
        #expect(Self.kind { try endpoint(.requestParameters(parameters: ["d": Date()], encoding: .json)).urlRequest() } == "parameterEncoding")
        #expect(Self.kind { try endpoint(.requestParameters(parameters: ["d": Date()], encoding: .queryString)).urlRequest() } == "parameterEncoding")
    }

    /// The case of the ProviderError `body` throws ("none" when it returns, the error when it is another type).
    static func kind(_ body: () throws -> URLRequest) -> String {
        do {
            _ = try body()
            return "none"
        } catch {
            guard let error = error as? ProviderError else { return "not a ProviderError: \(error)" }
            switch error {
            case .requestMapping: return "requestMapping"
            case .encodableMapping: return "encodableMapping"
            case .parameterEncoding: return "parameterEncoding"
            default: return "\(error)"
            }
        }
    }

    @Test("adding header fields (new values win, an empty set changes nothing) and replacing the task; equality follows the built request")
    func modifyingAndComparing() throws {
        let base = endpoint(.requestPlain)
        let added = base.adding(newHTTPHeaderFields: ["Accept": "text/plain", "X-New": "1"])
        #expect(added.httpHeaderFields == ["Accept": "text/plain", "X-New": "1"])
        #expect(base.adding(newHTTPHeaderFields: [:]) == base)
        #expect(added != base)
        let replaced = base.replacing(task: .requestParameters(parameters: ["q": 1], encoding: .queryString))
        #expect(try replaced.urlRequest().url?.query == "q=1")
        #expect(replaced != base && replaced.url == base.url)
        let other = Endpoint(url: base.url, sampleResponseClosure: { .networkError(URLError(.timedOut)) }, method: .get,
                             task: .requestPlain, httpHeaderFields: ["Accept": "application/json"])
        #expect(other == base, "the sample response is not compared")
        #expect(Set([base, other, added]).count == 2)
        let sameJSON = endpoint(.requestParameters(parameters: ["a": 1, "b": 2], encoding: .json))
        let reordered = endpoint(.requestParameters(parameters: ["b": 2, "a": 1], encoding: .json))
        #expect(sameJSON == reordered, "sorted keys: the same bytes")
        #expect(endpoint(.requestPlain, method: .post) != base)
    }

    @Test("MultiTarget forwards every property, the authorization type included")
    func multiTarget() {
        let multi = MultiTarget(API.create(Item(id: 1, name: "a")))
        #expect(multi.path == "/items" && multi.method == .post && multi.headers == ["Accept": "application/json"])
        #expect(MultiTarget(API.secure).authorizationType == .bearer && MultiTarget(API.zen).authorizationType == nil)
        #expect(MoyaProvider<MultiTarget>.defaultEndpointMapping(for: multi) == MoyaProvider<API>.defaultEndpointMapping(for: .create(Item(id: 1, name: "a"))))
    }
}

struct Failing: Encodable, Sendable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "always fails"))
    }
}
