import TapedeckClient
#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

extension Endpoint {
    /// The URLRequest this endpoint describes: URL, method, header fields, then the task's body and
    /// parameters.
    ///
    /// Throws ``ProviderError/requestMapping(_:)`` when ``url`` is not a URL,
    /// ``ProviderError/encodableMapping(_:)`` when an `Encodable` body fails to encode, and
    /// ``ProviderError/parameterEncoding(_:)`` when parameters fail to encode — including a composite
    /// task whose body encoding would put its parameters in the query (Moya stops the process there).
    public func urlRequest() throws -> URLRequest {
        guard let requestURL = URL(string: url) else { throw ProviderError.requestMapping(url) }
        var request = URLRequest(url: requestURL)
        request.httpMethod = method.rawValue
        // Assigned whole, as Moya does: the names keep their spelling (field by field,
        // swift-corelibs-foundation re-cases each: `X-Request-ID` would become `X-Request-Id`).
        // Two spellings of one name (a target's `Authorization`, a plugin's `authorization`) are
        // one field: the last in sorted order, as the field-by-field setter gave.
        request.allHTTPHeaderFields = httpHeaderFields.map(Self.foldingCase)
        switch task {
        case .requestPlain:
            return request
        case let .requestData(data):
            request.httpBody = data
            return request
        case let .requestJSONEncodable(value):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try Self.encodeJSON(value, with: encoder, into: request)
        case let .requestCustomJSONEncodable(value, encoder):
            return try Self.encodeJSON(value, with: encoder, into: request)
        case let .requestParameters(parameters, encoding):
            return try Self.encode(parameters, with: encoding, into: request)
        case let .requestCompositeData(bodyData, urlParameters):
            request.httpBody = bodyData
            return try Self.encode(urlParameters, with: .queryString, into: request)
        case let .requestCompositeParameters(bodyParameters, bodyEncoding, urlParameters):
            guard TargetTask.writesBody(bodyEncoding) else {
                throw ProviderError.parameterEncoding(ParameterEncodingFailure(
                    description: "a composite task's body encoding must write the body (JSON, URLEncoding.httpBody or .httpBody), "
                        + "not \(TargetTask.describe(bodyEncoding)); put query parameters in urlParameters"))
            }
            let withBody = try Self.encode(bodyParameters, with: bodyEncoding, into: request)
            return try Self.encode(urlParameters, with: .queryString, into: withBody)
        case let .downloadParameters(parameters, encoding, _):
            return try Self.encode(parameters, with: encoding, into: request)
        case .uploadFile, .uploadMultipart, .uploadMultipartFormData, .downloadDestination:
            // An upload's body is the upload's (the provider hands it to the session's upload
            // request); a download has none.
            return request
        case let .uploadCompositeMultipart(_, urlParameters), let .uploadCompositeMultipartFormData(_, urlParameters):
            return try Self.encode(urlParameters, with: .queryString, into: request)
        }
    }

    /// `fields` with names that differ only in case made one, the last in sorted order winning.
    static func foldingCase(_ fields: [String: String]) -> [String: String] {
        var folded: [String: (name: String, value: String)] = [:]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { folded[name.lowercased()] = (name, value) }
        return Dictionary(uniqueKeysWithValues: folded.values.map { ($0.name, $0.value) })
    }

    private static func encodeJSON(_ value: any Encodable, with encoder: JSONEncoder, into request: URLRequest) throws(ProviderError) -> URLRequest {
        var request = request
        do {
            request.httpBody = try encoder.encode(value)
        } catch {
            throw ProviderError.encodableMapping(error)
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    private static func encode(_ parameters: [String: Any], with encoding: any ParameterEncoding, into request: URLRequest) throws(ProviderError) -> URLRequest {
        do {
            return try TargetTask.encode(parameters, with: encoding, into: request)
        } catch {
            throw ProviderError.parameterEncoding(error)
        }
    }
}
