import Foundation
import Yams

/// How scenario files read plain scalars: the YAML 1.2 core schema (YAML 1.2.2 §10.3.2), as the
/// YAML language server and most YAML 1.2 tools read them — not YAML 1.1's wider rules that
/// libyaml-based readers default to. So `NO`, `yes`, `on`, `off` and `y` are text, `12:30` is text,
/// `01234` is the integer 1234 (no octal without `0o`), `0x1F` is 31, `0o17` is 15, and `1_000`
/// is text.
///
/// Quoted scalars (and `!!str`) are text; only a plain scalar is resolved — or a quoted one a
/// core tag types (`!!int "3"` is 3, as YAML says).
enum CoreSchema {
    /// A plain scalar as the core schema resolves it.
    enum Value: Equatable {
        case null
        case bool(Bool)
        /// A whole number, as decimal digits with an optional `-` (any size: JSON text keeps it).
        case integer(String)
        /// A number with a fraction or an exponent, as written (`text`) and as a double.
        case float(text: String, value: Double)
        case string(String)
    }

    /// The resolver `Yams.compose` is given, so that node tags agree with ``value(of:)``.
    static let resolver: Resolver = Resolver.basic
        .appending(rule(.null, #"^(?:~|null|Null|NULL|)$"#))
        .appending(rule(.bool, #"^(?:true|True|TRUE|false|False|FALSE)$"#))
        .appending(rule(.int, #"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"#))
        .appending(rule(.float, #"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"#))

    private static func rule(_ tag: Tag.Name, _ pattern: String) -> Resolver.Rule {
        // The patterns are constants; a bad one is a programming error caught by every test run.
        do { return try Resolver.Rule(tag, pattern) } catch { preconditionFailure("bad core-schema pattern \(pattern): \(error)") }
    }

    /// Whether a scalar is plain (unquoted, untagged text the schema resolves).
    static func isPlain(_ scalar: Node.Scalar) -> Bool {
        scalar.style == .plain || scalar.style == .any
    }

    /// The value of `node` when it is a scalar (nil for mappings, lists and aliases): its text when
    /// quoted or tagged `!!str`, else the core schema's reading. The node must come from
    /// `Yams.compose` with ``resolver``, so that a plain scalar's tag is the core schema's.
    static func value(of node: Node) -> Value? {
        guard case let .scalar(scalar) = node else { return nil }
        let tag = node.tag.description
        if !isPlain(scalar) {
            // A quoted scalar is text — unless a core tag asks for another type (`!!int "3"`),
            // which the text then must be.
            let resolved = resolve(scalar.string)
            switch (tag, resolved) {
            case (Tag.Name.int.rawValue, .integer), (Tag.Name.float.rawValue, .float), (Tag.Name.bool.rawValue, .bool), (Tag.Name.null.rawValue, .null):
                return resolved
            case (Tag.Name.float.rawValue, let .integer(digits)):
                return .float(text: digits, value: Double(digits) ?? .nan)
            default:
                return .string(scalar.string)
            }
        }
        guard tag != Tag.Name.str.rawValue else { return .string(scalar.string) }
        return resolve(scalar.string)
    }

    /// Why `node`'s explicit tag cannot stand (nil when it can): a tag outside the core schema
    /// (`!custom`, `!!timestamp`, `!!set`), or a core type the scalar's text is not (`!!null 503`,
    /// `!!int "abc"`). A value's own implicit tag always fits.
    static func tagProblem(_ node: Node) -> (reason: String, hint: String)? {
        let name = node.tag.description
        let shown = name.hasPrefix("tag:yaml.org,2002:") ? "!!" + name.dropFirst("tag:yaml.org,2002:".count) : name
        let unknown = (reason: "tag \(shown) is not one scenario files read",
                       hint: "scenario files take the YAML 1.2 core tags only (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq); remove it")
        switch node {
        case .mapping: return name == Tag.Name.map.rawValue ? nil : unknown
        case .sequence: return name == Tag.Name.seq.rawValue ? nil : unknown
        case let .scalar(scalar):
            if name == Tag.Name.str.rawValue || name == "!" { return nil }
            let fits: Bool
            switch (name, resolve(scalar.string)) {
            case (Tag.Name.int.rawValue, .integer), (Tag.Name.float.rawValue, .integer), (Tag.Name.float.rawValue, .float),
                 (Tag.Name.bool.rawValue, .bool), (Tag.Name.null.rawValue, .null):
                fits = true
            case let (Tag.Name.int.rawValue, .string(text)) where isRadixInteger(text):
                // `0x` or `0o` digits past Int's range: the resolver's own int (an untagged value
                // has it too); where it is used, the value is then out of range.
                fits = true
            case (Tag.Name.int.rawValue, _), (Tag.Name.float.rawValue, _), (Tag.Name.bool.rawValue, _), (Tag.Name.null.rawValue, _):
                fits = false
            default:
                return unknown
            }
            let what = ["!!int": "an integer", "!!float": "a number", "!!bool": "true or false", "!!null": "null"][shown] ?? shown
            return fits ? nil : (reason: "'\(scalar.string)' is not \(what), as its tag \(shown) says it is",
                                 hint: "remove the tag, or write a value of that type")
        default: return nil
        }
    }

    /// `0x` then hex digits, or `0o` then octal digits, of any length (the resolver's rule).
    private static func isRadixInteger(_ text: String) -> Bool {
        let digits = text.dropFirst(2)
        guard !digits.isEmpty else { return false }
        if text.hasPrefix("0x") { return digits.allSatisfy(\.isHexDigit) && digits.allSatisfy(\.isASCII) }
        if text.hasPrefix("0o") { return digits.allSatisfy { ("0"..."7").contains($0) } }
        return false
    }

    /// The core schema's reading of plain text.
    static func resolve(_ text: String) -> Value {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .float(text: text, value: .infinity)
        case "-.inf", "-.Inf", "-.INF": return .float(text: text, value: -.infinity)
        case ".nan", ".NaN", ".NAN": return .float(text: text, value: .nan)
        default: break
        }
        if let digits = decimalInteger(text) { return .integer(digits) }
        if text.hasPrefix("0o"), let value = Int(text.dropFirst(2), radix: 8), text.count > 2 { return .integer(String(value)) }
        if text.hasPrefix("0x"), let value = Int(text.dropFirst(2), radix: 16), text.count > 2 { return .integer(String(value)) }
        if isFloat(text), let value = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
            return .float(text: text, value: value)
        }
        return .string(text)
    }

    /// `[-+]?[0-9]+` as canonical decimal digits (no `+`, no leading zeros), else nil.
    private static func decimalInteger(_ text: String) -> String? {
        var body = Substring(text)
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let digits = body.drop { $0 == "0" }
        if digits.isEmpty { return "0" }
        return (negative ? "-" : "") + digits
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
    private static func isFloat(_ text: String) -> Bool {
        var rest = Substring(text)
        if let sign = rest.first, sign == "-" || sign == "+" { rest = rest.dropFirst() }
        let whole = rest.prefix { $0.isASCII && $0.isNumber }
        rest = rest.dropFirst(whole.count)
        var fraction = Substring("")
        if rest.first == "." {
            rest = rest.dropFirst()
            fraction = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(fraction.count)
        }
        guard !whole.isEmpty || !fraction.isEmpty else { return false }
        if let e = rest.first, e == "e" || e == "E" {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == "-" || sign == "+" { rest = rest.dropFirst() }
            let exponent = rest.prefix { $0.isASCII && $0.isNumber }
            guard !exponent.isEmpty else { return false }
            rest = rest.dropFirst(exponent.count)
        }
        return rest.isEmpty
    }

    /// What YAML 1.1 (and so some older tools) would read differently from the text `text` — for
    /// hints when a value is not what the reader expected (`yes` where a boolean belongs).
    static func yaml11Boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "on", "y": return true
        case "no", "off", "n": return false
        default: return nil
        }
    }
}
