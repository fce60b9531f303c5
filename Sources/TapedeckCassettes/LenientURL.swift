package import Foundation

/// URLs as recorders write them and as clients send them, which `URL(string:)` does not always
/// take: raw `[`, `]`, `|`, `{`, `}`, spaces or non-ASCII letters in a path or query (Chrome HAR
/// Capturer, curl `-g`). Given such a string, swift-foundation percent-encodes *every* `%` too,
/// turning a recorded `%2F` into `%252F`, so a client that sends the same URL properly escaped
/// never matches. This escapes only the characters a URL cannot hold, after the authority, and
/// leaves existing `%XX` escapes alone.
///
/// ```swift
/// LenientURL.parse("http://ads.example/p?x=[1]&next=%2Fhome")?.absoluteString
/// // "http://ads.example/p?x=%5B1%5D&next=%2Fhome"
/// ```
package enum LenientURL {
    /// The URL `text` names, with only its invalid characters escaped (nil if it is still not a URL).
    package static func parse(_ text: String) -> URL? {
        URL(string: escapingInvalidCharacters(text))
    }

    /// `text` without its fragment (the first `#` and what follows it; no other part of a URL
    /// holds a raw `#`). Clients never send a fragment, so a request URL recorded with one
    /// (Firebug writes `http://connect.facebook.net/en_US/all.js#xfbml=1`) would never equal a
    /// live one.
    ///
    /// ```swift
    /// LenientURL.droppingFragment("http://a.example/all.js#xfbml=1")   // "http://a.example/all.js"
    /// ```
    package static func droppingFragment(_ text: String) -> String {
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    /// `text` with each character a URL cannot hold, in its path, query and fragment, percent-encoded
    /// (as UTF-8), and each `%` that does not start a `%XX` escape written `%25`. The scheme and
    /// authority are left as they are (brackets belong to an IPv6 host there).
    package static func escapingInvalidCharacters(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var start = 0
        // After "scheme://authority": the authority ends at the first '/', '?' or '#'.
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
           bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") {
            start = colon + 3
            while start < bytes.count, !"/?#".utf8.contains(bytes[start]) { start += 1 }
        }
        // '%' and '#' are not in the allowed set either, so a URL holding them is looked at closely.
        guard bytes[start...].contains(where: { !isAllowed($0) }) else { return text }
        var result = Array(bytes[..<start])
        var sawFragment = false
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                if index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                    result.append(contentsOf: bytes[index...index + 2])
                    index += 3
                } else {
                    result.append(contentsOf: "%25".utf8)
                    index += 1
                }
                continue
            }
            if byte == UInt8(ascii: "#") {
                // The first '#' starts the fragment; a second one cannot stand in it.
                if sawFragment { result.append(contentsOf: "%23".utf8) } else { result.append(byte) }
                sawFragment = true
            } else if isAllowed(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hexDigit(byte >> 4))
                result.append(hexDigit(byte & 0x0F))
            }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// What RFC 3986 allows in a path, query or fragment besides `%XX`: unreserved characters,
    /// sub-delimiters, `:`, `@`, `/` and `?`.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=:@/?".utf8.contains(byte)
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x41 + value - 10
    }
}
