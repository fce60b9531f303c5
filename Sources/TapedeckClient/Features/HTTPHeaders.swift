#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

/// An ordered, case-insensitive collection of header fields.
///
/// ```swift
/// var headers: HTTPHeaders = [.authorization(bearerToken: "t0"), .accept("application/json")]
/// headers.update(name: "X-Trace", value: "1")
/// ```
public struct HTTPHeaders: Hashable, Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, Collection, CustomStringConvertible {
    private var headers: [HTTPHeader] = []

    /// No fields.
    public init() {}

    /// The fields in order; a repeated name keeps its first position and its last value.
    public init(_ headers: [HTTPHeader]) {
        headers.forEach { update($0) }
    }

    /// The dictionary's fields, sorted by name (case-insensitively) so the order is stable.
    public init(_ dictionary: [String: String]) {
        dictionary.sorted { $0.key.lowercased() < $1.key.lowercased() }.forEach { update(HTTPHeader(name: $0.key, value: $0.value)) }
    }

    /// `[.accept("…"), .userAgent("…")]`.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }

    /// `["Accept": "…"]`; a repeated name keeps its last value.
    public init(dictionaryLiteral elements: (String, String)...) {
        elements.forEach { update(name: $0.0, value: $0.1) }
    }

    /// Sets `name` to `value`, replacing an existing field with that name (keeping its position).
    public mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Replaces the field with `header`'s name (keeping its position), or appends it.
    public mutating func update(_ header: HTTPHeader) {
        if let index = headers.firstIndex(where: { $0.name.equalsIgnoringASCIICase(header.name) }) {
            headers[index] = header
        } else {
            headers.append(header)
        }
    }

    /// Same as ``update(name:value:)``, as in Alamofire.
    public mutating func add(name: String, value: String) {
        update(name: name, value: value)
    }

    /// Same as ``update(_:)``, as in Alamofire: replaces the field with `header`'s name, or appends it.
    public mutating func add(_ header: HTTPHeader) {
        update(header)
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        headers.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The value of the field named `name` (case-insensitive), if any.
    public func value(for name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The value of `name`; setting nil removes the field.
    public subscript(_ name: String) -> String? {
        get { value(for: name) }
        set {
            if let newValue { update(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// The fields as a dictionary (a repeated name keeps its last value; order is lost).
    public var dictionary: [String: String] {
        Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Sorts the fields by name, case-insensitively.
    public mutating func sort() {
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// The fields sorted by name, case-insensitively.
    public func sorted() -> HTTPHeaders {
        var copy = self
        copy.sort()
        return copy
    }

    /// The number of fields.
    public var count: Int { headers.count }

    /// The fields in order.
    public func makeIterator() -> IndexingIterator<[HTTPHeader]> {
        headers.makeIterator()
    }

    /// The position of the first field (0).
    public var startIndex: Int { headers.startIndex }

    /// One past the position of the last field.
    public var endIndex: Int { headers.endIndex }

    /// The field at `position`.
    public subscript(position: Int) -> HTTPHeader { headers[position] }

    /// The position after `index`.
    public func index(after index: Int) -> Int { headers.index(after: index) }

    /// One `name: value` line per field.
    public var description: String {
        headers.map(\.description).joined(separator: "\n")
    }

    /// Alamofire's defaults: `Accept-Encoding`, `Accept-Language` and `User-Agent`.
    public static let `default`: HTTPHeaders = [.defaultAcceptEncoding, .defaultAcceptLanguage, .defaultUserAgent]
}

/// One header field.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    /// The field's name, spelled as given.
    public let name: String
    /// The field's value.
    public let value: String

    /// A field `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `name: value`.
    public var description: String { "\(name): \(value)" }

    /// `Accept`.
    public static func accept(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept", value: value) }
    /// `Accept-Charset`.
    public static func acceptCharset(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Charset", value: value) }
    /// `Accept-Encoding`.
    public static func acceptEncoding(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Encoding", value: value) }
    /// `Accept-Language`.
    public static func acceptLanguage(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Language", value: value) }
    /// `Authorization` with a raw value.
    public static func authorization(_ value: String) -> HTTPHeader { HTTPHeader(name: "Authorization", value: value) }
    /// `Authorization: Bearer <token>`.
    public static func authorization(bearerToken: String) -> HTTPHeader { authorization("Bearer \(bearerToken)") }
    /// `Authorization: Basic <base64 of username:password>`.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        authorization("Basic \(Data("\(username):\(password)".utf8).base64EncodedString())")
    }
    /// `Content-Disposition`.
    public static func contentDisposition(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Disposition", value: value) }
    /// `Content-Encoding`.
    public static func contentEncoding(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Encoding", value: value) }
    /// `Content-Type`.
    public static func contentType(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Type", value: value) }
    /// `User-Agent`.
    public static func userAgent(_ value: String) -> HTTPHeader { HTTPHeader(name: "User-Agent", value: value) }
    /// `Sec-WebSocket-Protocol`.
    public static func websocketProtocol(_ value: String) -> HTTPHeader { HTTPHeader(name: "Sec-WebSocket-Protocol", value: value) }

    /// What libcurl and Alamofire accept: brotli, gzip, deflate.
    public static let defaultAcceptEncoding = acceptEncoding("br;q=1.0, gzip;q=0.9, deflate;q=0.8")

    /// The process's preferred languages, first six, with decreasing quality (en when none).
    public static let defaultAcceptLanguage: HTTPHeader = {
        let languages = Locale.preferredLanguages.prefix(6)
        let list = languages.isEmpty ? ["en"] : Array(languages)
        let value = list.enumerated().map { index, language in
            index == 0 ? language : "\(language);q=\(String(format: "%.1f", 1.0 - Double(index) * 0.1))"
        }.joined(separator: ", ")
        return acceptLanguage(value)
    }()

    /// `Tapedeck/<version> (<OS>)`.
    public static let defaultUserAgent: HTTPHeader = {
        #if os(Linux)
        let system = "Linux"
        #elseif os(macOS)
        let system = "macOS"
        #else
        let system = "Apple"
        #endif
        return userAgent("TapedeckClient/0.1 (\(system))")
    }()
}

extension URLRequest {
    /// The request's header fields as `HTTPHeaders`. Set, the names keep their spelling
    /// (`X-NC-Account`, `OCS-APIRequest`), as Alamofire's setter keeps them: field by field,
    /// swift-corelibs-foundation would re-case each (`X-Nc-Account`), and code that reads
    /// `allHTTPHeaderFields?["OCS-APIRequest"]` would find nothing.
    public var headers: HTTPHeaders {
        get { allHTTPHeaderFields.map(HTTPHeaders.init) ?? HTTPHeaders() }
        set { allHTTPHeaderFields = newValue.dictionary }
    }

    /// The request's method, as an ``HTTPMethod`` (nil when unset).
    public var method: HTTPMethod? {
        get { httpMethod.map(HTTPMethod.init(rawValue:)) }
        set { httpMethod = newValue?.rawValue }
    }

    /// Throws ``ClientError/urlRequestValidationFailed(reason:)`` for a GET request with a body
    /// (the check a Session makes before sending, as Alamofire does).
    public func validate() throws {
        if method == .get, let body = httpBody {
            throw ClientError.urlRequestValidationFailed(reason: .bodyDataInGETRequest(body))
        }
    }
}
