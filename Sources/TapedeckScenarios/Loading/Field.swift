import Foundation
import Yams

/// A value of a scenario file with where it is: its YAML node, its key path, and the file. Every
/// read either returns the typed value or throws a ``ScenarioError`` pointing at the node.
struct Field {
    let node: Node
    let path: String
    let file: String

    /// An error at this value.
    func error(_ reason: String, hint: String = "") -> ScenarioError {
        let mark = node.mark
        return ScenarioError(file: file, line: mark?.line ?? 0, column: mark?.column ?? 0, path: path, reason: reason, hint: hint)
    }

    /// The value under `key` of this mapping's child path.
    func child(_ key: String, _ node: Node) -> Field {
        Field(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }

    // MARK: shapes

    /// This value as a mapping whose keys must all be in `allowed`: an unknown key is an error
    /// naming the closest allowed one; a repeated key is an error too.
    func mapping(_ allowed: [String]) throws(ScenarioError) -> Fields {
        guard case let .mapping(mapping) = node else {
            throw error("expected a mapping (key: value lines), found \(kind)", hint: "allowed keys: \(allowed.joined(separator: ", "))")
        }
        var values: [String: Field] = [:]
        var order: [String] = []
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.string else {
                throw Field(node: keyNode, path: path, file: file).error("a key must be a string")
            }
            let value = child(key, valueNode)
            guard allowed.contains(key) else {
                let keyField = Field(node: keyNode, path: value.path, file: file)
                if let close = Self.closest(to: key, in: allowed) {
                    throw keyField.error("unknown key '\(key)'", hint: "did you mean '\(close)'?")
                }
                throw keyField.error("unknown key '\(key)'", hint: "allowed here: \(allowed.joined(separator: ", "))")
            }
            guard values[key] == nil else {
                throw Field(node: keyNode, path: value.path, file: file).error("'\(key)' appears twice")
            }
            values[key] = value
            order.append(key)
        }
        return Fields(owner: self, values: values, order: order)
    }

    /// This value as a list; a single value counts as a list of one when `single` is true.
    func list(allowingSingle single: Bool = false) throws(ScenarioError) -> [Field] {
        switch node {
        case let .sequence(sequence):
            return sequence.enumerated().map { index, node in Field(node: node, path: "\(path)[\(index)]", file: file) }
        default:
            guard single else { throw error("expected a list, found \(kind)") }
            return [self]
        }
    }

    var isMapping: Bool {
        if case .mapping = node { return true }
        return false
    }

    var isScalar: Bool {
        if case .scalar = node { return true }
        return false
    }

    var kind: String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar: return "'\(node.string ?? "")'"
        case .alias: return "an alias"
        }
    }

    // MARK: scalars

    func string() throws(ScenarioError) -> String {
        guard case .scalar = node, let text = node.string else { throw error("expected text, found \(kind)") }
        return text
    }

    func int() throws(ScenarioError) -> Int {
        guard case .scalar = node, let value = node.int else { throw error("expected a whole number, found \(kind)") }
        return value
    }

    func int(in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        let value = try int()
        guard range.contains(value) else { throw error("\(value) is out of range", hint: "use \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    func bool() throws(ScenarioError) -> Bool {
        guard case .scalar = node, let value = node.bool else { throw error("expected true or false, found \(kind)") }
        return value
    }

    func double() throws(ScenarioError) -> Double {
        guard case .scalar = node, let value = node.float ?? node.int.map(Double.init), value.isFinite else {
            throw error("expected a number, found \(kind)")
        }
        return value
    }

    /// One of `choices` (as the file spells them).
    func choice(_ choices: [String]) throws(ScenarioError) -> String {
        let text = try string()
        guard choices.contains(text) else {
            let hint = Self.closest(to: text, in: choices).map { "did you mean '\($0)'? " } ?? ""
            throw error("'\(text)' is not one of \(choices.joined(separator: ", "))", hint: hint + "choose one of them")
        }
        return text
    }

    /// A duration: `80ms`, `1.5s`, `2m`, `250us`, `100ns`, or a bare number of seconds.
    func duration() throws(ScenarioError) -> Duration {
        let text = try string().trimmingCharacters(in: .whitespaces)
        guard let value = Self.parseDuration(text) else {
            throw error("'\(text)' is not a duration", hint: "write e.g. 80ms, 1.5s, 2m or 250us")
        }
        return value
    }

    /// A byte count: `1500`, `16KB`, `2MB` (1,000-based), `16KiB` (1,024-based).
    func bytes() throws(ScenarioError) -> Int {
        let text = try string().trimmingCharacters(in: .whitespaces)
        guard let value = Self.parseBytes(text) else {
            throw error("'\(text)' is not a byte count", hint: "write e.g. 1500, 16KB or 2MiB")
        }
        return value
    }

    /// A set of integers: `503`, `[500, 503]`, `500-599`, or a list mixing them.
    func integers(in range: ClosedRange<Int>) throws(ScenarioError) -> IntegerSet {
        var set = IntegerSet()
        for item in try list(allowingSingle: true) {
            let text = try item.string().trimmingCharacters(in: .whitespaces)
            if let dash = text.dropFirst().firstIndex(of: "-"),
               let low = Int(text[..<dash].trimmingCharacters(in: .whitespaces)),
               let high = Int(text[text.index(after: dash)...].trimmingCharacters(in: .whitespaces)) {
                guard low <= high, range.contains(low), range.contains(high) else {
                    throw item.error("'\(text)' is not a range within \(range.lowerBound)...\(range.upperBound)")
                }
                set.ranges.append(low...high)
            } else if let value = Int(text) {
                guard range.contains(value) else { throw item.error("\(value) is out of range \(range.lowerBound)...\(range.upperBound)") }
                set.ranges.append(value...value)
            } else {
                throw item.error("'\(text)' is neither a number nor a range like 500-599")
            }
        }
        return set
    }

    // MARK: parsing helpers

    static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3_600)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let value = Double(number), value.isFinite, value >= 0, value * scale < 1e9 else { return nil }
            return .nanoseconds(Int64((value * scale * 1e9).rounded()))
        }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds < 1e9 else { return nil }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    static func parseBytes(_ text: String) -> Int? {
        let units: [(String, Double)] = [("KiB", 1_024), ("MiB", 1_048_576), ("KB", 1_000), ("MB", 1_000_000), ("B", 1)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let value = Double(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), value >= 0, value < 1e12 else { return nil }
            return Int((value * scale).rounded())
        }
        guard let value = Int(text), value >= 0 else { return nil }
        return value
    }

    /// The allowed word closest to `word` (case-insensitive edit distance at most 2, or one
    /// contains the other), if any.
    static func closest(to word: String, in choices: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = choices.map { ($0, editDistance(lowered, $0.lowercased())) }.sorted { $0.1 < $1.1 }
        if let best = scored.first, best.1 <= max(2, word.count / 4) { return best.0 }
        return choices.first { $0.lowercased().contains(lowered) || lowered.contains($0.lowercased()) }
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The keys of a mapping, read by name.
struct Fields {
    let owner: Field
    let values: [String: Field]
    /// The keys in file order.
    let order: [String]

    subscript(key: String) -> Field? { values[key] }

    /// The value of a key that must be there.
    func required(_ key: String, hint: String = "") throws(ScenarioError) -> Field {
        guard let value = values[key] else { throw owner.error("'\(key)' is required here", hint: hint) }
        return value
    }

    /// Exactly one of `keys` must be present: its name and value.
    func one(of keys: [String]) throws(ScenarioError) -> (String, Field) {
        let present = keys.filter { values[$0] != nil }
        guard present.count == 1, let key = present.first else {
            throw owner.error(present.isEmpty ? "needs one of \(keys.joined(separator: ", "))"
                                              : "give only one of \(present.joined(separator: ", "))")
        }
        return (key, values[key]!)
    }
}

/// Integers given as single values and inclusive ranges.
public struct IntegerSet: Hashable, Sendable, CustomStringConvertible {
    /// The ranges (a single value is a one-value range).
    public var ranges: [ClosedRange<Int>] = []

    /// A set of the given ranges.
    public init(_ ranges: [ClosedRange<Int>] = []) {
        self.ranges = ranges
    }

    /// Whether `value` is in one of the ranges.
    public func contains(_ value: Int) -> Bool {
        ranges.contains { $0.contains(value) }
    }

    /// `200-299, 304`.
    public var description: String {
        ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }
}
