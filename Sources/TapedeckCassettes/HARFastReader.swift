import Foundation

/// A HAR-shaped JSON reader that builds the ``HARDocument`` model straight from the bytes.
///
/// Foundation's JSONDecoder reads cassettes at about a sixth of zlib's inflate speed here (see
/// docs/benchmarks.md); most of that is the Codable machinery, not JSON. This reader knows the
/// HAR schema, skips keys it does not know, and reads strings with one scan. It accepts only the
/// well-formed common case: on anything unexpected (a type it does not expect, invalid UTF-8, a
/// syntax error, very deep nesting) it returns nil, and the caller falls back to JSONDecoder —
/// which then produces the precise error, or reads a lenient oddity this reader declines.
enum HARFastReader {
    static func document(_ data: Data) -> HARDocument? {
        data.withUnsafeBytes { raw -> HARDocument? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor = JSONCursor(base: base, count: raw.count)
            var log: HARLog?
            guard cursor.object({ cursor, key in
                guard key == "log" else { return cursor.skipValue() }
                log = readLog(&cursor)
                return log != nil
            }) else { return nil }
            cursor.skipWhitespace()
            guard cursor.atEnd, let log else { return nil }
            return HARDocument(log: log)
        }
    }

    private static func readLog(_ cursor: inout JSONCursor) -> HARLog? {
        var version: String?
        var creator: HARCreator?
        var entries: [HAREntry]?
        var tapedeck: HARTapedeckInfo?
        var comment: String?
        var browser: HARCreator?
        let ok = cursor.object { cursor, key in
            switch key {
            case "version": return cursor.string(into: &version)
            case "creator": creator = readCreator(&cursor); return creator != nil
            case "browser":
                if cursor.null() { return true }
                browser = readCreator(&cursor)
                return browser != nil
            case "comment": return cursor.optionalString(into: &comment)
            case "_tapedeck":
                if cursor.null() { return true }
                var format: Int?
                guard cursor.object({ cursor, key in key == "formatVersion" ? cursor.int(into: &format) : cursor.skipValue() }),
                      let format else { return false }
                tapedeck = HARTapedeckInfo(formatVersion: format)
                return true
            case "entries":
                var list: [HAREntry] = []
                guard cursor.array({ cursor in
                    guard let entry = readEntry(&cursor) else { return false }
                    list.append(entry)
                    return true
                }) else { return false }
                entries = list
                return true
            default: return cursor.skipValue()
            }
        }
        guard ok, let version, let creator, let entries else { return nil }
        var log = HARLog(version: version, creator: creator, entries: entries, tapedeck: tapedeck)
        log.comment = comment
        log.browser = browser
        return log
    }

    private static func readCreator(_ cursor: inout JSONCursor) -> HARCreator? {
        var name: String?
        var version: String?
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "name": return cursor.string(into: &name)
            case "version": return cursor.string(into: &version)
            case "comment": return cursor.optionalString(into: &comment)
            default: return cursor.skipValue()
            }
        }), let name, let version else { return nil }
        var creator = HARCreator(name: name, version: version)
        creator.comment = comment
        return creator
    }

    private static func readEntry(_ cursor: inout JSONCursor) -> HAREntry? {
        var started: String?
        var time: Double?
        var request: HARRequest?
        var response: HARResponse?
        var timings: HARTimings?
        var index: Int?
        var error: HARTransportError?
        var serverIPAddress: String?
        var connection: String?
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "startedDateTime": return cursor.optionalString(into: &started)
            case "time": return cursor.optionalDouble(into: &time)
            case "request": request = readRequest(&cursor); return request != nil
            case "response": response = readResponse(&cursor); return response != nil
            case "timings":
                if cursor.null() { return true }
                timings = readTimings(&cursor)
                return timings != nil
            case "_index": return cursor.null() || cursor.int(into: &index)
            case "_error":
                if cursor.null() { return true }
                error = readTransportError(&cursor)
                return error != nil
            case "serverIPAddress": return cursor.optionalString(into: &serverIPAddress)
            case "connection": return cursor.optionalString(into: &connection)
            case "comment": return cursor.optionalString(into: &comment)
            case "cache":
                // HARCache holds nothing; anything but an object or null goes to the strict reader.
                return cursor.null() || cursor.object { cursor, _ in cursor.skipValue() }
            default: return cursor.skipValue()
            }
        }), let request, let response else { return nil }
        var entry = HAREntry(
            startedDateTime: started ?? "", time: time ?? -1, request: request, response: response,
            timings: timings ?? HARTimings(send: 0, wait: 0, receive: 0), index: index, error: error)
        entry.serverIPAddress = serverIPAddress
        entry.connection = connection
        entry.comment = comment
        return entry
    }

    private static func readTransportError(_ cursor: inout JSONCursor) -> HARTransportError? {
        // mitmproxy writes `_error` as a bare message.
        if cursor.peek() == UInt8(ascii: "\"") {
            var message: String?
            guard cursor.string(into: &message), let message else { return nil }
            return HARTransportError(code: -1, domain: "NSURLErrorDomain", message: message)
        }
        var code: Int?
        var domain: String?
        var message: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "code": return cursor.int(into: &code)
            case "domain": return cursor.string(into: &domain)
            case "message": return cursor.string(into: &message)
            default: return cursor.skipValue()
            }
        }), let code, let domain, let message else { return nil }
        return HARTransportError(code: code, domain: domain, message: message)
    }

    private static func readNameValues(_ cursor: inout JSONCursor, into list: inout [HARNameValue]) -> Bool {
        if cursor.null() { return true }
        return cursor.array { cursor in
            var name: String?
            var value: String?
            guard cursor.object({ cursor, key in
                switch key {
                case "name": return cursor.string(into: &name)
                case "value": return cursor.string(into: &value)
                default: return cursor.skipValue()
                }
            }), let name, let value else { return false }
            list.append(HARNameValue(name: name, value: value))
            return true
        }
    }

    /// Cookies are not kept by the model's users; an empty array (what Tapedeck writes) or null is
    /// read here, anything else by the strict reader.
    private static func emptyArray(_ cursor: inout JSONCursor) -> Bool {
        cursor.null() || cursor.array { _ in false }
    }

    private static func readRequest(_ cursor: inout JSONCursor) -> HARRequest? {
        var method: String?
        var url: String?
        var httpVersion: String?
        var headers: [HARNameValue] = []
        var query: [HARNameValue] = []
        var postData: HARPostData?
        var headersSize: Int?
        var bodySize: Int?
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "method": return cursor.string(into: &method)
            case "url": return cursor.string(into: &url)
            case "httpVersion": return cursor.optionalString(into: &httpVersion)
            case "cookies": return emptyArray(&cursor)
            case "headers": return readNameValues(&cursor, into: &headers)
            case "queryString": return readNameValues(&cursor, into: &query)
            case "postData":
                if cursor.null() { return true }
                postData = readPostData(&cursor)
                return postData != nil
            case "headersSize": return cursor.null() || cursor.int(into: &headersSize)
            case "bodySize": return cursor.null() || cursor.int(into: &bodySize)
            case "comment": return cursor.optionalString(into: &comment)
            default: return cursor.skipValue()
            }
        }), let method, let url else { return nil }
        var request = HARRequest(method: method, url: url, headers: headers, queryString: query, postData: postData, bodySize: bodySize ?? -1)
        request.httpVersion = httpVersion ?? "HTTP/1.1"
        request.headersSize = headersSize ?? -1
        request.comment = comment
        return request
    }

    private static func readPostData(_ cursor: inout JSONCursor) -> HARPostData? {
        var mimeType: String?
        var text: String?
        var encoding: String?
        var comment: String?
        var params: [HARParam]?
        guard cursor.object({ cursor, key in
            switch key {
            case "mimeType": return cursor.optionalString(into: &mimeType)
            case "text": return cursor.optionalString(into: &text)
            case "_encoding": return cursor.optionalString(into: &encoding)
            case "comment": return cursor.optionalString(into: &comment)
            case "params":
                if cursor.null() { return true }
                guard cursor.array({ _ in false }) else { return false }   // non-empty: the strict reader's
                params = []
                return true
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var postData = HARPostData(mimeType: mimeType ?? "", text: text ?? "", encoding: encoding)
        postData.text = text
        postData.params = params
        postData.comment = comment
        return postData
    }

    private static func readResponse(_ cursor: inout JSONCursor) -> HARResponse? {
        var status: Int?
        var statusText: String?
        var httpVersion: String?
        var headers: [HARNameValue] = []
        var content: HARContent?
        var redirectURL: String?
        var headersSize: Int?
        var bodySize: Int?
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "status": return cursor.null() || cursor.int(into: &status)
            case "statusText": return cursor.optionalString(into: &statusText)
            case "httpVersion": return cursor.optionalString(into: &httpVersion)
            case "cookies": return emptyArray(&cursor)
            case "headers": return readNameValues(&cursor, into: &headers)
            case "content":
                if cursor.null() { return true }
                content = readContent(&cursor)
                return content != nil
            case "redirectURL": return cursor.optionalString(into: &redirectURL)
            case "headersSize": return cursor.null() || cursor.int(into: &headersSize)
            case "bodySize": return cursor.null() || cursor.int(into: &bodySize)
            case "comment": return cursor.optionalString(into: &comment)
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var response = HARResponse(
            status: status ?? 0, statusText: statusText ?? "", headers: headers,
            content: content ?? HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
            redirectURL: redirectURL ?? "", bodySize: bodySize ?? -1)
        response.httpVersion = httpVersion ?? "HTTP/1.1"
        response.headersSize = headersSize ?? -1
        response.comment = comment
        return response
    }

    private static func readContent(_ cursor: inout JSONCursor) -> HARContent? {
        var size: Int?
        var compression: Int?
        var mimeType: String?
        var text: String?
        var encoding: String?
        var comment: String?
        var bodyForm: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "size": return cursor.null() || cursor.int(into: &size)
            case "compression": return cursor.null() || cursor.int(into: &compression)
            case "mimeType": return cursor.optionalString(into: &mimeType)
            case "text": return cursor.optionalString(into: &text)
            case "encoding": return cursor.optionalString(into: &encoding)
            case "comment": return cursor.optionalString(into: &comment)
            case "_bodyForm": return cursor.optionalString(into: &bodyForm)
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var content = HARContent(size: size ?? -1, mimeType: mimeType ?? "", text: text, encoding: encoding, bodyForm: bodyForm)
        content.compression = compression
        content.comment = comment
        return content
    }

    private static func readTimings(_ cursor: inout JSONCursor) -> HARTimings? {
        var values: [String: Double] = [:]
        var comment: String?
        guard cursor.object({ cursor, key in
            switch key {
            case "blocked", "dns", "connect", "send", "wait", "receive", "ssl":
                var value: Double?
                guard cursor.optionalDouble(into: &value) else { return false }
                values[key] = value
                return true
            case "comment": return cursor.optionalString(into: &comment)
            default: return cursor.skipValue()
            }
        }) else { return nil }
        var timings = HARTimings(
            blocked: values["blocked"], dns: values["dns"], connect: values["connect"],
            send: values["send"] ?? 0, wait: values["wait"] ?? 0, receive: values["receive"] ?? 0, ssl: values["ssl"])
        timings.comment = comment
        return timings
    }
}

/// A forward-only JSON scanner over bytes. Every method returns false (or nil) instead of
/// trapping on malformed input, and nesting is bounded, so hostile input cannot crash it.
struct JSONCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    private(set) var position = 0
    private var depth = 0
    private static let maximumDepth = 256

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    var atEnd: Bool { position >= count }

    mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < count ? base[position] : nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
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
        var seen: [String] = []
        while true {
            guard peek() == UInt8(ascii: "\""), let key = readString(), take(UInt8(ascii: ":")) else { return false }
            guard !seen.contains(key) else { return false }
            seen.append(key)
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

    /// A string (required: null is refused).
    mutating func string(into value: inout String?) -> Bool {
        guard peek() == UInt8(ascii: "\""), let text = readString() else { return false }
        value = text
        return true
    }

    /// A string, or null (left nil).
    mutating func optionalString(into value: inout String?) -> Bool {
        null() || string(into: &value)
    }

    /// A number, or null (left nil).
    mutating func optionalDouble(into value: inout Double?) -> Bool {
        if null() { return true }
        guard let number = readNumber() else { return false }
        value = number
        return true
    }

    /// An integer; an integral float (`62.0`) is accepted, as the lenient model does.
    mutating func int(into value: inout Int?) -> Bool {
        guard let number = readNumber(), number.isFinite, number.rounded() == number, abs(number) < 1e15 else { return false }
        value = Int(number)
        return true
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

    private mutating func readNumber() -> Double? {
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
    private mutating func readString() -> String? {
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

    /// After `\u`: four hex digits, or a surrogate pair written as two escapes.
    private mutating func readEscapedScalar() -> Unicode.Scalar? {
        guard let high = readHex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard position + 1 < count, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else { return nil }
            position += 2
            guard let low = readHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
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
