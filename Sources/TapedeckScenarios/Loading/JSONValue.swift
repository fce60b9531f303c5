import Foundation
import Yams

/// A YAML value written as JSON text (for `json:` bodies, expected JSON values and provider
/// parameters): mappings become objects (keys in file order), sequences arrays, quoted scalars
/// strings, and plain scalars what the YAML 1.2 core schema reads them as (``CoreSchema``): `1` a
/// number, `true` a boolean, `null` (or nothing) null, `NO` and `12:30` strings. A number keeps
/// the digits written when they are JSON already (`1.10` stays `1.10`); `0x1F` and `0o17` become
/// `31` and `15`, `01234` becomes `1234`.
enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// Why a node has no JSON form, and where.
    struct NotJSON: Error {
        let mark: SourceMark
        let reason: String

        init(node: Node, reason: String) {
            mark = SourceMark(line: node.mark?.line ?? 0, column: node.mark?.column ?? 0)
            self.reason = reason
        }
    }

    init(_ node: Node) throws(NotJSON) {
        switch node {
        case let .mapping(mapping):
            var pairs: [(String, JSONValue)] = []
            for (key, value) in mapping {
                guard case .scalar = key, let name = key.string else { throw NotJSON(node: key, reason: "a key must be text") }
                pairs.append((name, try JSONValue(value)))
            }
            self = .object(pairs)
        case let .sequence(sequence):
            var values: [JSONValue] = []
            for item in sequence { values.append(try JSONValue(item)) }
            self = .array(values)
        case .scalar:
            switch CoreSchema.value(of: node) {
            case .null?: self = .null
            case let .bool(value)?: self = .bool(value)
            case let .integer(digits)?: self = .number(digits)
            case let .float(text, value)?:
                guard value.isFinite else {
                    throw NotJSON(node: node, reason: "'\(text)' has no JSON form (JSON has no infinity or NaN); quote it to send the text")
                }
                self = .number(Self.isJSONNumber(text) ? text : Self.number(value))
            case let .string(text)?: self = .string(text)
            case nil: self = .null
            }
        case .alias:
            throw NotJSON(node: node, reason: "an alias cannot be written as JSON; write the value out")
        }
    }

    /// Whether `text` is a number as JSON writes them (`-0.5`, `1.10`, `2e3`; not `+1`, `.5`, `01`, `1.`).
    static func isJSONNumber(_ text: String) -> Bool {
        var rest = Substring(text)
        if rest.first == "-" { rest = rest.dropFirst() }
        let whole = rest.prefix { $0.isASCII && $0.isNumber }
        guard !whole.isEmpty, whole == "0" || whole.first != "0" else { return false }
        rest = rest.dropFirst(whole.count)
        if rest.first == "." {
            rest = rest.dropFirst()
            let fraction = rest.prefix { $0.isASCII && $0.isNumber }
            guard !fraction.isEmpty else { return false }
            rest = rest.dropFirst(fraction.count)
        }
        if let e = rest.first, e == "e" || e == "E" {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == "-" || sign == "+" { rest = rest.dropFirst() }
            let exponent = rest.prefix { $0.isASCII && $0.isNumber }
            guard !exponent.isEmpty else { return false }
            rest = rest.dropFirst(exponent.count)
        }
        return rest.isEmpty
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Compact JSON text.
    var text: String {
        switch self {
        case let .object(pairs):
            return "{" + pairs.map { Self.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        case let .array(values):
            return "[" + values.map(\.text).joined(separator: ",") + "]"
        case let .string(text):
            return Self.quoted(text)
        case let .number(text):
            return text
        case let .bool(value):
            return value ? "true" : "false"
        case .null:
            return "null"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let c where c.value < 0x20: result += String(format: "\\u%04x", c.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
