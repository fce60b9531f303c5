// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Everyday calls: a configured Session, parameters and encodings, headers, URLRequests, validators,
// error helpers, closure interceptors, request accessors.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

struct TeapotError: Error, Equatable {}

struct NewItem: Encodable, Sendable {
    let name: String
    let count: Int
}

final class ShopAPI: Sendable {
    let session: Session

    init() {
        let configuration = URLSessionConfiguration.af.default
        configuration.headers.add(.userAgent("Shop/1.0"))
        configuration.timeoutIntervalForRequest = 10
        let traceAdapter = Adapter { request, _, completion in
            var request = request
            request.headers.update(name: "X-Trace", value: "shop")
            completion(.success(request))
        }
        session = Session(configuration: configuration,
                          interceptor: Interceptor(adapters: [traceAdapter], retriers: [RetryPolicy(retryLimit: 1)]))
    }

    /// GET with untyped parameters (URLEncoding.default: in the query, keys sorted, numeric booleans).
    func search(_ text: String) -> DataRequest {
        let parameters: Parameters = ["q": text, "page": 2, "exact": true, "tags": ["a", "b"]]
        return session.request("https://api.example.com/search", parameters: parameters)
    }

    /// POST with a JSON body from untyped parameters, Basic authorization.
    func create(name: String) -> DataRequest {
        session.request("https://api.example.com/items", method: .post,
                        parameters: ["name": name, "count": 1], encoding: JSONEncoding.default,
                        headers: [.authorization(username: "ada", password: "lovelace"), .accept("application/json")])
    }

    /// POST with an Encodable body.
    func create(item: NewItem) -> DataRequest {
        session.request("https://api.example.com/items", method: .post, parameters: item,
                        encoder: JSONParameterEncoder.default, requestModifier: { $0.timeoutInterval = 5 })
    }

    /// PUT from a hand-built URLRequest.
    func replace(id: Int, body: Data) throws -> DataRequest {
        var urlRequest = try URLRequest(url: "https://api.example.com/items/\(id)", method: .put, headers: ["X-Request": "replace"])
        urlRequest.headers.add(.contentType("application/json"))
        urlRequest.httpBody = body
        return session.request(urlRequest)
    }

    /// A teapot is an error, by a custom validator.
    func brew() -> DataRequest {
        session.request("https://api.example.com/teapot")
            .validate { _, response, _ in
                response.statusCode == 418 ? .failure(TeapotError()) : .success(())
            }
            .validate(contentType: ["application/json"])
    }
}

/// What a caller makes of an error, with Alamofire's helpers.
func explain(_ error: AFError) -> String {
    if error.isResponseValidationError, let code = error.responseCode { return "status \(code)" }
    if error.isResponseValidationError, error.underlyingError is TeapotError { return "teapot" }
    if error.isExplicitlyCancelledError { return "cancelled" }
    if error.isSessionTaskError, let urlError = error.underlyingError as? URLError { return "transport \(urlError.code.rawValue)" }
    if error.isResponseSerializationError { return "bad body" }
    return error.localizedDescription
}

/// Header fields as a collection.
func describe(_ headers: HTTPHeaders) -> String {
    guard !headers.isEmpty, let first = headers.first else { return "none" }
    return "\(headers.count) fields, first \(first.name); " + headers.sorted().map(\.name).joined(separator: ",")
}
