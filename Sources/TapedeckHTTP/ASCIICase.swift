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

    /// Whether `needle`'s bytes occur in this text as they are (no case folding, no Unicode
    /// equivalence): the cheap test for ASCII words in a name already lowercased.
    ///
    /// ```swift
    /// "x-api-key".containsBytes(of: "key")   // true
    /// ```
    public func containsBytes(of needle: some StringProtocol) -> Bool {
        utf8.contains(needle.utf8)   // the stdlib's collection search, with no copy of either side
    }
}

/// An ASCII capital letter as its small letter; any other byte as it is.
@usableFromInline
func asciiFolded(_ byte: UInt8) -> UInt8 {
    byte >= 65 && byte <= 90 ? byte | 0x20 : byte
}
