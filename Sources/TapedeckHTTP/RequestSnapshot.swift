public import Foundation
public import HTTPTypes
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A request as it reached the network: method, URL, header fields and the body bytes.
///
/// It is a value (unlike `URLRequest`, whose body may hide in a stream), so responders, cassettes and
/// matchers can compare, store and print it.
public struct RequestSnapshot: Hashable, Sendable, CustomStringConvertible {
    /// The request method.
    public var method: HTTPRequest.Method
    /// The absolute URL.
    public var url: URL
    /// The header fields, in order.
    public var headerFields: HTTPFields
    /// The body bytes (from `httpBody` or, when that is nil, read from `httpBodyStream`).
    public var body: Data?

    /// A snapshot from its parts.
    public init(method: HTTPRequest.Method, url: URL, headerFields: HTTPFields = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
    }

    /// A snapshot of `request`; `body` overrides `request.httpBody` (pass what was read from its stream).
    public init(_ request: URLRequest, body: Data? = nil) {
        self.method = HTTPRequest.Method(request.httpMethod ?? "GET") ?? .get
        self.url = request.url ?? URL(string: "about:blank")!
        var fields = HTTPFields()
        // By name, case-insensitively, then as spelt: two spellings of one name (`Authorization`
        // and `authorization`) come in one order in every process, not in the dictionary's.
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }) {
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        self.headerFields = fields
        self.body = body ?? request.httpBody
    }

    /// `METHOD url`, e.g. `GET https://api.example/items?page=2`.
    public var description: String {
        "\(method.rawValue) \(url.absoluteString)"
    }

    /// The host, lowercased (empty when the URL has none).
    public var host: String {
        url.host?.lowercased() ?? ""
    }

    /// The path, percent-decoded, `/` when empty.
    public var path: String {
        url.path.isEmpty ? "/" : url.path
    }

    /// This request as a `URLRequest` (header fields folded into one value per name: with `, `,
    /// and `Cookie` fields with `; `, as a Cookie header joins its pairs).
    public func urlRequest() -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        for field in headerFields where field.name != .cookie {
            request.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        let cookies = headerFields[fields: .cookie].map(\.value)
        if !cookies.isEmpty { request.setValue(cookies.joined(separator: "; "), forHTTPHeaderField: "Cookie") }
        request.httpBody = body
        return request
    }
}
