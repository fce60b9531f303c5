public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Untyped request parameters, as Alamofire's `Parameters`: a dictionary of strings, numbers,
/// booleans, arrays and nested dictionaries.
public typealias Parameters = [String: any Any & Sendable]

/// Puts ``Parameters`` into a URLRequest (the untyped counterpart of ``ParameterEncoder``).
///
/// ```swift
/// session.request("http://api.test/search", parameters: ["q": "tape", "page": 2])   // URLEncoding.default
/// session.request("http://api.test/items", method: .post, parameters: ["name": "a"], encoding: JSONEncoding.default)
/// ```
public protocol ParameterEncoding: Sendable {
    /// The request `urlRequest` makes, with `parameters` added (nil: unchanged); throws
    /// ``ClientError/parameterEncodingFailed(reason:)`` when they cannot be encoded.
    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest
}

/// Form-style parameters (`a=1&b[]=x&c[d]=y`): in the query for GET, HEAD and DELETE (or always,
/// or never, as chosen), otherwise in the body with
/// `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless one is set.
///
/// Keys are sorted at every level, so the text does not depend on dictionary order (Alamofire
/// sorts only the top level).
public struct URLEncoding: ParameterEncoding {
    /// Where the parameters go.
    public enum Destination: Sendable {
        /// The query for GET, HEAD and DELETE; the body otherwise.
        case methodDependent
        /// Always the query.
        case queryString
        /// Always the body.
        case httpBody

        func encodesParametersInURL(for method: HTTPMethod) -> Bool {
            switch self {
            case .methodDependent: [.get, .head, .delete].contains(method)
            case .queryString: true
            case .httpBody: false
            }
        }
    }

    /// How an array's elements are keyed.
    public enum ArrayEncoding: Sendable {
        /// `key[]=a&key[]=b` (the default).
        case brackets
        /// `key=a&key=b`.
        case noBrackets
        /// `key[0]=a&key[1]=b`.
        case indexInBrackets
        /// Whatever the closure makes of the key and the element's index.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)

        func encode(key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            case let .custom(encoding): encoding(key, index)
            }
        }
    }

    /// How booleans are written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0` (the default).
        case numeric
        /// `true` and `false`.
        case literal

        func encode(value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// Method-dependent destination, brackets for arrays, numeric booleans.
    public static var `default`: URLEncoding { URLEncoding() }
    /// Always in the query.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// Always in the body.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    /// Where the parameters go.
    public let destination: Destination
    /// How arrays are keyed.
    public let arrayEncoding: ArrayEncoding
    /// How booleans are written.
    public let boolEncoding: BoolEncoding

    /// An encoding with these choices.
    public init(destination: Destination = .methodDependent, arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// The request with `parameters` in its query or body.
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters else { return request }
        if let method = request.method, destination.encodesParametersInURL(for: method) {
            guard let url = request.url else { throw ClientError.parameterEncodingFailed(reason: .missingURL) }
            if var components = URLComponents(url: url, resolvingAgainstBaseURL: false), !parameters.isEmpty {
                let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
                components.percentEncodedQuery = existing + query(parameters)
                request.url = components.url
            }
        } else {
            if request.headers["Content-Type"] == nil {
                request.headers.update(.contentType("application/x-www-form-urlencoded; charset=utf-8"))
            }
            request.httpBody = Data(query(parameters).utf8)
        }
        return request
    }

    /// The escaped `key=value` pairs for one parameter: nested dictionaries become `key[sub]`,
    /// arrays follow ``arrayEncoding``, booleans ``boolEncoding``.
    public func queryComponents(fromKey key: String, value: Any) -> [(String, String)] {
        if let bool = parameterBool(value) { return [(escape(key), escape(boolEncoding.encode(value: bool)))] }
        switch value {
        case let dictionary as [String: Any]:
            return dictionary.keys.sorted().flatMap { queryComponents(fromKey: "\(key)[\($0)]", value: dictionary[$0]!) }
        case let array as [Any]:
            return array.enumerated().flatMap { queryComponents(fromKey: arrayEncoding.encode(key: key, atIndex: $0.offset), value: $0.element) }
        default:
            return [(escape(key), escape("\(value)"))]
        }
    }

    /// Percent-escapes `string` for a query: RFC 3986's unreserved characters, `?` and `/` pass
    /// through; everything else is escaped.
    public func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: Self.queryAllowed) ?? string
    }

    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return allowed
    }()

    private func query(_ parameters: Parameters) -> String {
        parameters.keys.sorted()
            .flatMap { queryComponents(fromKey: $0, value: parameters[$0]!) }
            .map { "\($0)=\($1)" }
            .joined(separator: "&")
    }
}

/// Parameters as a JSON body (`JSONSerialization`), with `Content-Type: application/json` unless
/// one is set. Keys are always sorted (`.sortedKeys` is added to the options), so a body does not
/// depend on dictionary order.
public struct JSONEncoding: ParameterEncoding {
    /// Why the parameters could not be JSON.
    public enum Error: Swift.Error, Sendable {
        /// `JSONSerialization.isValidJSONObject` refused them.
        case invalidJSONObject
    }

    /// Compact JSON.
    public static var `default`: JSONEncoding { JSONEncoding() }
    /// Indented JSON.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: .prettyPrinted) }

    /// The writing options (`.sortedKeys` is always added).
    public let options: JSONSerialization.WritingOptions

    /// An encoding writing with `options` (plus `.sortedKeys`).
    public init(options: JSONSerialization.WritingOptions = []) {
        self.options = options
    }

    /// The request with the JSON of `parameters` as its body.
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try encode(urlRequest, withJSONObject: parameters)
    }

    /// The request with any JSON-serializable value (an array, say) as its body.
    public func encode(_ urlRequest: any URLRequestConvertible, withJSONObject jsonObject: Any? = nil) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let jsonObject else { return request }
        guard JSONSerialization.isValidJSONObject(jsonObject) else {
            throw ClientError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: Error.invalidJSONObject))
        }
        do {
            request.httpBody = try JSONSerialization.data(withJSONObject: jsonObject, options: options.union(.sortedKeys))
        } catch {
            throw ClientError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        if request.headers["Content-Type"] == nil {
            request.headers.update(.contentType("application/json"))
        }
        return request
    }
}

/// The convertible a Session builds from `session.request(url, method:, parameters:, encoding:, ...)`:
/// the URLRequest, then the modifier, then the parameters, on every attempt.
struct RequestConvertible: URLRequestConvertible {
    let url: any URLConvertible
    let method: HTTPMethod
    let parameters: Parameters?
    let encoding: any ParameterEncoding
    let headers: HTTPHeaders?
    let requestModifier: RequestModifier?

    func asURLRequest() throws -> URLRequest {
        var request = try URLRequest(url: url, method: method, headers: headers)
        try requestModifier?(&request)
        return try encoding.encode(request, with: parameters)
    }
}

/// `value` as a `Bool` when it is one: a Swift `Bool`, or an `NSNumber` made from one (what
/// `JSONSerialization` gives for `true`, `objCType` "c") — not an `NSNumber` 0 or 1, which
/// corelibs casts to `Bool` too (parameters from `JSONSerialization` of an encoded model hold their
/// integers so). Alamofire tells them apart the same way.
package func parameterBool(_ value: Any) -> Bool? {
    guard let bool = value as? Bool else { return nil }
    if type(of: value) == Bool.self { return bool }
    if let number = value as? NSNumber { return String(cString: number.objCType) == "c" ? bool : nil }
    return bool
}
