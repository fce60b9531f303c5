import Foundation

/// A forward-only JSON scanner over bytes. Every method returns false (or nil) instead of
/// trapping on malformed input, and nesting is bounded, so hostile input cannot crash it.
struct JSONCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    private(set) var position = 0
    private var depth = 0
    private static let maximumDepth = 256
    /// Whether an unpaired surrogate escape reads as U+FFFD (the HAR reader: Python writes them
    /// for bytes that were not UTF-8) instead of failing (a scan that must agree with
    /// `JSONSerialization`, which refuses them).
    var acceptsLoneSurrogates = false
    /// Whether a lone `\udc80`–`\udcff` (with ``acceptsLoneSurrogates``) reads as the
    /// ``escapedByteBase`` character standing for that byte instead of U+FFFD: Python's
    /// `surrogateescape`, which mitmproxy uses for body bytes that were not UTF-8, maps each such
    /// byte to one of those surrogates, so a body's text keeps its exact bytes.
    var keepsEscapedBytes = false
    /// The private-use character standing for byte 0 (byte `b` is `escapedByteBase + b`; only
    /// 0x80–0xFF occur). Plane 16's last block: no text a tool writes holds it.
    static let escapedByteBase: UInt32 = 0x10FF00

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    var atEnd: Bool { position >= count }

    mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            case UInt8(ascii: "/") where acceptsComments:
                guard skipComment() else { return }
            default: return
            }
        }
    }

    /// Whether `//` and `/* */` comments count as white space: Jackson's `ALLOW_COMMENTS`, which
    /// WireMock turns on, so its mapping files may hold them. Off for HAR, which is strict JSON.
    var acceptsComments = false

    /// Skips the comment at `position` (a `/`); false, leaving `position`, when none starts there
    /// or a block comment never ends (the value reader then refuses the `/`).
    private mutating func skipComment() -> Bool {
        guard position + 1 < count else { return false }
        switch base[position + 1] {
        case UInt8(ascii: "/"):
            position += 2
            while position < count, base[position] != 0x0A { position += 1 }
            return true
        case UInt8(ascii: "*"):
            var end = position + 2
            while end + 1 < count, !(base[end] == UInt8(ascii: "*") && base[end + 1] == UInt8(ascii: "/")) { end += 1 }
            guard end + 1 < count else { return false }
            position = end + 2
            return true
        default:
            return false
        }
    }

    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < count ? base[position] : nil
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard position + length <= count else { return false }
        for offset in 0..<length where base[position + offset] != text.utf8Start[offset] { return false }
        position += length
        return true
    }

    /// Consumes `null` if it comes next.
    mutating func null() -> Bool {
        peek() == UInt8(ascii: "n") && literal("null")
    }

    /// `{ "key": value, ... }`, calling `body` with each key; `body` must consume the value.
    mutating func object(_ body: (inout JSONCursor, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return false }
        if take(UInt8(ascii: "}")) { return true }
        // JSONDecoder keeps the first of repeated keys; rather than copy that rule, decline them.
        var seen: Set<String> = []
        while true {
            guard peek() == UInt8(ascii: "\""), let key = readString(), take(UInt8(ascii: ":")) else { return false }
            guard seen.insert(key).inserted else { return false }
            guard body(&self, key) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    /// `[ value, ... ]`, calling `body` for each element; `body` must consume it.
    mutating func array(_ body: (inout JSONCursor) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return false }
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard body(&self) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]"))
        }
    }

    /// Steps over a UTF-8 byte order mark at the very start (Fiddler writes one).
    mutating func skipByteOrderMark() {
        if position == 0, count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { position = 3 }
    }

    /// Skips any value.
    mutating func skipValue() -> Bool {
        switch peek() {
        case UInt8(ascii: "{"): return object { cursor, _ in cursor.skipValue() }
        case UInt8(ascii: "["): return array { cursor in cursor.skipValue() }
        case UInt8(ascii: "\""): return readString() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case nil: return false
        default: return readNumber() != nil
        }
    }

    /// Skips any value as strictly as ``skipValue()`` judges what is JSON, without building its
    /// strings; repeated keys pass (a parser accepts them, and only a caller reading a key's
    /// value minds which one it gets).
    mutating func skipQuickly() -> Bool {
        switch peek() {
        case UInt8(ascii: "{"):
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { return false }
            if take(UInt8(ascii: "}")) { return true }
            while true {
                guard peek() == UInt8(ascii: "\""), skipString(), take(UInt8(ascii: ":")), skipQuickly() else { return false }
                if take(UInt8(ascii: ",")) { continue }
                return take(UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["): return array { cursor in cursor.skipQuickly() }
        case UInt8(ascii: "\""): return skipString()
        default: return skipValue()
        }
    }

    /// Steps over a string whose opening quote is next: plain ASCII is only scanned; escapes and
    /// other UTF-8 are read (and so checked) by ``readString()``.
    private mutating func skipString() -> Bool {
        let start = position
        position += 1
        while position < count {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return true
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 {
                position = start
                return readString() != nil
            }
            if byte < 0x20 { return false }
            position += 1
        }
        return false
    }

    mutating func readNumber() -> Double? {
        skipWhitespace()
        let start = position
        if position < count && base[position] == UInt8(ascii: "-") { position += 1 }
        var digits = 0
        while position < count, base[position] >= 0x30 && base[position] <= 0x39 { position += 1; digits += 1 }
        guard digits > 0 else { return nil }
        var integral = true
        // JSONDecoder also refuses an exponent straight after a lone zero ("0e5"); so do we.
        if digits == 1 && base[position - 1] == UInt8(ascii: "0") && position < count
            && (base[position] == UInt8(ascii: "e") || base[position] == UInt8(ascii: "E")) {
            return nil
        }
        if position < count && base[position] == UInt8(ascii: ".") {
            integral = false
            position += 1
            var fraction = 0
            while position < count, base[position] >= 0x30 && base[position] <= 0x39 { position += 1; fraction += 1 }
            guard fraction > 0 else { return nil }
        }
        if position < count && (base[position] == UInt8(ascii: "e") || base[position] == UInt8(ascii: "E")) {
            integral = false
            position += 1
            if position < count && (base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-")) { position += 1 }
            var exponent = 0
            while position < count, base[position] >= 0x30 && base[position] <= 0x39 { position += 1; exponent += 1 }
            guard exponent > 0 else { return nil }
        }
        let bytes = UnsafeBufferPointer(start: base + start, count: position - start)
        let negative = bytes[0] == UInt8(ascii: "-")
        let firstDigit = negative ? 1 : 0
        // JSON allows no leading zero ("01"); JSONDecoder rejects it, so do we.
        if digits > 1 && bytes[firstDigit] == UInt8(ascii: "0") { return nil }
        if integral && digits <= 15 {
            var value = 0
            for byte in bytes[firstDigit...] { value = value * 10 + Int(byte - 0x30) }
            return negative ? -Double(value) : Double(value)   // "-0" stays -0.0, as JSONDecoder reads it
        }
        // Out of Double's range either way (1e999, 1e-400) is not a number JSONDecoder accepts.
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        if value == 0 && !Self.onlyExponentNonZero(bytes) { return nil }   // underflowed to zero
        return value
    }

    /// True when the only non-zero digits are in the exponent ("0e5", "0.0e-7"): a true zero.
    private static func onlyExponentNonZero(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let mantissa = bytes.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        return !mantissa.contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
    }

    /// Reads a string whose opening quote is next. Escapes are decoded; invalid UTF-8, a raw
    /// control character or a bad escape gives nil.
    mutating func readString() -> String? {
        position += 1   // the opening quote
        let start = position
        // Fast path: no escapes — one scan, one validated copy.
        while position < count {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            position += 1
        }
        guard position < count else { return nil }
        var bytes = [UInt8](UnsafeBufferPointer(start: base + start, count: position - start))
        bytes.reserveCapacity(bytes.count + 64)
        while position < count {
            let byte = base[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(validating: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position + 1 < count else { return nil }
                let escape = base[position + 1]
                position += 2
                switch escape {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5C)
                case UInt8(ascii: "/"): bytes.append(0x2F)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = readEscapedScalar() else { return nil }
                    bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                bytes.append(byte)
                position += 1
            }
        }
        return nil
    }

    /// After `\u`: four hex digits, or a surrogate pair written as two escapes. With
    /// ``acceptsLoneSurrogates``, a surrogate without its pair — Python's `json` writes one for
    /// each byte of a string that was not UTF-8 (mitmproxy's `\udce9` for a raw `é`) — reads as
    /// U+FFFD, as a browser shows it, rather than costing the entry.
    private mutating func readEscapedScalar() -> Unicode.Scalar? {
        guard let high = readHex4() else { return nil }
        guard acceptsLoneSurrogates else {
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
            guard position + 1 < count, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else { return nil }
            position += 2
            guard let low = readHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        if (0xD800...0xDBFF).contains(high) {
            let before = position
            if position + 1 < count, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") {
                position += 2
                if let low = readHex4(), (0xDC00...0xDFFF).contains(low) {
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                }
            }
            position = before   // whatever follows is read on its own
            return "\u{FFFD}"
        }
        if keepsEscapedBytes, (0xDC80...0xDCFF).contains(high) { return Unicode.Scalar(Self.escapedByteBase + (high - 0xDC00)) }
        return Unicode.Scalar(high) ?? "\u{FFFD}"
    }

    private mutating func readHex4() -> UInt32? {
        guard position + 4 <= count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
