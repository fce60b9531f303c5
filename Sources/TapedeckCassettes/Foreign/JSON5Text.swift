import Foundation

/// JSON5 (what Talkback writes its tapes in) rewritten as JSON, for the JSON reader: keys without
/// quotes get them, single-quoted strings become double-quoted, comments and trailing commas go,
/// and `+1`, `0x1F`, `.5` and `5.` become JSON numbers. Strings' escapes are made JSON's (`\'`,
/// `\x41`, `\0`, `\v`, a line continuation). Nil when the text is not UTF-8 or a string or comment
/// does not end; whatever else is wrong is left for the JSON reader to report.
///
/// ```swift
/// JSON5Text.json(from: Data("{meta: {host: 'https://api.test',}, // a tape\n}".utf8))
/// // {"meta": {"host": "https://api.test"}}
/// ```
enum JSON5Text {
    static func json(from data: Data) -> Data? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        let characters = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var at = 0

        func peek(_ offset: Int = 0) -> Unicode.Scalar? { at + offset < characters.count ? characters[at + offset] : nil }
        func isIdentifierStart(_ c: Unicode.Scalar) -> Bool { CharacterSet.letters.contains(c) || c == "_" || c == "$" }
        func isIdentifierPart(_ c: Unicode.Scalar) -> Bool { isIdentifierStart(c) || CharacterSet.decimalDigits.contains(c) }
        func append(_ string: String) { out.append(contentsOf: string.unicodeScalars) }
        /// Drops the white space and one comma at the end of the output (a trailing comma).
        func dropTrailingComma() {
            var end = out.endIndex
            while end > out.startIndex, CharacterSet.whitespacesAndNewlines.contains(out[out.index(before: end)]) { end = out.index(before: end) }
            if end > out.startIndex, out[out.index(before: end)] == "," { out.remove(at: out.index(before: end)) }
        }
        /// Copies a string opened by `quote` as a double-quoted JSON string; false when it does not end.
        func copyString(_ quote: Unicode.Scalar) -> Bool {
            at += 1
            out.append("\"")
            while let c = peek() {
                at += 1
                if c == quote { out.append("\""); return true }
                if c == "\"" { append("\\\""); continue }
                if c == "\n" || c == "\r" { return false }
                guard c == "\\", let next = peek() else { out.append(c); continue }
                at += 1
                switch next {
                case "'": out.append("'")
                case "\n": break
                case "\r": if peek() == "\n" { at += 1 }
                case "0": append("\\u0000")
                case "v": append("\\u000b")
                case "x":
                    guard at + 1 < characters.count else { return false }
                    append("\\u00" + String(characters[at]) + String(characters[at + 1]))
                    at += 2
                default:
                    out.append("\\")
                    out.append(next)
                }
            }
            return false
        }

        while let c = peek() {
            switch c {
            case "\"", "'":
                guard copyString(c) else { return nil }
            case "/" where peek(1) == "/":
                while let next = peek(), next != "\n" { at += 1 }
            case "/" where peek(1) == "*":
                at += 2
                while peek() != nil, !(peek() == "*" && peek(1) == "/") { at += 1 }
                guard peek() != nil else { return nil }
                at += 2
            case "}", "]":
                dropTrailingComma()
                out.append(c)
                at += 1
            case "+" where peek(1).map { CharacterSet.decimalDigits.contains($0) || $0 == "." } ?? false:
                at += 1
            case "0" where peek(1) == "x" || peek(1) == "X":
                var digits = ""
                at += 2
                while let d = peek(), d.properties.isASCIIHexDigit { digits.unicodeScalars.append(d); at += 1 }
                append(UInt64(digits, radix: 16).map(String.init) ?? "0")
            case "." where peek(1).map { CharacterSet.decimalDigits.contains($0) } ?? false:
                append("0.")
                at += 1
            case _ where CharacterSet.decimalDigits.contains(c):
                while let d = peek(), CharacterSet.decimalDigits.contains(d) || "eE+-".unicodeScalars.contains(d) { out.append(d); at += 1 }
                if peek() == "." {
                    out.append(".")
                    at += 1
                    if !(peek().map { CharacterSet.decimalDigits.contains($0) } ?? false) { out.append("0") }   // `5.`
                }
            case _ where isIdentifierStart(c):
                var word = ""
                while let d = peek(), isIdentifierPart(d) { word.unicodeScalars.append(d); at += 1 }
                // A key when a colon follows (white space and comments aside); else a literal.
                var look = at
                while look < characters.count, CharacterSet.whitespacesAndNewlines.contains(characters[look]) { look += 1 }
                if look < characters.count, characters[look] == ":" {
                    append("\"\(word)\"")
                } else {
                    append(["Infinity", "NaN"].contains(word) ? "null" : word)
                }
            default:
                out.append(c)
                at += 1
            }
        }
        return Data(String(out).utf8)
    }
}
