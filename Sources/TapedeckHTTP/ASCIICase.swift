import Foundation

/// Case-insensitive comparisons the HTTP way: only ASCII letters fold, byte by byte. Header field
/// names, methods and media types are compared like this; Foundation's `caseInsensitiveCompare`
/// and `contains` go through `NSString` on Linux, which showed in the recording proxy's profile
/// (about a tenth of its time, for header lookups and the redactor's name tests).
extension StringProtocol {
    /// Whether this text and `other` are equal once ASCII letters are folded to one case; any
    /// other byte must match exactly.
    ///
    /// ```swift
    /// "Content-Type".equalsIgnoringASCIICase("content-type")   // true
    /// "Straße".equalsIgnoringASCIICase("STRASSE")              // false
    /// ```
    @inlinable
    public func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        var mine = utf8.makeIterator()
        var theirs = other.utf8.makeIterator()
        while true {
            switch (mine.next(), theirs.next()) {
            case (nil, nil):
                return true
            case let (a?, b?):
                if a != b, asciiFolded(a) != asciiFolded(b) { return false }
            default:
                return false
            }
        }
    }

    /// Whether `needle`'s bytes occur in this text as they are (no Unicode equivalence); with
    /// `foldingCase`, ASCII capitals of this text count as their small letters (give a needle in
    /// small letters). The cheap test for ASCII words in a header or field name: a plain byte loop
    /// over contiguous UTF-8, not the standard library's generic collection search, which cost a
    /// fifth of the recording proxy's time in its redactor's name tests.
    ///
    /// ```swift
    /// "x-api-key".containsBytes(of: "key")                      // true
    /// "X-Api-Key".containsBytes(of: "key", foldingCase: true)   // true
    /// ```
    public func containsBytes(of needle: some StringProtocol, foldingCase: Bool = false) -> Bool {
        func search(_ needle: UnsafeBufferPointer<UInt8>) -> Bool {
            if let found = utf8.withContiguousStorageIfAvailable({ asciiSearch($0, needle, foldingCase: foldingCase) }) {
                return found
            }
            return Array(utf8).withUnsafeBufferPointer { asciiSearch($0, needle, foldingCase: foldingCase) }
        }
        if let found = needle.utf8.withContiguousStorageIfAvailable(search) { return found }
        return Array(needle.utf8).withUnsafeBufferPointer(search)
    }
}

extension Data {
    /// ``Swift/StringProtocol/containsBytes(of:foldingCase:)`` over bytes: whether `needle`'s
    /// UTF-8 occurs in them, ASCII capitals folded with `foldingCase` (a needle in small letters).
    ///
    /// ```swift
    /// Data("Bearer x".utf8).containsBytes(of: "bearer", foldingCase: true)   // true
    /// ```
    package func containsBytes(of needle: String, foldingCase: Bool = false) -> Bool {
        let needle = Array(needle.utf8)
        return withUnsafeBytes { raw in
            needle.withUnsafeBufferPointer { asciiSearch(raw.bindMemory(to: UInt8.self), $0, foldingCase: foldingCase) }
        }
    }
}

/// Whether `needle` occurs in `haystack`, byte for byte, or with `haystack`'s ASCII capitals
/// folded when `foldingCase` is set.
private func asciiSearch(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, foldingCase: Bool) -> Bool {
    guard let first = needle.first else { return true }
    guard needle.count <= haystack.count else { return false }
    let lastStart = haystack.count - needle.count
    var start = 0
    while start <= lastStart {
        if (foldingCase ? asciiFolded(haystack[start]) : haystack[start]) == first {
            var matched = 1
            while matched < needle.count,
                  (foldingCase ? asciiFolded(haystack[start + matched]) : haystack[start + matched]) == needle[matched] {
                matched += 1
            }
            if matched == needle.count { return true }
        }
        start += 1
    }
    return false
}

/// An ASCII capital letter as its small letter; any other byte as it is.
@usableFromInline
func asciiFolded(_ byte: UInt8) -> UInt8 {
    byte >= 65 && byte <= 90 ? byte | 0x20 : byte
}
