package import Foundation

/// One step of a path into a JSON document: an object's key or an array's index.
package enum JSONPathStep: Hashable, Sendable {
    /// The value under this key of an object.
    case key(String)
    /// The element at this index (from 0) of an array.
    case index(Int)
}

/// Finds the value at a path in a JSON document by scanning its bytes once, without building the
/// document's objects (a 600-element array read through `JSONSerialization` cost a scenario run a
/// quarter of its time for one expected field).
package enum JSONPathScan {
    /// What a scan found.
    package enum Found: Equatable {
        /// The document is valid and the path leads to the value at these byte offsets.
        case value(Range<Int>)
        /// The document is valid and the path leads nowhere (a missing key, an index past the
        /// end, a step into a value of another kind).
        case missing
        /// The scanner declined the document: it is not JSON, or it is JSON the scanner is
        /// stricter about than a full parser (repeated keys, very deep nesting, a byte order
        /// mark). The caller decides with a full parser.
        case declined
    }

    /// Scans `body` for the value at `path` (the empty path is the whole document).
    package static func find(_ path: [JSONPathStep], in body: Data) -> Found {
        body.withUnsafeBytes { raw -> Found in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, !raw.isEmpty else { return .declined }
            var cursor = JSONCursor(base: base, count: raw.count)
            var found: Range<Int>?
            guard walk(&cursor, path[...], found: &found) else { return .declined }
            cursor.skipWhitespace()
            guard cursor.atEnd else { return .declined }
            return found.map { .value($0) } ?? .missing
        }
    }

    /// Consumes one value, following `path` into it; the value the path ends at is noted in `found`.
    private static func walk(_ cursor: inout JSONCursor, _ path: ArraySlice<JSONPathStep>, found: inout Range<Int>?) -> Bool {
        guard let step = path.first else {
            cursor.skipWhitespace()
            let start = cursor.position
            guard cursor.skipQuickly() else { return false }
            found = start..<cursor.position
            return true
        }
        let rest = path.dropFirst()
        switch (step, cursor.peek()) {
        case let (.key(wanted), UInt8(ascii: "{")):
            return cursor.object { cursor, key in
                key == wanted ? walk(&cursor, rest, found: &found) : cursor.skipQuickly()
            }
        case let (.index(wanted), UInt8(ascii: "[")):
            var index = 0
            return cursor.array { cursor in
                defer { index += 1 }
                return index == wanted ? walk(&cursor, rest, found: &found) : cursor.skipQuickly()
            }
        default:
            return cursor.skipQuickly()
        }
    }
}
