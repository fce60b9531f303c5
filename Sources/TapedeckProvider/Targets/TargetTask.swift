public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What a target's request carries (Moya's `Task`, for data requests).
///
/// Parameters are `[String: any Sendable]` (Moya: `[String: Any]`), holding strings, numbers,
/// booleans, `NSNull`, and arrays and dictionaries of those. Every encoding sorts keys, so the same
/// parameters always give the same bytes (and the same trace). Uploads, downloads and multipart
/// bodies are not supported (TapedeckClient has data requests only).
///
/// ```swift
/// var task: TargetTask {
///     switch self {
///     case let .search(query): .requestParameters(parameters: ["q": query, "page": 1], encoding: .queryString)
///     case let .create(item): .requestJSONEncodable(item)
///     case .zen: .requestPlain
///     }
/// }
/// ```
public enum TargetTask: Sendable {
    /// No body, no parameters.
    case requestPlain
    /// `Data` as the body.
    case requestData(Data)
    /// An `Encodable` value as a JSON body (keys sorted), `Content-Type: application/json` unless set.
    case requestJSONEncodable(any Encodable & Sendable)
    /// An `Encodable` value as a JSON body made by `encoder`, `Content-Type: application/json` unless set.
    case requestCustomJSONEncodable(any Encodable & Sendable, encoder: JSONEncoder)
    /// Parameters, encoded as `encoding` says (query, form body or JSON body).
    case requestParameters(parameters: [String: any Sendable], encoding: Encoding)
    /// `bodyData` as the body and `urlParameters` in the query.
    case requestCompositeData(bodyData: Data, urlParameters: [String: any Sendable])
    /// `bodyParameters` in the body (a JSON or form-body encoding) and `urlParameters` in the query.
    case requestCompositeParameters(bodyParameters: [String: any Sendable], bodyEncoding: Encoding, urlParameters: [String: any Sendable])

    /// How parameters become part of a request: Moya's `URLEncoding` and `JSONEncoding` values as
    /// cases of one type (`URLEncoding.default` is `.methodDependent`, `.queryString` and
    /// `.httpBody` keep their names, `JSONEncoding.default` is `.json`).
    public struct Encoding: Sendable, CustomStringConvertible {
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

        /// An encoding of your own (Moya: a custom `ParameterEncoding`); `name` describes it.
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
    }
}
