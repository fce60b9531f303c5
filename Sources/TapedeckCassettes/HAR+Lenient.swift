package import Foundation

// Reading other tools' HAR files without refusing them for one odd entry or one oddly typed
// number (see HAR.swift).

/// Why an entry could not be decoded: the field (a path inside the entry, empty for the entry as
/// a whole) and what was wrong with it.
package struct HARUnreadable: Hashable, Sendable {
    package var field: String
    package var reason: String

    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// An entry without a `response`.
    static let noResponse = HARUnreadable(field: "response", reason: "the entry records no response, so there is nothing to replay: a "
        + "request still in flight when the file was exported (Proxyman writes those), or a request-only HAR (such as an input "
        + "for k6's har-to-k6)")
    /// An entry whose `response` is null.
    static let nullResponse = HARUnreadable(field: "response", reason: "the entry's response is null, so there is nothing to replay: "
        + "a request still in flight when the file was exported (Proxyman writes those), or a request-only entry")
}

/// Decodes one entry without ever failing: a decoding error becomes an unreadable placeholder
/// (and the array it sits in moves on to the next element).
struct LenientEntry: Decodable {
    let entry: HAREntry

    init(from decoder: any Decoder) throws {
        do {
            entry = try HAREntry(from: decoder)
        } catch {
            var placeholder = HAREntry.unreadable(Self.describe(error, below: decoder.codingPath.count))
            // Name the request when its method and URL can still be read.
            if let request = (try? RequestLine(from: decoder))?.request {
                placeholder.request.method = request.method ?? ""
                placeholder.request.url = request.url ?? ""
            }
            entry = placeholder
        }
    }

    /// What may still be read of an entry that does not decode.
    private struct RequestLine: Decodable {
        struct Request: Decodable {
            var method: String?
            var url: String?
        }
        var request: Request?
    }

    /// What Foundation's JSON parser objected to, in words (its errors print as Swift values:
    /// `unescapedControlCharacterInString(ascii: 1, location: …)`).
    static func jsonSyntax(_ error: any Error) -> String {
        let text = "\(error)"
        if text.hasPrefix("unescapedControlCharacterInString"),
           let ascii = text.split(separator: "ascii: ").dropFirst().first?.prefix(while: \.isNumber), let value = Int(ascii) {
            let hex = String(value, radix: 16, uppercase: true)
            let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return "a string holds a raw control character (0x\(code)); JSON allows one only escaped (\\u\(code))"
        }
        return "not valid JSON: " + (text.split(separator: "(").first.map(String.init) ?? text)
    }

    /// A type mismatch in JSON's words: `expected a list, found an object`.
    static func typeMismatch(_ type: Any.Type, _ context: DecodingError.Context) -> String {
        let expected = kind(type)
        let detail = context.debugDescription
        if let found = detail.range(of: "but found ")?.upperBound {
            var rest = detail[found...]
            for article in ["a ", "an "] where rest.hasPrefix(article) { rest = rest.dropFirst(article.count) }
            let word = rest.prefix { $0 != " " && $0 != "." }
            let actual = ["dictionary": "an object", "array": "a list", "string": "text", "number": "a number", "bool": "true or false",
                          "null": "null"][String(word).lowercased(), default: String(word)]
            return "expected \(expected), found \(actual)"
        }
        return "expected \(expected): \(detail)"
    }

    /// What a Swift type is called in JSON's words: `[Any]` is a list, `String` text.
    static func kind(_ type: Any.Type) -> String {
        let name = "\(type)"
        if name.hasPrefix("Array") { return "a list" }
        if name.hasPrefix("Dictionary") || name.hasPrefix("HAR") { return "an object" }
        if name == "String" { return "text" }
        if ["Int", "Double", "Int64", "UInt64", "Float"].contains(name) { return "a number" }
        return name == "Bool" ? "true or false" : name
    }

    /// The field and the reason, from a DecodingError's path. `depth` keys of the error's path
    /// lead to the entry itself and are left out.
    static func describe(_ error: any Error, below depth: Int) -> HARUnreadable {
        guard let error = error as? DecodingError else {
            // Foundation's JSON parser reports bytes that are not UTF-8 by an error of its own.
            if "\(error)".contains("UTF8") {
                return HARUnreadable(field: "", reason: "the entry holds text that is not UTF-8 (HAR files are UTF-8; HttpWatch and some "
                    + "older tools write Latin-1): convert the file, e.g. iconv -f latin1 -t utf-8")
            }
            return HARUnreadable(field: "", reason: jsonSyntax(error))
        }
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys.dropFirst(depth) {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text
        }
        switch error {
        case let .keyNotFound(key, context):
            if key.stringValue == "response", path(context.codingPath).isEmpty {
                return .noResponse
            }
            return HARUnreadable(field: path(context.codingPath + [key]), reason: "the required field '\(key.stringValue)' is missing")
        case let .typeMismatch(type, context):
            return HARUnreadable(field: path(context.codingPath), reason: typeMismatch(type, context))
        case let .valueNotFound(type, context):
            if path(context.codingPath) == "response" {
                return .nullResponse
            }
            return HARUnreadable(field: path(context.codingPath), reason: "expected \(kind(type)), found null")
        case let .dataCorrupted(context):
            return HARUnreadable(field: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return HARUnreadable(field: "", reason: "\(error)")
        }
    }
}

/// Numbers that a writer put in quotes (`"time": "17.25"`, `"status": "200"`, `"bodySize": "-1"`):
/// scripts that assemble HAR files, and hand edits, do this. Both readers go through these two
/// functions, so they agree on what a quoted number is: the whole string, spaces around it aside,
/// must be a JSON number (no `NaN`, `inf`, hex or empty string).
package enum HARNumberText {
    /// The number a quoted string holds (`"17.25"` → 17.25), nil unless it is one.
    package static func double(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard isJSONNumber(trimmed.utf8), let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// An integer, also from an integral float (`"62.0"`), as for unquoted numbers.
    package static func integer(_ text: String) -> Int? {
        guard let value = double(text) else { return nil }
        return integer(value)
    }

    /// `value` as an integer when it is integral and not huge.
    package static func integer(_ value: Double) -> Int? {
        guard value.isFinite, value.rounded() == value, abs(value) < 1e15 else { return nil }
        return Int(value)
    }

    /// `-?digits(.digits)?([eE][+-]?digits)?`
    private static func isJSONNumber(_ bytes: String.UTF8View) -> Bool {
        var index = bytes.startIndex
        func digits() -> Bool {
            let start = index
            while index != bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index = bytes.index(after: index) }
            return index != start
        }
        func take(_ ascii: Unicode.Scalar) -> Bool {
            guard index != bytes.endIndex, bytes[index] == UInt8(ascii: ascii) else { return false }
            index = bytes.index(after: index)
            return true
        }
        _ = take("-")
        guard digits() else { return false }
        if take("."), !digits() { return false }
        if take("e") || take("E") {
            if !take("+") { _ = take("-") }
            guard digits() else { return false }
        }
        return index == bytes.endIndex
    }
}

extension KeyedDecodingContainer {
    /// An integer that some writers store as a float (`62.0`) or in quotes (`"62"`).
    func decodeLenientInt(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int.self, forKey: key) { return value }
        if let text = try? decode(String.self, forKey: key) {
            guard let value = HARNumberText.integer(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected an integer, found the string '\(text.prefix(40))'")
            }
            return value
        }
        let value = try decode(Double.self, forKey: key)
        guard let integer = HARNumberText.integer(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected an integer, found \(value)")
        }
        return integer
    }

    /// A number, also one in quotes (`"17.25"`); nil when absent or null.
    func decodeLenientDouble(forKey key: Key) throws -> Double? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let text = try? decode(String.self, forKey: key) {
            guard let value = HARNumberText.double(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected a number, found the string '\(text.prefix(40))'")
            }
            return value
        }
        return try decode(Double.self, forKey: key)
    }
}

/// Repairs of JSON text other tools write and Foundation's parser refuses.
package enum HARText {
    /// `data` with every lone surrogate escape in its strings (`\udce9` without its pair, as
    /// Python's `json` writes a byte that was not UTF-8) replaced by `\ufffd`; nil when it holds
    /// none. Pairs, other escapes and the text outside strings are kept byte for byte.
    package static func mendingLoneSurrogates(_ data: Data) -> Data? {
        // Most files hold no surrogate escape at all (`\uD8`…`\uDF`): say so without a copy.
        let mayHoldOne = data.withUnsafeBytes { raw -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= 6 else { return false }
            for index in 0..<(bytes.count - 3) where bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u")
                && (bytes[index + 2] | 0x20) == UInt8(ascii: "d") {
                let third = bytes[index + 3] | 0x20
                if (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(third) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(third) { return true }
            }
            return false
        }
        guard mayHoldOne else { return nil }
        let bytes = [UInt8](data)
        let backslash = UInt8(ascii: "\\"), quote = UInt8(ascii: "\""), letterU = UInt8(ascii: "u")
        func escape(at index: Int) -> Int? {   // the code unit of `\uXXXX` at `index`
            guard index + 6 <= bytes.count, bytes[index] == backslash, bytes[index + 1] == letterU else { return nil }
            return Int(String(decoding: bytes[index + 2..<index + 6], as: UTF8.self), radix: 16)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var changed = false, inString = false, index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote { inString.toggle() }
            guard inString, byte == backslash, index + 1 < bytes.count else {
                output.append(byte)
                index += 1
                continue
            }
            guard let unit = escape(at: index), (0xD800...0xDFFF).contains(unit) else {
                output.append(contentsOf: bytes[index..<index + 2])   // any other escape, whole
                index += 2
                continue
            }
            if unit <= 0xDBFF, let low = escape(at: index + 6), (0xDC00...0xDFFF).contains(low) {
                output.append(contentsOf: bytes[index..<index + 12])   // a pair
                index += 12
            } else {
                output.append(contentsOf: Array("\\ufffd".utf8))
                changed = true
                index += 6
            }
        }
        return changed ? Data(output) : nil
    }
}
