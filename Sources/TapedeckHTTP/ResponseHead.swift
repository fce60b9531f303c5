public import Foundation
public import HTTPTypes
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The status line and header fields of a response.
public struct ResponseHead: Hashable, Sendable, CustomStringConvertible {
    /// The status code.
    public var status: Int
    /// The header fields, in order.
    public var headerFields: HTTPFields

    /// A head with `status` and `headerFields`.
    public init(status: Int, headerFields: HTTPFields = [:]) {
        self.status = status
        self.headerFields = headerFields
    }

    /// `status` and its standard reason phrase, e.g. `404 Not Found`.
    public var description: String {
        "\(status) \(HTTPResponse.Status(code: status).reasonPhrase)"
    }

    /// True for 301, 302, 303, 307 and 308 with a `Location` header.
    public var isRedirect: Bool {
        [301, 302, 303, 307, 308].contains(status) && headerFields[.location] != nil
    }

    /// The `Content-Encoding` value, lowercased and trimmed (nil when absent or `identity`).
    public var contentEncoding: String? {
        guard let raw = headerFields[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased(),
              !raw.isEmpty, raw != "identity" else { return nil }
        return raw
    }

    /// The `HTTPURLResponse` a URLSession client sees for this head at `url`. Repeated fields are
    /// joined with ", " as URLSession does.
    public func httpURLResponse(url: URL) -> HTTPURLResponse {
        var fields: [String: String] = [:]
        // The first spelling of each name (case folded), found by a lookup, not a scan: a
        // response with thousands of fields took seconds.
        var spelling: [String: String] = [:]
        for field in headerFields {
            let name = field.name.rawName
            let folded = String(decoding: name.utf8.map(asciiFolded), as: UTF8.self)
            if let existing = spelling[folded] {
                fields[existing] = fields[existing]! + ", " + field.value
            } else {
                spelling[folded] = name
                fields[name] = field.value
            }
        }
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }
}
