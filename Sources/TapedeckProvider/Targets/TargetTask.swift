public import Foundation
public import TapedeckClient
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What a target's request carries (Moya's `Task`, for data requests).
///
/// The payloads are Moya's: parameters are `[String: Any]` (strings, numbers, booleans, `NSNull`,
/// and arrays and dictionaries of those) put in by any TapedeckClient `ParameterEncoding` —
/// `URLEncoding.default`, `JSONEncoding.prettyPrinted`, one of your own, or the provider's
/// shorthands (`.queryString`, `.json`, … see ``Encoding``); JSON bodies are any `Encodable`.
/// Every encoding sorts keys, so the same parameters always give the same bytes (and the same
/// trace). Upload tasks send their body through a TapedeckClient `UploadRequest` (a file, or a
/// multipart form made of ``MultipartFormData`` parts); download tasks write the body to a file
/// through a `DownloadRequest`.
///
/// ```swift
/// var task: TargetTask {
///     switch self {
///     case let .search(query): .requestParameters(parameters: ["q": query, "page": 1], encoding: URLEncoding.queryString)
///     case let .create(item): .requestJSONEncodable(item)
///     case .zen: .requestPlain
///     }
/// }
/// ```
///
/// `@unchecked Sendable`: like Moya's `Task` it holds `Any` and `Encodable` values, which the
/// provider only reads (to build the URLRequest, on whichever queue asks). The values a request
/// can encode are values (strings, numbers, dictionaries, structs); an object put in a payload
/// must not be mutated while requests are made from it.
public enum TargetTask: @unchecked Sendable {
    /// No body, no parameters.
    case requestPlain
    /// `Data` as the body.
    case requestData(Data)
    /// An `Encodable` value as a JSON body (keys sorted), `Content-Type: application/json` unless set.
    case requestJSONEncodable(any Encodable)
    /// An `Encodable` value as a JSON body made by `encoder`, `Content-Type: application/json` unless set.
    case requestCustomJSONEncodable(any Encodable, encoder: JSONEncoder)
    /// Parameters, put in by `encoding` (query, form body, JSON body, or an encoding of your own).
    case requestParameters(parameters: [String: Any], encoding: any ParameterEncoding)
    /// `bodyData` as the body and `urlParameters` in the query.
    case requestCompositeData(bodyData: Data, urlParameters: [String: Any])
    /// `bodyParameters` in the body (an encoding that writes the body: JSON, `URLEncoding.httpBody`,
    /// or your own) and `urlParameters` in the query.
    case requestCompositeParameters(bodyParameters: [String: Any], bodyEncoding: any ParameterEncoding, urlParameters: [String: Any])
    /// The file at the URL as the body, sent by an upload task.
    case uploadFile(URL)
    /// A `multipart/form-data` body made of these parts (the request's `Content-Type` is the form's).
    case uploadMultipart([MultipartFormData])
    /// A `multipart/form-data` body made of these parts, and `urlParameters` in the query.
    case uploadCompositeMultipart([MultipartFormData], urlParameters: [String: Any])
    /// A `multipart/form-data` body: a whole form, with its boundary (Moya master).
    case uploadMultipartFormData(MultipartFormData)
    /// A whole form as the body, and `urlParameters` in the query (Moya master).
    case uploadCompositeMultipartFormData(MultipartFormData, urlParameters: [String: Any])
    /// A download: the body is written to the file `destination` names (the ``Response`` then
    /// has no data, as in Moya; the file is where the destination said).
    case downloadDestination(DownloadDestination)
    /// A download with parameters put in by `encoding`.
    case downloadParameters(parameters: [String: Any], encoding: any ParameterEncoding, destination: DownloadDestination)

    /// The provider's own parameter encodings, as values of one type: `.methodDependent`,
    /// `.queryString`, `.httpBody`, `.json`, `.prettyPrintedJSON`, `.url(destination:arrayEncoding:boolEncoding:)`
    /// and `.custom(name) { request, parameters in … }`. Written with a leading dot wherever a
    /// `ParameterEncoding` is expected.
    ///
    /// They differ from TapedeckClient's `URLEncoding` and `JSONEncoding` (which Moya's spellings
    /// give) in being strict: a value that is not a string, number, boolean, `NSNull`, array or
    /// dictionary fails with ``ProviderError/parameterEncoding(_:)`` instead of being written as its
    /// description, and a form escapes every character but letters, digits and `-._~` (Alamofire
    /// leaves `/` and `?` as they are).
    public struct Encoding: ParameterEncoding, CustomStringConvertible {
        enum Kind: Sendable {
            case url(FormDestination, arrays: ArrayEncoding, bools: BoolEncoding)
            case json(prettyPrinted: Bool)
            case custom(name: String, encode: @Sendable (URLRequest, [String: any Sendable]) throws -> URLRequest)
        }

        /// Where form parameters go.
        public enum FormDestination: Sendable {
            /// The query for GET, HEAD and DELETE; the body otherwise.
            case methodDependent
            /// Always the query.
            case queryString
            /// Always the body (`application/x-www-form-urlencoded; charset=utf-8`).
            case httpBody
        }

        /// How arrays are written in a form: `key[]=a&key[]=b` or `key=a&key=b`.
        public enum ArrayEncoding: Sendable {
            /// `key[]=value` (Alamofire's default).
            case brackets
            /// `key=value`.
            case noBrackets
        }

        /// How booleans are written in a form: `1`/`0` or `true`/`false`.
        public enum BoolEncoding: Sendable {
            /// `1` and `0` (Alamofire's `URLEncoding` default).
            case numeric
            /// `true` and `false`.
            case literal
        }

        let kind: Kind

        /// Form parameters in the query for GET, HEAD and DELETE, in the body otherwise (`URLEncoding.default`).
        public static let methodDependent = Encoding(kind: .url(.methodDependent, arrays: .brackets, bools: .numeric))
        /// Form parameters in the query, whatever the method (`URLEncoding.queryString`).
        public static let queryString = Encoding(kind: .url(.queryString, arrays: .brackets, bools: .numeric))
        /// Form parameters in the body, whatever the method (`URLEncoding.httpBody`).
        public static let httpBody = Encoding(kind: .url(.httpBody, arrays: .brackets, bools: .numeric))
        /// A compact JSON body with sorted keys (`JSONEncoding.default`), `Content-Type: application/json` unless set.
        public static let json = Encoding(kind: .json(prettyPrinted: false))
        /// An indented JSON body with sorted keys (`JSONEncoding.prettyPrinted`).
        public static let prettyPrintedJSON = Encoding(kind: .json(prettyPrinted: true))

        /// Form parameters with a chosen destination and array and boolean spellings.
        public static func url(
            destination: FormDestination = .methodDependent, arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric
        ) -> Encoding {
            Encoding(kind: .url(destination, arrays: arrayEncoding, bools: boolEncoding))
        }

        /// An encoding given as a closure; `name` describes it. (A type conforming to
        /// `ParameterEncoding`, as in Moya, works as well.)
        @preconcurrency
        public static func custom(
            _ name: String, encode: @escaping @Sendable (URLRequest, [String: any Sendable]) throws -> URLRequest
        ) -> Encoding {
            Encoding(kind: .custom(name: name, encode: encode))
        }

        /// `queryString`, `httpBody`, `methodDependent`, `json`, `prettyPrintedJSON` or the custom name.
        public var description: String {
            switch kind {
            case let .url(destination, _, _):
                switch destination {
                case .methodDependent: "methodDependent"
                case .queryString: "queryString"
                case .httpBody: "httpBody"
                }
            case let .json(pretty): pretty ? "prettyPrintedJSON" : "json"
            case let .custom(name, _): name
            }
        }

        /// The request `urlRequest` makes, with `parameters` added (TapedeckClient's
        /// `ParameterEncoding`, so that these values go wherever an encoding does).
        public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
            let request = try urlRequest.asURLRequest()
            guard let parameters else { return request }
            return try encode(request, with: parameters as [String: Any])
        }
    }
}

// The provider's encodings where any `ParameterEncoding` is expected, so `encoding: .queryString`
// reads as it always has (SE-0299: static members found through the protocol).
extension ParameterEncoding where Self == TargetTask.Encoding {
    /// Form parameters in the query for GET, HEAD and DELETE, in the body otherwise.
    public static var methodDependent: TargetTask.Encoding { TargetTask.Encoding.methodDependent }
    /// Form parameters in the query, whatever the method.
    public static var queryString: TargetTask.Encoding { TargetTask.Encoding.queryString }
    /// Form parameters in the body, whatever the method.
    public static var httpBody: TargetTask.Encoding { TargetTask.Encoding.httpBody }
    /// A compact JSON body with sorted keys.
    public static var json: TargetTask.Encoding { TargetTask.Encoding.json }
    /// An indented JSON body with sorted keys.
    public static var prettyPrintedJSON: TargetTask.Encoding { TargetTask.Encoding.prettyPrintedJSON }

    /// Form parameters with a chosen destination and array and boolean spellings.
    public static func url(
        destination: TargetTask.Encoding.FormDestination = .methodDependent, arrayEncoding: TargetTask.Encoding.ArrayEncoding = .brackets,
        boolEncoding: TargetTask.Encoding.BoolEncoding = .numeric
    ) -> TargetTask.Encoding {
        TargetTask.Encoding.url(destination: destination, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)
    }

    /// An encoding given as a closure; `name` describes it.
    @preconcurrency
    public static func custom(
        _ name: String, encode: @escaping @Sendable (URLRequest, [String: any Sendable]) throws -> URLRequest
    ) -> TargetTask.Encoding {
        TargetTask.Encoding.custom(name, encode: encode)
    }
}
