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
open class URLEncodedFormParameterEncoder: ParameterEncoder, @unchecked Sendable {
    // @unchecked Sendable: an open class cannot be checked; its stored properties are constants
    // of Sendable types.
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
    open func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
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
