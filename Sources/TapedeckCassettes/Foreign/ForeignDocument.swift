import Foundation
import Yams

/// Another tool's cassette read into one shape, whether it was written as JSON or as YAML:
/// mappings keep their keys in the file's order (header order survives), scalars keep their text,
/// and every node knows its line when the file was YAML (for errors that point at it).
indirect enum ForeignNode {
    /// A mapping, its keys in the file's order.
    case map([(key: String, value: ForeignNode)], line: Int?)
    /// A sequence.
    case list([ForeignNode], line: Int?)
    /// A scalar: its text as written, and what kind of scalar it is.
    case text(String, kind: ScalarKind, line: Int?)
    /// A null (`null`, `~`, an empty plain scalar).
    case null(line: Int?)

    /// What a scalar is.
    enum ScalarKind {
        /// A string.
        case string
        /// A number, its text as written.
        case number
        /// `true` or `false`.
        case boolean
        /// Base64 bytes: a tag (`!!binary`, Ruby's `!binary`) says so.
        case binary
    }

    /// The node with every string scalar's `from` texts replaced by their `to` texts, longest
    /// first (`<<HOST>>` before `<HOST>`): the values a tool's placeholders stand for (VCR's
    /// `filter_sensitive_data`), put back as that tool does when it replays.
    func replacingText(_ replacements: [(from: String, to: String)]) -> ForeignNode {
        guard !replacements.isEmpty else { return self }
        let ordered = replacements.filter { !$0.from.isEmpty }.sorted { $0.from.count > $1.from.count }
        func replaced(_ node: ForeignNode) -> ForeignNode {
            switch node {
            case let .map(pairs, line): return .map(pairs.map { ($0.key, replaced($0.value)) }, line: line)
            case let .list(elements, line): return .list(elements.map(replaced), line: line)
            case let .text(text, .string, line):
                var text = text
                for replacement in ordered where text.contains(replacement.from) {
                    text = text.replacingOccurrences(of: replacement.from, with: replacement.to)
                }
                return .text(text, kind: .string, line: line)
            case .text, .null: return node
            }
        }
        return replaced(self)
    }

    /// The line it starts on, when the file was YAML.
    var line: Int? {
        switch self {
        case let .map(_, line), let .list(_, line), let .text(_, _, line), let .null(line): line
        }
    }

    /// The value of `key` in a mapping (the first, compared exactly); nil for anything else.
    subscript(key: String) -> ForeignNode? {
        guard case let .map(pairs, _) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The pairs of a mapping (empty for anything else).
    var pairs: [(key: String, value: ForeignNode)] {
        if case let .map(pairs, _) = self { return pairs }
        return []
    }

    /// The first key of a mapping (nil for anything else, or an empty mapping).
    var firstKey: String? {
        if case let .map(pairs, _) = self { return pairs.first?.key }
        return nil
    }

    /// The elements of a sequence (empty for anything else).
    var elements: [ForeignNode] {
        if case let .list(elements, _) = self { return elements }
        return []
    }

    /// A scalar's text; nil for null, mappings and sequences.
    var string: String? {
        if case let .text(text, _, _) = self { return text }
        return nil
    }

    /// A scalar read as a whole number (`200`, `"200"`, `200.0`).
    var int: Int? {
        guard let text = string?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let value = Int(text) { return value }
        if let value = Double(text), value.isFinite, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
        return nil
    }

    /// A scalar read as a number.
    var double: Double? {
        string.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Whether it is null.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether `data` starts like JSON: `{` or `[` after white space and a BOM.
    static func startsAsJSON(_ data: Data) -> Bool {
        let start = data.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.first
        return start == UInt8(ascii: "{") || start == UInt8(ascii: "[")
    }

    /// Whether `data` starts with a JavaScript comment (`//`, `/*`), as a JSON5 file may.
    static func startsWithComment(_ data: Data) -> Bool {
        let rest = data.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return rest.first == UInt8(ascii: "/") && [UInt8(ascii: "/"), UInt8(ascii: "*")].contains(rest.dropFirst().first)
    }

    /// `data` read as JSON, or else as JSON5 (Talkback's tapes: keys without quotes, single
    /// quotes, comments, trailing commas); nil when it is neither.
    static func jsonOrJSON5(_ data: Data) -> ForeignNode? {
        json(data) ?? JSON5Text.json(from: data).flatMap(json)
    }

    /// Reads `data` as JSON when it starts like a JSON object, else as YAML; nil when it is
    /// neither (`reason` says why).
    static func parse(_ data: Data) -> Result<ForeignNode, ParseFailure> {
        if startsAsJSON(data) || startsWithComment(data) {
            if let node = jsonOrJSON5(data) { return .success(node) }
            // Else YAML's flow style, which reads a little more.
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(ParseFailure(line: nil, reason: "the file is neither JSON nor UTF-8 YAML"))
        }
        do {
            // An empty file (VCR writes one for a cassette nothing was recorded into): no interactions.
            guard let root = try Yams.compose(yaml: text) else { return .success(.null(line: nil)) }
            // Aliases can make a small file stand for an exponentially large document (a "billion
            // laughs"): no cassette needs more nodes than it has bytes.
            var budget = text.utf8.count + 64
            guard let node = yaml(root, budget: &budget) else {
                return .failure(ParseFailure(line: nil, reason: "its aliases (*name) make it larger than the file itself many times over"))
            }
            return .success(node.modernisingOldVCR())
        } catch let error as YamlError {
            return .failure(ParseFailure(line: Self.line(of: error), reason: "not valid JSON or YAML: \(Self.problem(of: error))"))
        } catch {
            return .failure(ParseFailure(line: nil, reason: "not valid JSON or YAML: \(error)"))
        }
    }

    /// Why a file could not be parsed, and where.
    struct ParseFailure: Error {
        /// The line (from 1), when the parser gave one.
        var line: Int?
        /// What is wrong.
        var reason: String
    }

    // MARK: JSON

    static func json(_ data: Data) -> ForeignNode? {
        data.withUnsafeBytes { raw -> ForeignNode? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            var cursor = JSONCursor(base: base, count: raw.count)
            cursor.acceptsLoneSurrogates = true
            cursor.acceptsComments = true   // WireMock reads them (Jackson's ALLOW_COMMENTS)
            cursor.skipByteOrderMark()
            guard let node = jsonValue(&cursor) else { return nil }
            cursor.skipWhitespace()
            return cursor.atEnd ? node : nil
        }
    }

    private static func jsonValue(_ cursor: inout JSONCursor) -> ForeignNode? {
        switch cursor.peek() {
        case UInt8(ascii: "{"):
            var pairs: [(key: String, value: ForeignNode)] = []
            let read = cursor.object { inner, key in
                guard let value = jsonValue(&inner) else { return false }
                pairs.append((key, value))
                return true
            }
            return read ? .map(pairs, line: nil) : nil
        case UInt8(ascii: "["):
            var elements: [ForeignNode] = []
            let read = cursor.array { inner in
                guard let value = jsonValue(&inner) else { return false }
                elements.append(value)
                return true
            }
            return read ? .list(elements, line: nil) : nil
        case UInt8(ascii: "\""):
            return cursor.readString().map { .text($0, kind: .string, line: nil) }
        case UInt8(ascii: "t"):
            return cursor.literal("true") ? .text("true", kind: .boolean, line: nil) : nil
        case UInt8(ascii: "f"):
            return cursor.literal("false") ? .text("false", kind: .boolean, line: nil) : nil
        case UInt8(ascii: "n"):
            return cursor.literal("null") ? .null(line: nil) : nil
        case nil:
            return nil
        default:
            let start = cursor.position
            guard cursor.readNumber() != nil else { return nil }
            let text = String(decoding: UnsafeBufferPointer(start: cursor.base + start, count: cursor.position - start), as: UTF8.self)
            return .text(text, kind: .number, line: nil)
        }
    }

    // MARK: YAML

    /// Tags that say a scalar is base64 bytes: YAML's `!!binary`, and Ruby Psych's `!binary`.
    private static let binaryTags: Set<String> = [Tag.Name.binary.rawValue, "!binary"]

    private static func yaml(_ node: Node, budget: inout Int) -> ForeignNode? {
        budget -= 1
        guard budget >= 0 else { return nil }
        let line = node.mark?.line
        switch node {
        case let .scalar(scalar):
            let tag = node.tag.description   // resolved: a plain `200` is an int
            if binaryTags.contains(tag) { return .text(scalar.string, kind: .binary, line: line) }
            if scalar.style == .plain {
                switch tag {
                case Tag.Name.null.rawValue: return .null(line: line)
                case Tag.Name.int.rawValue, Tag.Name.float.rawValue: return .text(scalar.string, kind: .number, line: line)
                case Tag.Name.bool.rawValue: return .text(scalar.string, kind: .boolean, line: line)
                default: break
                }
            }
            // Any other tag (`!!python/unicode`, `!ruby/string`, `!!str`) is a string as written.
            return .text(scalar.string, kind: .string, line: line)
        case let .mapping(mapping):
            var pairs: [(key: String, value: ForeignNode)] = []
            var merged: [(key: String, value: ForeignNode)] = []
            for pair in mapping {
                guard let value = yaml(pair.value, budget: &budget) else { return nil }
                if pair.key.string == "<<", pair.key.tag.description == Tag.Name.merge.rawValue || pair.key.scalar?.style == .plain {
                    // A merge key (`<<: *defaults`): its mappings' pairs, under the keys given here.
                    for source in value.elements.isEmpty ? [value] : value.elements { merged += source.pairs }
                    continue
                }
                pairs.append((pair.key.string ?? "", value))
            }
            for pair in merged where !pairs.contains(where: { $0.key == pair.key }) { pairs.append(pair) }
            return .map(pairs, line: line)
        case let .sequence(sequence):
            var elements: [ForeignNode] = []
            for element in sequence {
                guard let value = yaml(element, budget: &budget) else { return nil }
                elements.append(value)
            }
            return .list(elements, line: line)
        case .alias:
            return .null(line: line)
        }
    }

    private static func line(of error: YamlError) -> Int? {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _): mark.line
        case let .duplicatedKeysInMapping(_, context): context.mark.line
        default: nil
        }
    }

    private static func problem(of error: YamlError) -> String {
        switch error {
        case let .scanner(_, problem, _, _), let .parser(_, problem, _, _), let .composer(_, problem, _, _):
            // (libyaml's own wording names its API: said in the user's terms.)
            problem.hasPrefix("Maximum nesting level") ? "nested deeper than a YAML file may be" : problem
        case let .duplicatedKeysInMapping(duplicates, _):
            // Yams' own text quotes the whole mapping: a cassette's is the whole file.
            "a mapping gives the key \(duplicates.sorted().prefix(3).map { "'\($0)'" }.joined(separator: ", ")) twice"
        default: String("\(error)".prefix(200))
        }
    }
}

extension ForeignNode {
    /// Base64 text (line breaks and spaces inside allowed, as YAML's block scalars write it) as bytes.
    static func base64(_ text: String) -> Data? {
        Data(base64Encoded: text.filter { !$0.isWhitespace })
    }
}

extension ForeignNode {
    /// The node as JSON text, keys in order (a JSON body DVR stored as its value). A YAML
    /// scalar that is neither a number nor a boolean is written as a string.
    func jsonText() -> String {
        switch self {
        case let .map(pairs, _):
            return "{" + pairs.map { Self.jsonString($0.key) + ":" + $0.value.jsonText() }.joined(separator: ",") + "}"
        case let .list(elements, _):
            return "[" + elements.map { $0.jsonText() }.joined(separator: ",") + "]"
        case let .text(text, kind, _):
            switch kind {
            case .number where Double(text) != nil: return text
            case .boolean where text == "true" || text == "false": return text
            default: return Self.jsonString(text)
            }
        case .null:
            return "null"
        }
    }

    private static func jsonString(_ text: String) -> String {
        quoted(text, asciiOnly: false)
    }

    /// `text` in double quotes with JSON's escapes (which YAML's double-quoted style reads too)
    /// for quotes, backslashes and control characters; with `asciiOnly`, everything outside
    /// printable ASCII is escaped as well (YAML's `\u`/`\U`), so a file is ASCII whatever it holds.
    static func quoted(_ text: String, asciiOnly: Bool) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || asciiOnly && scalar.value == 0x7F: out += String(format: "\\u%04X", scalar.value)
            case _ where !asciiOnly || scalar.value < 0x7F: out.unicodeScalars.append(scalar)
            case _ where scalar.value <= 0xFFFF: out += String(format: "\\u%04X", scalar.value)
            default: out += String(format: "\\U%08X", scalar.value)
            }
        }
        return out + "\""
    }
}
