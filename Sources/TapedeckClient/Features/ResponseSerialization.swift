public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Turns a finished request's response and data into a value. Built-in serializers rethrow the
/// request's error unchanged when there is one (so a validation error surfaces as itself).
public protocol ResponseSerializer: Sendable {
    associatedtype SerializedObject: Sendable

    /// Methods for which an empty body is fine (default: HEAD).
    var emptyRequestMethods: Set<HTTPMethod> { get }
    /// Status codes for which an empty body is fine (default: 204, 205).
    var emptyResponseCodes: Set<Int> { get }

    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> SerializedObject
}

extension ResponseSerializer {
    public var emptyRequestMethods: Set<HTTPMethod> { [.head] }
    public var emptyResponseCodes: Set<Int> { [204, 205] }

    /// Whether this request/response pair may have an empty body.
    public func emptyResponseAllowed(forRequest request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        (request?.method.map { emptyRequestMethods.contains($0) } ?? false)
            || (response.map { emptyResponseCodes.contains($0.statusCode) } ?? false)
    }
}

/// The body as `Data`.
public struct DataResponseSerializer: ResponseSerializer {
    public init() {}

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
    public let encoding: String.Encoding?

    public init(encoding: String.Encoding? = nil) {
        self.encoding = encoding
    }

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
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public subscript(key: String) -> JSON? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    public subscript(index: Int) -> JSON? {
        if case let .array(array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }
}

extension JSON: Decodable {
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
    public init() {}

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
    static func emptyValue() -> Self
}

/// The value an allowed empty response decodes to.
public struct Empty: Codable, Hashable, Sendable, EmptyResponse {
    public static let value = Empty()
    public static func emptyValue() -> Empty { value }
}

/// The body decoded with a `JSONDecoder`.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    public let decoder: JSONDecoder

    public init(decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

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

