/// A strict check of JSON syntax (RFC 8259) for `.json` scenario files, which the YAML reader would
/// otherwise accept more loosely (a trailing comma, a comment, an unquoted word). Only says where
/// the first problem is; the values are read by the YAML reader as usual.
struct StrictJSON {
    /// The first problem of a text: its 1-based line and column, and what is wrong.
    struct Problem: Error {
        let line: Int
        let column: Int
        let message: String
    }

    private let bytes: [UInt8]
    private var index = 0

    /// The first syntax problem of `text`, or nil when it is one JSON value.
    static func problem(in text: String) -> Problem? {
        var parser = StrictJSON(bytes: Array(text.utf8))
        do {
            parser.skipSpace()
            try parser.value(depth: 0)
            parser.skipSpace()
            if parser.index < parser.bytes.count { throw parser.problem("unexpected text after the JSON value") }
            return nil
        } catch let problem as Problem {
            return problem
        } catch {
            return nil
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func problem(_ message: String) -> Problem {
        var line = 1, column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return Problem(line: line, column: column, message: message)
    }

    private mutating func skipSpace() {
        while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
    }

    private mutating func expect(_ character: Character, _ what: String) throws {
        guard current == character.asciiValue else { throw problem(what) }
        index += 1
    }

    private mutating func value(depth: Int) throws {
        guard depth < 512 else { throw problem("nested too deeply") }
        switch current {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): try number()
        case nil: throw problem("the text ends where a value should be")
        default: throw problem("a value should be here (an object, array, string, number, true, false or null)")
        }
    }

    private mutating func object(depth: Int) throws {
        index += 1
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            guard current == UInt8(ascii: "\"") else {
                throw problem(current == UInt8(ascii: "}") ? "a trailing comma before '}'" : "a key in double quotes should be here")
            }
            try string()
            skipSpace()
            try expect(":", "a ':' should follow the key")
            skipSpace()
            try value(depth: depth + 1)
            skipSpace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipSpace()
                continue
            }
            try expect("}", "a ',' or '}' should be here")
            return
        }
    }

    private mutating func array(depth: Int) throws {
        index += 1
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            if current == UInt8(ascii: "]") { throw problem("a trailing comma before ']'") }
            try value(depth: depth + 1)
            skipSpace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipSpace()
                continue
            }
            try expect("]", "a ',' or ']' should be here")
            return
        }
    }

    private mutating func string() throws {
        index += 1
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current, Array("\"\\/bfnrtu".utf8).contains(escaped) else { throw problem("an unknown escape in a string") }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let hex = current, Character(UnicodeScalar(hex)).isHexDigit else { throw problem("\\u needs four hex digits") }
                        index += 1
                    }
                }
            case 0..<0x20:
                let name = [0x0A: "a line break", 0x0D: "a carriage return", 0x09: "a tab", 0x00: "a NUL byte"][Int(byte)]
                    ?? "the control character U+" + String(format: "%04X", Int(byte))
                throw problem("\(name) inside a string: write it escaped (\\n, \\t, \\u0000)")
            default:
                index += 1
            }
        }
        throw problem("a string is not closed")
    }

    private mutating func literal(_ word: String) throws {
        for byte in word.utf8 {
            guard current == byte else { throw problem("a value should be here (did you mean \(word)?)") }
            index += 1
        }
    }

    private mutating func number() throws {
        func digits() -> Int {
            let start = index
            while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
            return index - start
        }
        if current == UInt8(ascii: "-") { index += 1 }
        let leadingZero = current == UInt8(ascii: "0")
        let whole = digits()
        guard whole > 0 else { throw problem("a digit should follow '-'") }
        if leadingZero && whole > 1 { throw problem("a number cannot start with 0 (write 1234, or \"01234\" for text)") }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw problem("a digit should follow the decimal point") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw problem("a digit should follow the exponent") }
        }
    }
}
