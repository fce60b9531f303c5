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
public struct HTTPHeaders: Hashable, Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    private var headers: [HTTPHeader] = []

    public init() {}

    public init(_ headers: [HTTPHeader]) {
        headers.forEach { update($0) }
    }

    public init(_ dictionary: [String: String]) {
        dictionary.sorted { $0.key.lowercased() < $1.key.lowercased() }.forEach { update(HTTPHeader(name: $0.key, value: $0.value)) }
    }

    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        elements.forEach { update(name: $0.0, value: $0.1) }
    }

    /// Sets `name` to `value`, replacing an existing field with that name (keeping its position).
    public mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    public mutating func update(_ header: HTTPHeader) {
        if let index = headers.firstIndex(where: { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }) {
            headers[index] = header
        } else {
            headers.append(header)
        }
    }

    public mutating func add(name: String, value: String) {
        update(name: name, value: value)
    }

    public mutating func remove(name: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    public func value(for name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public subscript(_ name: String) -> String? {
        get { value(for: name) }
        set {
            if let newValue { update(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    public var dictionary: [String: String] {
        Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    public var count: Int { headers.count }

    public func makeIterator() -> IndexingIterator<[HTTPHeader]> {
        headers.makeIterator()
    }

    public var description: String {
        headers.map(\.description).joined(separator: "\n")
    }

    /// Alamofire's defaults: `Accept-Encoding`, `Accept-Language` and `User-Agent`.
    public static let `default`: HTTPHeaders = [.defaultAcceptEncoding, .defaultAcceptLanguage, .defaultUserAgent]
}

/// One header field.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }

    public static func accept(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept", value: value) }
    public static func acceptEncoding(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Encoding", value: value) }
    public static func acceptLanguage(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Language", value: value) }
    public static func authorization(_ value: String) -> HTTPHeader { HTTPHeader(name: "Authorization", value: value) }
    public static func authorization(bearerToken: String) -> HTTPHeader { authorization("Bearer \(bearerToken)") }
    public static func authorization(username: String, password: String) -> HTTPHeader {
        authorization("Basic \(Data("\(username):\(password)".utf8).base64EncodedString())")
    }
    public static func contentType(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Type", value: value) }
    public static func userAgent(_ value: String) -> HTTPHeader { HTTPHeader(name: "User-Agent", value: value) }

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
    /// The request's header fields as `HTTPHeaders`.
    public var headers: HTTPHeaders {
        get { allHTTPHeaderFields.map(HTTPHeaders.init) ?? HTTPHeaders() }
        set {
            allHTTPHeaderFields = nil
            for header in newValue { setValue(header.value, forHTTPHeaderField: header.name) }
        }
    }

    public var method: HTTPMethod? {
        get { httpMethod.map(HTTPMethod.init(rawValue:)) }
        set { httpMethod = newValue?.rawValue }
    }

    /// Throws for a GET request with a body (Alamofire's URLRequest validation).
    func validate() throws {
        if method == .get, let body = httpBody {
            throw ClientError.urlRequestValidationFailed(reason: .bodyDataInGETRequest(body))
        }
    }
}
