public import Foundation

/// What URLSession (libcurl underneath, on Linux) does to an encoded response body before the client sees it.
public enum ContentCoding {
    /// Decodes `body` per a `Content-Encoding` value. `gzip`/`x-gzip` and `deflate` (zlib-wrapped,
    /// or raw as some servers send it) are decoded; `identity`, nil and unknown codings pass through
    /// unchanged, as libcurl leaves codings it does not know.
    public static func decode(_ body: Data, contentEncoding: String?) throws -> Data {
        guard let coding = contentEncoding?.lowercased(), !body.isEmpty else { return body }
        switch coding {
        case "gzip", "x-gzip":
            return try Zlib.decompress(body, format: .gzip)
        case "deflate":
            if let zlibWrapped = try? Zlib.decompress(body, format: .zlib) { return zlibWrapped }
            return try Zlib.decompress(body, format: .raw)
        default:
            return body
        }
    }

    /// Encodes `body` per a `Content-Encoding` value ``decode(_:contentEncoding:)`` knows (gzip,
    /// or zlib-wrapped deflate, at level 6); nil for any other coding.
    public static func encode(_ body: Data, contentEncoding: String?) throws -> Data? {
        switch contentEncoding?.lowercased() {
        case "gzip", "x-gzip": return try Zlib.compress(body, format: .gzip)
        case "deflate": return try Zlib.compress(body, format: .zlib)
        default: return nil
        }
    }

    /// True for the codings ``decode(_:contentEncoding:)`` knows.
    public static func isDecodable(_ contentEncoding: String?) -> Bool {
        ["gzip", "x-gzip", "deflate"].contains(contentEncoding?.lowercased() ?? "")
    }
}
