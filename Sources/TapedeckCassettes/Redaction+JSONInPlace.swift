import Foundation

/// JSON redaction that edits the document's bytes where a secret sits, instead of parsing it and
/// writing it again: every other byte — key order, spacing, a pretty-printed layout, `1.50`, an
/// integer past 2⁵³, a repeated key, `\/` escapes — replays as the server sent it. The rules are
/// ``Redactor/redactValue(_:changed:)``'s, applied to the same places.
extension Redactor {
    /// One replacement: the bytes `range` of the document become `bytes`.
    private struct Edit {
        var range: Range<Int>
        var bytes: [UInt8]
    }

    /// How deep the walk follows nesting before giving up (the caller then writes the document
    /// again as before).
    private static let inPlaceDepth = 512

    /// `body` with its secret fields replaced in place, or nil when the walk could not read it
    /// (the caller falls back to parsing and writing it again). Unchanged bytes when nothing is
    /// secret.
    func redactJSONInPlace(_ body: Data) -> Data? {
        let edits: [Edit]? = body.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor = JSONCursor(base: base, count: raw.count)
            var edits: [Edit] = []
            guard walkValue(&cursor, into: &edits, depth: 0), cursor.peek() == nil else { return nil }
            return edits
        }
        guard let edits else { return nil }
        return edits.isEmpty ? body : Self.applying(edits, to: body)
    }

    /// Any value: objects by their fields' names, lists element by element, a link string with
    /// its secret query items replaced.
    private func walkValue(_ cursor: inout JSONCursor, into edits: inout [Edit], depth: Int) -> Bool {
        guard depth < Self.inPlaceDepth else { return false }
        switch cursor.peek() {
        case UInt8(ascii: "{"): return walkObject(&cursor, into: &edits, depth: depth + 1)
        case UInt8(ascii: "["): return walkList(&cursor, into: &edits, depth: depth + 1) { cursor, edits, depth in
            walkValue(&cursor, into: &edits, depth: depth)
        }
        case UInt8(ascii: "\""):
            let start = cursor.position
            guard let text = cursor.readString() else { return false }
            redactLink(text, at: start..<cursor.position, into: &edits)
            return true
        case nil: return false
        default: return cursor.skipValue()
        }
    }

    /// `{ "key": value, … }` (a repeated key is walked like any other).
    private func walkObject(_ cursor: inout JSONCursor, into edits: inout [Edit], depth: Int) -> Bool {
        guard depth < Self.inPlaceDepth, cursor.take(UInt8(ascii: "{")) else { return false }
        if cursor.take(UInt8(ascii: "}")) { return true }
        while true {
            guard cursor.peek() == UInt8(ascii: "\""), let key = cursor.readString(), cursor.take(UInt8(ascii: ":")) else { return false }
            guard walkMember(key, &cursor, into: &edits, depth: depth) else { return false }
            if cursor.take(UInt8(ascii: ",")) { continue }
            return cursor.take(UInt8(ascii: "}"))
        }
    }

    /// A field's value: a secret scalar replaced, the values of a list under a secret name
    /// replaced, anything else walked.
    private func walkMember(_ key: String, _ cursor: inout JSONCursor, into edits: inout [Edit], depth: Int) -> Bool {
        switch cursor.peek() {
        case UInt8(ascii: "{"):
            return walkObject(&cursor, into: &edits, depth: depth + 1)
        case UInt8(ascii: "["):
            return isSecretJSONField(key) ? walkSecretList(key, &cursor, into: &edits, depth: depth + 1)
                : walkList(&cursor, into: &edits, depth: depth + 1) { cursor, edits, depth in walkValue(&cursor, into: &edits, depth: depth) }
        default:
            return walkScalar(under: key, &cursor, into: &edits)
        }
    }

    /// The values of a list under a secret field's name, replaced as the field's own would be
    /// (nested lists too); objects in it go by their own fields' names.
    private func walkSecretList(_ key: String, _ cursor: inout JSONCursor, into edits: inout [Edit], depth: Int) -> Bool {
        walkList(&cursor, into: &edits, depth: depth) { cursor, edits, depth in
            switch cursor.peek() {
            case UInt8(ascii: "["): return walkSecretList(key, &cursor, into: &edits, depth: depth + 1)
            case UInt8(ascii: "{"): return walkObject(&cursor, into: &edits, depth: depth + 1)
            default: return walkScalar(under: key, &cursor, into: &edits)
            }
        }
    }

    /// `[ value, … ]`, `element` consuming each.
    private func walkList(_ cursor: inout JSONCursor, into edits: inout [Edit], depth: Int,
                          _ element: (inout JSONCursor, inout [Edit], Int) -> Bool) -> Bool {
        guard depth < Self.inPlaceDepth, cursor.take(UInt8(ascii: "[")) else { return false }
        if cursor.take(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&cursor, &edits, depth) else { return false }
            if cursor.take(UInt8(ascii: ",")) { continue }
            return cursor.take(UInt8(ascii: "]"))
        }
    }

    /// A string, number, boolean or null under `key`: a secret string becomes the placeholder,
    /// a secret number `0` (``redactedScalar(_:)``'s rule); `null`, `true` and `false` stay; a
    /// string that is no secret but a link loses its secret query items.
    private func walkScalar(under key: String, _ cursor: inout JSONCursor, into edits: inout [Edit]) -> Bool {
        guard let first = cursor.peek() else { return false }
        let start = cursor.position
        if first == UInt8(ascii: "\"") {
            guard let text = cursor.readString() else { return false }
            if isSecretJSONField(key, value: text) {
                if text != Self.placeholder { edits.append(Edit(range: start..<cursor.position, bytes: Self.quoted(Self.placeholder))) }
            } else {
                redactLink(text, at: start..<cursor.position, into: &edits)
            }
            return true
        }
        if first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "n") { return cursor.skipValue() }
        guard cursor.readNumber() != nil else { return false }
        if isSecretJSONField(key, value: 0), cursor.position - start != 1 || cursor.base[start] != UInt8(ascii: "0") {
            edits.append(Edit(range: start..<cursor.position, bytes: [UInt8(ascii: "0")]))
        }
        return true
    }

    /// A link string (``looksLikeLink(_:)``) at `range` with its secret query items replaced.
    private func redactLink(_ text: String, at range: Range<Int>, into edits: inout [Edit]) {
        guard Self.looksLikeLink(text) else { return }
        let redacted = redactURLText(text)
        if redacted != text { edits.append(Edit(range: range, bytes: Self.quoted(redacted))) }
    }

    /// `body` with, in each JSON string spelt with escapes (`\u003c`, `\u00e4`, `\/`: Go's,
    /// Python's and PHP's encoders), the request's `echoes` and bearer tokens replaced in the
    /// decoded text — which the byte searches over the body cannot see through the escapes — and
    /// the string written back quoted; unchanged when the body is not JSON or nothing is found.
    func redactingEscapedStrings(_ body: Data, echoes: [String]) -> Data {
        let bearer = isSecretHeader("authorization")
        guard !body.isEmpty, body.count <= Self.inspectionLimit, echoes.isEmpty == false || bearer,
              body.contains(UInt8(ascii: "\\")), looksLikeJSON(body) else { return body }
        let edits: [Edit]? = body.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor = JSONCursor(base: base, count: raw.count)
            var edits: [Edit] = []
            func visit(_ cursor: inout JSONCursor, depth: Int) -> Bool {
                guard depth < Self.inPlaceDepth else { return false }
                switch cursor.peek() {
                case UInt8(ascii: "{"):
                    guard cursor.take(UInt8(ascii: "{")) else { return false }
                    if cursor.take(UInt8(ascii: "}")) { return true }
                    while true {
                        guard cursor.peek() == UInt8(ascii: "\""), cursor.readString() != nil, cursor.take(UInt8(ascii: ":")),
                              visit(&cursor, depth: depth + 1) else { return false }
                        if cursor.take(UInt8(ascii: ",")) { continue }
                        return cursor.take(UInt8(ascii: "}"))
                    }
                case UInt8(ascii: "["):
                    guard cursor.take(UInt8(ascii: "[")) else { return false }
                    if cursor.take(UInt8(ascii: "]")) { return true }
                    while true {
                        guard visit(&cursor, depth: depth + 1) else { return false }
                        if cursor.take(UInt8(ascii: ",")) { continue }
                        return cursor.take(UInt8(ascii: "]"))
                    }
                case UInt8(ascii: "\""):
                    let start = cursor.position
                    guard let text = cursor.readString() else { return false }
                    let spelt = UnsafeBufferPointer(start: base + start, count: cursor.position - start)
                    guard spelt.contains(UInt8(ascii: "\\")) else { return true }
                    var replaced = text
                    for secret in echoes where replaced.contains(secret) {
                        replaced = replaced.replacingOccurrences(of: secret, with: Self.placeholder)
                    }
                    if bearer { replaced = String(decoding: Self.replacingBearerTokens(in: Data(replaced.utf8)), as: UTF8.self) }
                    if replaced != text { edits.append(Edit(range: start..<cursor.position, bytes: Self.quoted(replaced))) }
                    return true
                case nil: return false
                default: return cursor.skipValue()
                }
            }
            guard visit(&cursor, depth: 0), cursor.peek() == nil else { return nil }
            return edits
        }
        guard let edits, !edits.isEmpty else { return body }
        return Self.applying(edits, to: body)
    }

    private static func applying(_ edits: [Edit], to body: Data) -> Data {
        var result = Data(capacity: body.count)
        var copied = 0
        body.withUnsafeBytes { raw in
            for edit in edits {
                result.append(contentsOf: raw[copied..<edit.range.lowerBound])
                result.append(contentsOf: edit.bytes)
                copied = edit.range.upperBound
            }
            result.append(contentsOf: raw[copied...])
        }
        return result
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, nothing else.
    static func quoted(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20: bytes += Array(String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return bytes
    }
}
