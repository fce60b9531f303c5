public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// The serializer protocols and their parts: what turns a finished request's response and data into
// a value (the serializers themselves are in ResponseSerializers.swift).

/// Turns a finished data request's response and data into a value.
public protocol DataResponseSerializerProtocol<SerializedObject>: Sendable {
    /// The value the serializer produces.
    associatedtype SerializedObject: Sendable

    /// The value for this response, or the error that fails it (the request's own `error`, when
    /// there is one, for the built-in serializers).
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> SerializedObject
}

/// A data serializer that also says which responses may be empty and how the data is prepared
/// (a download uses one on its file's bytes: see ``DownloadedFileSerializer``).
/// Built-in serializers rethrow the request's error unchanged when there is one (so a validation
/// error surfaces as itself), then check for an empty body, then preprocess the data.
///
/// ```swift
/// struct LinesSerializer: ResponseSerializer {
///     func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> [String] {
///         if let error { throw error }
///         let text = String(decoding: try dataPreprocessor.preprocess(data ?? Data()), as: UTF8.self)
///         return text.split(separator: "\n").map(String.init)
///     }
/// }
/// ```
public protocol ResponseSerializer<SerializedObject>: DataResponseSerializerProtocol {
    /// What is done to the data before it is serialized (default: nothing).
    var dataPreprocessor: any DataPreprocessor { get }
    /// Methods for which an empty body is fine (default: HEAD).
    var emptyRequestMethods: Set<HTTPMethod> { get }
    /// Status codes for which an empty body is fine (default: 204, 205).
    var emptyResponseCodes: Set<Int> { get }
}

extension ResponseSerializer {
    /// ``PassthroughPreprocessor``.
    public static var defaultDataPreprocessor: any DataPreprocessor { PassthroughPreprocessor() }
    /// HEAD.
    public static var defaultEmptyRequestMethods: Set<HTTPMethod> { [.head] }
    /// 204 and 205.
    public static var defaultEmptyResponseCodes: Set<Int> { [204, 205] }

    /// ``defaultDataPreprocessor``.
    public var dataPreprocessor: any DataPreprocessor { Self.defaultDataPreprocessor }
    /// ``defaultEmptyRequestMethods``.
    public var emptyRequestMethods: Set<HTTPMethod> { Self.defaultEmptyRequestMethods }
    /// ``defaultEmptyResponseCodes``.
    public var emptyResponseCodes: Set<Int> { Self.defaultEmptyResponseCodes }

    /// Whether the request's method allows an empty body (nil without a request or a method).
    public func requestAllowsEmptyResponseData(_ request: URLRequest?) -> Bool? {
        request?.method.map { emptyRequestMethods.contains($0) }
    }

    /// Whether the response's status allows an empty body (nil without a response).
    public func responseAllowsEmptyResponseData(_ response: HTTPURLResponse?) -> Bool? {
        response.map { emptyResponseCodes.contains($0.statusCode) }
    }

    /// Whether this request/response pair may have an empty body.
    public func emptyResponseAllowed(forRequest request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        requestAllowsEmptyResponseData(request) == true || responseAllowsEmptyResponseData(response) == true
    }

    /// The body, or its empty stand-in: rethrows `error`, then returns nil for an allowed empty
    /// body, throws `inputDataNilOrZeroLength` for one that is not allowed, else the data as given.
    func nonEmptyData(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Data? {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(forRequest: request, response: response) else {
                throw ClientError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return nil
        }
        return data
    }
}

/// Prepares response data before a serializer reads it.
public protocol DataPreprocessor: Sendable {
    /// The data to serialize instead of `data`.
    func preprocess(_ data: Data) throws -> Data
}

/// Leaves the data as it is.
public struct PassthroughPreprocessor: DataPreprocessor {
    /// A preprocessor that changes nothing.
    public init() {}

    /// `data`, unchanged.
    public func preprocess(_ data: Data) throws -> Data { data }
}

/// Drops the `)]}',\n` prefix some Google APIs put before JSON (against cross-site script inclusion).
public struct GoogleXSSIPreprocessor: DataPreprocessor {
    /// A preprocessor for Google's XSSI prefix.
    public init() {}

    /// `data` without its leading `)]}',\n`, when it has one.
    public func preprocess(_ data: Data) throws -> Data {
        let prefix = Data(")]}',\n".utf8)
        return data.starts(with: prefix) ? Data(data.dropFirst(prefix.count)) : data
    }
}

extension DataPreprocessor where Self == PassthroughPreprocessor {
    /// A ``PassthroughPreprocessor``.
    public static var passthrough: PassthroughPreprocessor { PassthroughPreprocessor() }
}

extension DataPreprocessor where Self == GoogleXSSIPreprocessor {
    /// A ``GoogleXSSIPreprocessor``.
    public static var googleXSSI: GoogleXSSIPreprocessor { GoogleXSSIPreprocessor() }
}

/// Decodes `Decodable` values from data (`JSONDecoder` and `PropertyListDecoder` are ones).
public protocol DataDecoder: Sendable {
    /// A `type` value decoded from `data`.
    func decode<D: Decodable>(_ type: D.Type, from data: Data) throws -> D
}

extension JSONDecoder: DataDecoder {}
extension PropertyListDecoder: DataDecoder {}

/// A type that stands for "no body" when a response may be empty.
public protocol EmptyResponse: Sendable {
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
