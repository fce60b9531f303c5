// The typed readers the fast HAR reader fills its model with: a field's value into an optional,
// null read as nil, numbers as lenient as the Codable model reads them.

extension JSONCursor {
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

    /// ``optionalString(into:)`` for a body's text: bytes mitmproxy escaped as lone surrogates
    /// read as the characters standing for them (``keepsEscapedBytes``).
    mutating func optionalBodyText(into value: inout String?) -> Bool {
        let before = keepsEscapedBytes
        keepsEscapedBytes = acceptsLoneSurrogates
        defer { keepsEscapedBytes = before }
        return optionalString(into: &value)
    }

    /// A number, or null (left nil).
    mutating func optionalDouble(into value: inout Double?) -> Bool {
        if null() { return true }
        guard let number = readNumber() else { return false }
        value = number
        return true
    }

    /// An integer, or null (left nil).
    mutating func optionalInt(into value: inout Int?) -> Bool {
        null() || int(into: &value)
    }

    /// A number, a string holding one (``HARNumberText``: some writers quote numbers), or null (left nil).
    mutating func optionalLenientDouble(into value: inout Double?) -> Bool {
        guard peek() == UInt8(ascii: "\"") else { return optionalDouble(into: &value) }
        var text: String?
        guard string(into: &text), let text, let number = HARNumberText.double(text) else { return false }
        value = number
        return true
    }

    /// An integer, a string holding one (``HARNumberText``), or null (left nil).
    mutating func optionalLenientInt(into value: inout Int?) -> Bool {
        guard peek() == UInt8(ascii: "\"") else { return optionalInt(into: &value) }
        var text: String?
        guard string(into: &text), let text, let number = HARNumberText.integer(text) else { return false }
        value = number
        return true
    }

    /// `true` or `false` into `value`; any other value is skipped and leaves it nil (as `try?` does
    /// in the model).
    mutating func boolIfAny(into value: inout Bool?) -> Bool {
        switch peek() {
        case UInt8(ascii: "t"):
            guard literal("true") else { return false }
            value = true
            return true
        case UInt8(ascii: "f"):
            guard literal("false") else { return false }
            value = false
            return true
        default:
            return skipValue()
        }
    }

    /// A flag as writers spell one — `true`/`false`, `1`/`0`, `"1"`/`"0"` (WebPageTest writes
    /// all of these) — into `value`; any other value is skipped and leaves it nil.
    mutating func flagIfAny(into value: inout Bool?) -> Bool {
        switch peek() {
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return boolIfAny(into: &value)
        case UInt8(ascii: "\""):
            var text: String?
            guard string(into: &text) else { return false }
            value = text == "1" || text == "true" ? true : text == "0" || text == "false" ? false : nil
            return true
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            var number: Double?
            guard optionalDouble(into: &number) else { return false }
            value = number.map { $0 != 0 }
            return true
        default:
            return skipValue()
        }
    }

    /// A value `read` understands, or null (left nil).
    mutating func nullable<Value>(into value: inout Value?, _ read: (inout JSONCursor) -> Value?) -> Bool {
        if null() { return true }
        value = read(&self)
        return value != nil
    }

    /// An integer; an integral float (`62.0`) is accepted, as the lenient model does.
    mutating func int(into value: inout Int?) -> Bool {
        guard let number = readNumber(), number.isFinite, number.rounded() == number, abs(number) < 1e15 else { return false }
        value = Int(number)
        return true
    }
}
