import Foundation
import Testing
import TapedeckClient
import TapedeckProvider
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Parameters spelled as Moya code spells them: `[String: Any]` and TapedeckClient's (Alamofire's)
/// `URLEncoding` / `JSONEncoding` values, or an app's own `ParameterEncoding`.
@Suite("Provider: Moya's parameter encodings")
struct EncodingTests {
    func request(_ task: TargetTask, method: HTTPMethod = .get) throws -> URLRequest {
        try Endpoint(url: "http://api.test/items", sampleResponseClosure: { .networkResponse(200, Data()) }, method: method, task: task,
                     httpHeaderFields: nil).urlRequest()
    }

    func body(_ request: URLRequest) -> String? {
        request.httpBody.flatMap { String(data: $0, encoding: .utf8) }
    }

    @Test("URLEncoding.default/.queryString/.httpBody and URLEncoding(destination:arrayEncoding:boolEncoding:) write what Alamofire's do, keys sorted")
    func urlEncoding() throws {
        // Built up line by line, as Moya code does with optional parameters.
        var parameters: [String: Any] = ["q": "a/b c"]
        parameters["page"] = 2
        parameters["tags"] = ["x", "y"]
        parameters["flag"] = true
        parameters["limit"] = nil as Int?
        let query = try request(.requestParameters(parameters: parameters, encoding: URLEncoding.default))
        #expect(query.url?.query == "flag=1&page=2&q=a/b%20c&tags%5B%5D=x&tags%5B%5D=y", "Alamofire leaves / unescaped")
        #expect(query.httpBody == nil)
        let strict = try request(.requestParameters(parameters: parameters, encoding: .queryString))
        #expect(strict.url?.query == "flag=1&page=2&q=a%2Fb%20c&tags%5B%5D=x&tags%5B%5D=y", "the provider's own shorthand escapes it")

        let form = try request(.requestParameters(parameters: ["b": 1, "a": "x"], encoding: URLEncoding.default), method: .post)
        #expect(body(form) == "a=x&b=1" && form.url?.query == nil)
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        let forcedQuery = try request(.requestParameters(parameters: ["a": 1], encoding: URLEncoding.queryString), method: .post)
        #expect(forcedQuery.url?.query == "a=1" && forcedQuery.httpBody == nil)
        let forcedBody = try request(.requestParameters(parameters: ["a": 1], encoding: URLEncoding.httpBody))
        #expect(body(forcedBody) == "a=1" && forcedBody.url?.query == nil)
        let spelled = URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)
        let literal = try request(.requestParameters(parameters: ["on": false, "t": ["1", "2"]], encoding: spelled))
        #expect(literal.url?.query == "on=false&t=1&t=2")
    }

    @Test("parameters made from an encoded model (JSONSerialization's NSNumbers): 1 and 0 stay numbers, only true and false are booleans, in TapedeckClient's URLEncoding and the provider's")
    func numbersFromJSONAreNotBooleans() throws {
        struct Query: Encodable { var page = 1, limit = 0, archived = false }
        let parameters = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Query())) as? [String: Any])
        let literal = URLEncoding(destination: .queryString, boolEncoding: .literal)
        let viaProvider = try request(.requestParameters(parameters: parameters, encoding: literal))
        #expect(viaProvider.url?.query == "archived=false&limit=0&page=1", "\(String(describing: viaProvider.url))")
        let sendable = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Query())) as? Parameters)
        let direct = try literal.encode(URLRequest(url: URL(string: "http://api.test/items")!), with: sendable)
        #expect(direct.url?.query == "archived=false&limit=0&page=1", "\(String(describing: direct.url))")
        // Swift's own values keep their meaning
        let swift = try literal.encode(URLRequest(url: URL(string: "http://api.test/items")!), with: ["on": true, "n": 1])
        #expect(swift.url?.query == "n=1&on=true")
    }

    @Test("JSONEncoding.default and .prettyPrinted: a JSON body with sorted keys and a Content-Type")
    func jsonEncoding() throws {
        let parameters: [String: Any] = ["title": "Bug", "labels": ["a", "b"], "meta": ["z": NSNull(), "n": 1]]
        let compact = try request(.requestParameters(parameters: parameters, encoding: JSONEncoding.default), method: .post)
        #expect(body(compact) == #"{"labels":["a","b"],"meta":{"n":1,"z":null},"title":"Bug"}"#)
        #expect(compact.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let pretty = try request(.requestParameters(parameters: ["b": 1, "a": 2], encoding: JSONEncoding.prettyPrinted), method: .post)
        #expect(body(pretty)?.contains("\n") == true)
        #expect(body(pretty)?.filter { !$0.isWhitespace } == #"{"a":2,"b":1}"#)
    }

    /// A JSON array as the whole body (the shape Moya's docs show for a custom encoding).
    struct ArrayBody: ParameterEncoding {
        func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
            var request = try urlRequest.asURLRequest()
            guard let items = parameters?["items"] else { return request }
            request.httpBody = try JSONSerialization.data(withJSONObject: items, options: [])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            return request
        }
    }

    struct Refusing: ParameterEncoding {
        struct Refusal: Error {}
        func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
            throw Refusal()
        }
    }

    @Test("an app's own ParameterEncoding gets the parameters; what it throws arrives as .parameterEncoding with that error")
    func customEncoding() throws {
        let array = try request(.requestParameters(parameters: ["items": [3, 1, 2]], encoding: ArrayBody()), method: .post)
        #expect(body(array) == "[3,1,2]")
        #expect {
            try request(.requestParameters(parameters: ["a": 1], encoding: Refusing()))
        } throws: { error in
            guard case let .parameterEncoding(underlying)? = error as? ProviderError else { return false }
            return underlying is Refusing.Refusal
        }
    }

    @Test("a composite task takes a JSON or httpBody encoding for the body; URLEncoding.default there is a parameterEncoding error naming it")
    func composite() throws {
        let json = try request(.requestCompositeParameters(bodyParameters: ["ids": [1, 2]], bodyEncoding: JSONEncoding.default,
                                                           urlParameters: ["since": "2024"]), method: .put)
        #expect(body(json) == #"{"ids":[1,2]}"# && json.url?.query == "since=2024")
        let form = try request(.requestCompositeParameters(bodyParameters: ["a": 1], bodyEncoding: URLEncoding.httpBody, urlParameters: ["v": 2]),
                               method: .post)
        #expect(body(form) == "a=1" && form.url?.query == "v=2")
        #expect {
            try request(.requestCompositeParameters(bodyParameters: ["a": 1], bodyEncoding: URLEncoding.default, urlParameters: [:]))
        } throws: { error in
            guard case let .parameterEncoding(failure as ParameterEncodingFailure)? = error as? ProviderError else { return false }
            return failure.description.contains("URLEncoding(destination: .methodDependent)")
        }
    }

    @Test("a non-Sendable Encodable (a public struct without the conformance) is a JSON body, as in Moya")
    func encodableBody() throws {
        let json = try request(.requestJSONEncodable(SignUp(email: "a@b.c", password: "pw")), method: .post)
        #expect(body(json) == #"{"email":"a@b.c","password":"pw"}"#)
    }
}

/// A public request body with no `Sendable` conformance, as a framework target declares one.
public struct SignUp: Encodable {
    public var email: String
    public var password: String
}
