public import Foundation

/// What URLSession (libcurl underneath, on Linux) does to an encoded response body before the client sees it.
public enum ContentCoding {
    /// Decodes `body` per a `Content-Encoding` value. `gzip`/`x-gzip`, `deflate` (zlib-wrapped, or
    /// raw as some servers send it), `br` and `zstd` are decoded, as Debian's libcurl (built with
    /// brotli and zstd) decodes them for URLSession; `identity`, nil and unknown codings pass
    /// through unchanged, as libcurl leaves codings it does not know.
    ///
    /// A body that would decode to more than `limit` bytes is an error: a few kilobytes of a
    /// "compression bomb" from an upstream must not exhaust a recorder's memory.
    public static func decode(_ body: Data, contentEncoding: String?, limit: Int = defaultLimit) throws -> Data {
        guard let coding = contentEncoding?.lowercased(), !body.isEmpty else { return body }
        switch coding {
        case "gzip", "x-gzip":
            return try Zlib.decompress(body, format: .gzip, limit: limit)
        case "deflate":
            if let zlibWrapped = try? Zlib.decompress(body, format: .zlib, limit: limit) { return zlibWrapped }
            return try Zlib.decompress(body, format: .raw, limit: limit)
        case "br":
            return try Brotli.decompress(body, limit: limit)
        case "zstd":
            return try Zstd.decompress(body, limit: limit)
        default:
            return body
        }
    }

    /// What a client decoding as it receives makes of a body that was cut short: the text its
    /// first bytes decode to (gzip, deflate, `br` and `zstd` are decoded as far as they go, as
    /// libcurl decodes while it receives, so a cut stream still yields what came before the cut);
    /// a body that decodes whole, or passes through, as ``decode(_:contentEncoding:limit:)`` gives
    /// it; empty when nothing can be read.
    ///
    /// ```swift
    /// let whole = try Zlib.compress(Data(repeating: 65, count: 10_000))
    /// ContentCoding.decodePrefix(whole.prefix(100), contentEncoding: "gzip")   // some of the 10,000 "A"s
    /// ```
    public static func decodePrefix(_ body: Data, contentEncoding: String?, limit: Int = defaultLimit) -> Data {
        if let whole = try? decode(body, contentEncoding: contentEncoding, limit: limit) { return whole }
        let format: Zlib.Format
        switch contentEncoding?.lowercased() {
        case "gzip", "x-gzip": format = .gzip
        case "deflate": format = Zlib.looksLikeZlib(body) ? .zlib : .raw
        case "br": return Brotli.decompressPrefix(body, limit: limit)
        case "zstd": return Zstd.decompressPrefix(body, limit: limit)
        default: return Data()
        }
        guard let inflater = try? Inflater(format: format) else { return Data() }
        var output = Data()
        // Piece by piece, so that the bytes before a damaged or missing part are kept.
        var offset = body.startIndex
        while offset < body.endIndex, output.count < limit {
            let end = min(offset + 4_096, body.endIndex)
            guard let piece = try? inflater.append(body[offset..<end]) else { break }
            output.append(piece)
            offset = end
        }
        return output.prefix(limit)
    }

    /// The codings ``decode(_:contentEncoding:limit:)`` undoes (lowercased); it passes any other
    /// through unchanged, so a caller that must know a body was decoded asks here first.
    public static let decodable: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]

    /// The largest body ``decode(_:contentEncoding:limit:)`` produces unless told otherwise: 1 GiB.
    public static let defaultLimit = 1 << 30

    /// Encodes `body` per a `Content-Encoding` value ``decode(_:contentEncoding:limit:)`` knows (gzip or
    /// zlib-wrapped deflate at level 6, brotli at quality 5, zstd at level 3); nil for any other coding.
    public static func encode(_ body: Data, contentEncoding: String?) throws -> Data? {
        switch contentEncoding?.lowercased() {
        case "gzip", "x-gzip": return try Zlib.compress(body, format: .gzip)
        case "deflate": return try Zlib.compress(body, format: .zlib)
        case "br": return try Brotli.compress(body)
        case "zstd": return try Zstd.compress(body)
        default: return nil
        }
    }

    /// True for the codings ``decode(_:contentEncoding:limit:)`` and ``encode(_:contentEncoding:)`` know.
    public static func isDecodable(_ contentEncoding: String?) -> Bool {
        ["gzip", "x-gzip", "deflate", "br", "zstd"].contains(contentEncoding?.lowercased() ?? "")
    }

    /// True for the codings every URLSession decodes (gzip and deflate). `br` and `zstd` are
    /// decoded only where libcurl was built with them (Debian's is; others may not be), so a body
    /// a live URLSession handed over in those codings may be either form.
    public static func isDecodedByEveryURLSession(_ contentEncoding: String?) -> Bool {
        ["gzip", "x-gzip", "deflate"].contains(contentEncoding?.lowercased() ?? "")
    }
}
