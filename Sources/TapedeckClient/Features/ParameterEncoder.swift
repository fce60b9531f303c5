public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Encodes `Encodable` parameters into a URLRequest.
public protocol ParameterEncoder: Sendable {
    /// `request` with `parameters` added (nil: unchanged); throws ``ClientError/parameterEncoderFailed(reason:)``
    /// (``JSONParameterEncoder``: ``ClientError/parameterEncodingFailed(reason:)``, as Alamofire).
    func encode<Parameters: Encodable & Sendable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest
}

/// JSON in the body, `Content-Type: application/json` unless one is set.
///
/// Bodies never depend on dictionary order: the default encoder sorts keys, and an encoder you pass
/// is used with `.sortedKeys` added (through a copy of its settings; yours is not changed).
open class JSONParameterEncoder: ParameterEncoder, @unchecked Sendable {
    // @unchecked Sendable: `encoder` is never mutated after init (a copy is made to add `.sortedKeys`).

    /// Compact JSON, sorted keys.
    public static var `default`: JSONParameterEncoder { JSONParameterEncoder() }
    /// Indented JSON, sorted keys.
    public static var prettyPrinted: JSONParameterEncoder { JSONParameterEncoder(outputFormatting: [.sortedKeys, .prettyPrinted]) }
    /// Compact JSON, sorted keys (the same as ``default`` here).
    public static var sortedKeys: JSONParameterEncoder { JSONParameterEncoder() }

    /// The encoder used (with `.sortedKeys` added).
    public let encoder: JSONEncoder

    /// An encoder writing with `encoder`'s settings plus `.sortedKeys`.
    public init(encoder: JSONEncoder = JSONEncoder()) {
        self.encoder = Self.sortingKeys(encoder)
    }

    /// An encoder writing JSON with `outputFormatting` (sorted keys are added).
    public convenience init(outputFormatting: JSONEncoder.OutputFormatting) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = outputFormatting
        self.init(encoder: encoder)
    }

    /// How the JSON is laid out.
    public var outputFormatting: JSONEncoder.OutputFormatting { encoder.outputFormatting }

    /// `request` with the JSON of `parameters` as its body.
    open func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        var request = request
        do {
            request.httpBody = try encoder.encode(parameters)
        } catch {
            throw ClientError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// `encoder` itself when it sorts keys, else a new encoder with its settings and `.sortedKeys`.
    private static func sortingKeys(_ encoder: JSONEncoder) -> JSONEncoder {
        guard !encoder.outputFormatting.contains(.sortedKeys) else { return encoder }
        let copy = JSONEncoder()
        copy.outputFormatting = encoder.outputFormatting.union(.sortedKeys)
        copy.dateEncodingStrategy = encoder.dateEncodingStrategy
        copy.dataEncodingStrategy = encoder.dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = encoder.nonConformingFloatEncodingStrategy
        copy.keyEncodingStrategy = encoder.keyEncodingStrategy
        copy.userInfo = encoder.userInfo
        return copy
    }
}

extension ParameterEncoder where Self == JSONParameterEncoder {
    /// A ``JSONParameterEncoder`` with the defaults: `encoder: .json`.
    public static var json: JSONParameterEncoder { JSONParameterEncoder() }

    /// A ``JSONParameterEncoder`` using `encoder`'s settings (plus `.sortedKeys`).
    public static func json(encoder: JSONEncoder = JSONEncoder()) -> JSONParameterEncoder {
        JSONParameterEncoder(encoder: encoder)
    }
}

extension ParameterEncoder where Self == URLEncodedFormParameterEncoder {
    /// A ``URLEncodedFormParameterEncoder`` with the defaults: `encoder: .urlEncodedForm`.
    public static var urlEncodedForm: URLEncodedFormParameterEncoder { URLEncodedFormParameterEncoder() }

    /// A ``URLEncodedFormParameterEncoder`` with this form encoder and destination.
    public static func urlEncodedForm(
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: URLEncodedFormParameterEncoder.Destination = .methodDependent
    ) -> URLEncodedFormParameterEncoder {
        URLEncodedFormParameterEncoder(encoder: encoder, destination: destination)
    }
}

/// `application/x-www-form-urlencoded` parameters: in the query for GET, HEAD and DELETE (or
/// always/never, as chosen), otherwise in the body.
public struct URLEncodedFormParameterEncoder: ParameterEncoder {
    /// Where the form goes.
    public enum Destination: Sendable {
        /// The query for GET, HEAD and DELETE; the body otherwise.
        case methodDependent
        /// Always the query.
        case queryString
        /// Always the body.
        case httpBody
    }

    /// Where the form goes.
    public let destination: Destination
    /// How values become form text.
    public let encoder: URLEncodedFormEncoder

    /// An encoder putting the form where `destination` says.
    public init(encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: Destination = .methodDependent) {
        self.encoder = encoder
        self.destination = destination
    }

    /// Method-dependent destination, default form encoding.
    public static let `default` = URLEncodedFormParameterEncoder()

    /// `request` with `parameters` as a form, in the query or the body (with
    /// `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless one is set).
    public func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        guard let url = request.url else {
            throw ClientError.parameterEncoderFailed(reason: .missingRequiredComponent(.url))
        }
        guard let method = request.method else {
            throw ClientError.parameterEncoderFailed(reason: .missingRequiredComponent(.httpMethod(rawValue: "nil")))
        }
        let query: String
        do {
            query = try encoder.encode(parameters)
        } catch {
            throw ClientError.parameterEncoderFailed(reason: .encoderFailed(error: error))
        }
        var request = request
        let inQuery: Bool
        switch destination {
        case .methodDependent: inQuery = [.get, .head, .delete].contains(method)
        case .queryString: inQuery = true
        case .httpBody: inQuery = false
        }
        if inQuery {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw ClientError.parameterEncoderFailed(reason: .missingRequiredComponent(.url))
            }
            let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
            components.percentEncodedQuery = query.isEmpty ? components.percentEncodedQuery : existing + query
            guard let newURL = components.url else {
                throw ClientError.parameterEncoderFailed(reason: .missingRequiredComponent(.url))
            }
            request.url = newURL
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(query.utf8)
        }
        return request
    }
}

/// Turns an `Encodable` value into `a=1&b[]=x&c[d]=y` form text. Keys are sorted, so the output is
/// deterministic; nested containers use bracket notation, booleans `true`/`false`.
public struct URLEncodedFormEncoder: Sendable {
    /// How an array's elements are keyed (Alamofire's cases: `brackets`, `noBrackets`,
    /// `indexInBrackets`, `custom`).
    public typealias ArrayEncoding = URLEncoding.ArrayEncoding
    /// How booleans are written (`numeric`: `1`/`0`, `literal`: `true`/`false`).
    public typealias BoolEncoding = URLEncoding.BoolEncoding

    /// How arrays are keyed.
    public let arrayEncoding: ArrayEncoding
    /// How booleans are written.
    public let boolEncoding: BoolEncoding

    /// An encoder with these options (keys are always sorted). Booleans default to `true`/`false`
    /// (Alamofire's default is `1`/`0`; docs/client.md).
    ///
    /// ```swift
    /// let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .numeric)
    /// ```
    public init(arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .literal) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// The form text for `value`, which must encode as a keyed container.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoded = try JSONEncoder().encode(value)
        guard case let .object(object) = try JSONDecoder().decode(FormValue.self, from: encoded) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "form parameters must encode to a keyed container"))
        }
        var pairs: [(String, String)] = []
        for key in object.keys.sorted() {
            flatten(object[key]!, key: key, into: &pairs)
        }
        return pairs.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    /// The form for `value` as UTF-8 data (Alamofire's `encode(_:) -> Data`).
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let text: String = try encode(value)
        return Data(text.utf8)
    }

    private func flatten(_ value: FormValue, key: String, into pairs: inout [(String, String)]) {
        switch value {
        case let .object(object):
            for child in object.keys.sorted() { flatten(object[child]!, key: "\(key)[\(child)]", into: &pairs) }
        case let .array(array):
            for (index, element) in array.enumerated() { flatten(element, key: arrayEncoding.encode(key: key, atIndex: index), into: &pairs) }
        case let .bool(bool):
            pairs.append((key, boolEncoding.encode(value: bool)))
        case let .scalar(text):
            pairs.append((key, text))
        }
    }

    /// Percent-escapes per RFC 3986 (letters, digits, `-._~` pass through; space becomes `%20`).
    static func escape(_ string: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }
}

/// A JSON value as form text: scalars keep their JSON spelling (integers, decimals); booleans are
/// kept apart for the encoder's ``URLEncodedFormEncoder/boolEncoding``.
private enum FormValue: Decodable {
    case object([String: FormValue])
    case array([FormValue])
    case bool(Bool)
    case scalar(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .scalar("")
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .scalar(String(integer))
        } else if let number = try? container.decode(Double.self) {
            self = .scalar(String(number))
        } else if let string = try? container.decode(String.self) {
            self = .scalar(string)
        } else if let array = try? container.decode([FormValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: FormValue].self))
        }
    }
}
