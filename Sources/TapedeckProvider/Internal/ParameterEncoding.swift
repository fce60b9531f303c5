import Foundation
import TapedeckClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The provider's own encodings (TargetTask.Encoding): `[String: Any]` parameters into a URLRequest,
// as Alamofire's URLEncoding and JSONEncoding do, keys sorted at every level (the JSON too), so the
// same parameters always produce the same bytes — but strict about values (see TargetTask.Encoding).
// Any other ParameterEncoding (TapedeckClient's URLEncoding/JSONEncoding, the app's own) gets the
// parameters as TapedeckClient's `Parameters`.

/// Why parameters could not be encoded (wrapped in ``ProviderError/parameterEncoding(_:)``).
public struct ParameterEncodingFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in a sentence.
    public let description: String
}

extension TargetTask.Encoding {
    /// `request` with `parameters` added as this encoding says.
    func encode(_ request: URLRequest, with parameters: [String: Any]) throws -> URLRequest {
        switch kind {
        case let .url(destination, arrays, bools):
            return try FormEncoding(arrays: arrays, bools: bools).encode(request, parameters, destination: destination)
        case let .json(prettyPrinted):
            return try JSONParameters.encode(request, parameters, prettyPrinted: prettyPrinted)
        case let .custom(_, encode):
            return try encode(request, TargetTask.clientParameters(parameters))
        }
    }

    /// True when this encoding puts the parameters in the body whatever the method (valid as a
    /// composite task's body encoding).
    var writesBody: Bool {
        switch kind {
        case let .url(destination, _, _): destination == .httpBody
        case .json, .custom: true
        }
    }
}

extension TargetTask {
    /// `parameters` put into `request` by `encoding`: the provider's own encodings directly, any
    /// other `ParameterEncoding` through its `encode(_:with:)`.
    static func encode(_ parameters: [String: Any], with encoding: any ParameterEncoding, into request: URLRequest) throws -> URLRequest {
        if let own = encoding as? Encoding { return try own.encode(request, with: parameters) }
        return try encoding.encode(request, with: clientParameters(parameters))
    }

    /// `parameters` as TapedeckClient's `Parameters` (`[String: any Sendable]`). `Any` and
    /// `any Sendable` have one representation (Sendable is a marker protocol: no witness table), so
    /// each value is reinterpreted as it is, not copied or inspected; TargetTask's
    /// `@unchecked Sendable` is the promise that makes this sound. (`as Any` keeps the value boxed:
    /// without it the generic `unsafeBitCast` would open the existential and see the value's own size.)
    static func clientParameters(_ parameters: [String: Any]) -> Parameters {
        parameters.mapValues { unsafeBitCast($0 as Any, to: (any Sendable).self) }
    }

    /// True when `encoding` puts parameters in the body whatever the method (what a composite
    /// task's body encoding must do): a URL encoding only with the `httpBody` destination.
    static func writesBody(_ encoding: any ParameterEncoding) -> Bool {
        switch encoding {
        case let own as Encoding: own.writesBody
        case let url as URLEncoding: url.destination == .httpBody
        default: true
        }
    }

    /// How an encoding is named in an error message: `queryString`, `URLEncoding(destination: .queryString)`, a type name.
    static func describe(_ encoding: any ParameterEncoding) -> String {
        switch encoding {
        case let own as Encoding: own.description
        case let url as URLEncoding: "URLEncoding(destination: .\(url.destination))"
        default: "\(type(of: encoding))"
        }
    }
}

/// `a=1&b[]=x&c[d]=y`, RFC 3986 escaping, sorted keys.
struct FormEncoding {
    let arrays: TargetTask.Encoding.ArrayEncoding
    let bools: TargetTask.Encoding.BoolEncoding

    func encode(_ request: URLRequest, _ parameters: [String: Any], destination: TargetTask.Encoding.FormDestination) throws -> URLRequest {
        guard let url = request.url else { throw ParameterEncodingFailure(description: "the request has no URL") }
        if parameters.isEmpty { return request }
        let query = try self.query(parameters)
        var request = request
        let method = request.httpMethod ?? "GET"
        let inQuery = switch destination {
        case .methodDependent: ["GET", "HEAD", "DELETE"].contains(method)
        case .queryString: true
        case .httpBody: false
        }
        if inQuery {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw ParameterEncodingFailure(description: "the URL \(url.absoluteString) has no components")
            }
            let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + query
            guard let encoded = components.url else {
                throw ParameterEncodingFailure(description: "the query made the URL \(url.absoluteString) invalid")
            }
            request.url = encoded
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(query.utf8)
        }
        return request
    }

    func query(_ parameters: [String: Any]) throws -> String {
        var pairs: [(String, String)] = []
        for key in parameters.keys.sorted() {
            try flatten(parameters[key]!, key: key, into: &pairs)
        }
        return pairs.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    private func flatten(_ value: Any, key: String, into pairs: inout [(String, String)]) throws {
        switch ParameterValue(value) {
        case let .dictionary(dictionary):
            for child in dictionary.keys.sorted() { try flatten(dictionary[child]!, key: "\(key)[\(child)]", into: &pairs) }
        case let .array(array):
            for element in array { try flatten(element, key: arrays == .brackets ? "\(key)[]" : key, into: &pairs) }
        case let .bool(bool):
            pairs.append((key, bools == .numeric ? (bool ? "1" : "0") : (bool ? "true" : "false")))
        case let .scalar(text):
            pairs.append((key, text))
        case .null:
            pairs.append((key, ""))
        case .unsupported:
            throw ParameterEncodingFailure(description: "the value of \(key) (\(type(of: value))) cannot be form-encoded")
        }
    }

    /// RFC 3986 unreserved characters pass through (letters, digits, `-._~`); the rest is escaped.
    static func escape(_ string: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }
}

/// Parameters as a JSON body with sorted keys.
enum JSONParameters {
    static func encode(_ request: URLRequest, _ parameters: [String: Any], prettyPrinted: Bool) throws -> URLRequest {
        var request = request
        let object = try foundationObject(parameters, path: "")
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .fragmentsAllowed]
        if prettyPrinted { options.insert(.prettyPrinted) }
        do {
            request.httpBody = try JSONSerialization.data(withJSONObject: object, options: options)
        } catch {
            throw ParameterEncodingFailure(description: "the parameters are not JSON: \(error)")
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// The value as the Foundation types JSONSerialization writes.
    private static func foundationObject(_ value: Any, path: String) throws -> Any {
        switch ParameterValue(value) {
        case let .dictionary(dictionary):
            var object: [String: Any] = [:]
            for (key, child) in dictionary { object[key] = try foundationObject(child, path: "\(path).\(key)") }
            return object
        case let .array(array):
            return try array.enumerated().map { try foundationObject($0.element, path: "\(path)[\($0.offset)]") }
        case let .bool(bool):
            return bool
        case .scalar:
            return value
        case .null:
            return NSNull()
        case .unsupported:
            throw ParameterEncodingFailure(description: "the value at \(path.isEmpty ? "the top" : path) (\(type(of: value))) is not JSON")
        }
    }
}

/// A parameter value, classified.
enum ParameterValue {
    case dictionary([String: Any])
    case array([Any])
    case bool(Bool)
    /// A string or a number, as text.
    case scalar(String)
    case null
    case unsupported

    init(_ value: Any) {
        if let bool = parameterBool(value) {
            self = .bool(bool)
            return
        }
        switch value {
        case let string as String: self = .scalar(string)
        case let integer as Int: self = .scalar(String(integer))
        case let integer as Int64: self = .scalar(String(integer))
        case let integer as Int32: self = .scalar(String(integer))
        case let integer as UInt: self = .scalar(String(integer))
        case let integer as UInt64: self = .scalar(String(integer))
        case let number as Double: self = .scalar(String(number))
        case let number as Float: self = .scalar(String(number))
        case let number as Decimal: self = .scalar("\(number)")
        case is NSNull: self = .null
        case let dictionary as [String: Any]: self = .dictionary(dictionary)
        case let array as [Any]: self = .array(array)
        default: self = .unsupported
        }
    }
}
