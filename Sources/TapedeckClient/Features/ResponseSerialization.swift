public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Turns a finished request's response and data into a value. Built-in serializers rethrow the
/// request's error unchanged when there is one (so a validation error surfaces as itself).
public protocol ResponseSerializer: Sendable {
    /// The value the serializer produces.
    associatedtype SerializedObject: Sendable

    /// Methods for which an empty body is fine (default: HEAD).
    var emptyRequestMethods: Set<HTTPMethod> { get }
    /// Status codes for which an empty body is fine (default: 204, 205).
    var emptyResponseCodes: Set<Int> { get }

    /// The value for this response, or the error that fails it (the request's own `error`, when
    /// there is one, for the built-in serializers).
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> SerializedObject
}

extension ResponseSerializer {
    /// HEAD.
    public var emptyRequestMethods: Set<HTTPMethod> { [.head] }
    /// 204 and 205.
    public var emptyResponseCodes: Set<Int> { [204, 205] }

    /// Whether this request/response pair may have an empty body.
    public func emptyResponseAllowed(forRequest request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        (request?.method.map { emptyRequestMethods.contains($0) } ?? false)
            || (response.map { emptyResponseCodes.contains($0.statusCode) } ?? false)
    }
}

/// The body as `Data`.
public struct DataResponseSerializer: ResponseSerializer {
    /// A serializer returning the body.
    public init() {}

    /// The body; an allowed empty body is empty `Data`.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Data {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(forRequest: request, response: response) else {
                throw ClientError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return Data()
        }
        return data
    }
}

/// The body as a `String`, in the response's charset (UTF-8 when it names none, or the given encoding).
public struct StringResponseSerializer: ResponseSerializer {
    /// The encoding to use (nil: the response's charset, else UTF-8).
    public let encoding: String.Encoding?

    /// A serializer decoding text with `encoding`.
    public init(encoding: String.Encoding? = nil) {
        self.encoding = encoding
    }

    /// The body as text; an allowed empty body is "".
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> String {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(forRequest: request, response: response) else {
                throw ClientError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return ""
        }
        let chosen = encoding ?? Self.encoding(named: response?.textEncodingName) ?? .utf8
        guard let string = String(data: data, encoding: chosen) else {
            throw ClientError.responseSerializationFailed(reason: .stringSerializationFailed(encoding: chosen))
        }
        return string
    }

    static func encoding(named name: String?) -> String.Encoding? {
        switch name?.lowercased() {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "latin1": return .isoLatin1
        case "us-ascii", "ascii": return .ascii
        case "utf-16": return .utf16
        default: return nil
        }
    }
}

/// A JSON document as a Sendable value (what `responseJSON` hands over).
public indirect enum JSON: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number (every JSON number is a `Double` here).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object.
    case object([String: JSON])

    /// The member named `key` of an object (nil otherwise).
    public subscript(key: String) -> JSON? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array (nil when out of range or not an array).
    public subscript(index: Int) -> JSON? {
        if case let .array(array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }
}

extension JSON: Decodable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSON].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }
}

/// The body as a `JSON` value; an allowed empty body is `.null`.
public struct JSONResponseSerializer: ResponseSerializer {
    /// A serializer producing ``JSON``.
    public init() {}

    /// The body as ``JSON``; an allowed empty body is ``JSON/null``.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> JSON {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(forRequest: request, response: response) else {
                throw ClientError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return .null
        }
        do {
            return try JSONDecoder().decode(JSON.self, from: data)
        } catch {
            throw ClientError.responseSerializationFailed(reason: .jsonSerializationFailed(error: error))
        }
    }
}

/// A type that stands for "no body" when a response may be empty.
public protocol EmptyResponse {
    /// The value that stands for an empty body.
    static func emptyValue() -> Self
}

/// The value an allowed empty response decodes to.
public struct Empty: Codable, Hashable, Sendable, EmptyResponse {
    /// The empty value.
    public static let value = Empty()
    /// ``value``.
    public static func emptyValue() -> Empty { value }
}

/// The body decoded with a `JSONDecoder`.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// The decoder used.
    public let decoder: JSONDecoder

    /// A serializer decoding with `decoder`.
    public init(decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    /// The body decoded as `T`; an allowed empty body is `T.emptyValue()` when `T` is an
    /// ``EmptyResponse``, else an error.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> T {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(forRequest: request, response: response) else {
                throw ClientError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            guard let empty = T.self as? any EmptyResponse.Type, let value = empty.emptyValue() as? T else {
                throw ClientError.responseSerializationFailed(reason: .invalidEmptyResponse(type: "\(T.self)"))
            }
            return value
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw ClientError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

