import Foundation
import Yams

/// A YAML value written as JSON text (for `json:` bodies and expected JSON values): mappings
/// become objects (keys in file order), sequences arrays, and scalars keep YAML's reading of them
/// (`1` a number, `true` a boolean, `null` null, anything else a string).
enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    struct NotJSON: Error {}

    init(_ node: Node) throws {
        switch node {
        case let .mapping(mapping):
            self = .object(try mapping.map { key, value in
                guard let name = key.string else { throw NotJSON() }
                return (name, try JSONValue(value))
            })
        case let .sequence(sequence):
            self = .array(try sequence.map { try JSONValue($0) })
        case let .scalar(scalar):
            // A quoted scalar is always a string; a plain one is read as YAML reads it.
            if scalar.style == .plain || scalar.style == .any {
                if node.null != nil { self = .null; return }
                if let value = node.bool { self = .bool(value); return }
                if let value = node.int { self = .number(String(value)); return }
                if let value = node.float, value.isFinite { self = .number(Self.number(value)); return }
            }
            self = .string(scalar.string)
        case .alias:
            throw NotJSON()
        }
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
