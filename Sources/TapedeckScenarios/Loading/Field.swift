import Foundation
import Yams

/// A value of a scenario file with where it is: its YAML node, its key path, and the file. Every
/// read either returns the typed value or throws a ``ScenarioError`` pointing at the node.
struct Field {
    let node: Node
    let path: String
    let file: String
    /// Where recoverable problems (unknown keys) are collected, so that one run of the reader
    /// reports all of them; nil: the first one is thrown.
    var problems: Problems? = nil

    /// An error at this value.
    func error(_ reason: String, hint: String = "") -> ScenarioError {
        let mark = node.mark
        return ScenarioError(file: file, line: mark?.line ?? 0, column: mark?.column ?? 0, path: path, reason: reason, hint: hint)
    }

    /// The value under `key` of this mapping's child path.
    func child(_ key: String, _ node: Node) -> Field {
        Field(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file, problems: problems)
    }

    /// Another node reported as part of this value (a mapping's key node, say).
    func at(_ node: Node, path: String? = nil) -> Field {
        Field(node: node, path: path ?? self.path, file: file, problems: problems)
    }

    /// Where this value is in the file.
    var mark: SourceMark { SourceMark(line: node.mark?.line ?? 0, column: node.mark?.column ?? 0) }

    // MARK: shapes

    /// This value as a mapping whose keys must all be in `allowed`: an unknown key is an error
    /// naming the closest allowed one; a repeated key is an error too. With `extensions`, keys
    /// starting with `x-` are allowed and skipped (a place for YAML anchors, as in Compose files).
    func mapping(_ allowed: [String], extensions: Bool = false) throws(ScenarioError) -> Fields {
        guard case let .mapping(mapping) = node else {
            throw error("expected a mapping (key: value lines), found \(kind)", hint: "allowed keys: \(allowed.joined(separator: ", "))")
        }
        var values: [String: Field] = [:]
        var order: [String] = []
        var nearMisses: [String: ScenarioError] = [:]
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.string else {
                throw at(keyNode).error("a key must be a string")
            }
            let value = child(key, valueNode)
            if extensions, key.hasPrefix("x-") { continue }
            guard allowed.contains(key) else {
                let keyField = at(keyNode, path: value.path)
                let close = Self.closest(to: key, in: allowed)
                let slip = Self.slipHint(key: key, at: path)
                let problem = key == "<<"
                    ? keyField.error("unknown key '<<'", hint: "YAML 1.2, which scenario files are read as, has no merge keys: write the keys out, "
                        + "or give an anchor (&name) to a whole value and use *name where the value goes (a top-level x-… key can hold it)")
                    : slip.map { slip in
                        // `request` under expect is `requests` misspelt before it is a key of other places.
                        if let close, Self.isVariant(key, of: close) { return keyField.error("unknown key '\(key)'", hint: "did you mean '\(close)'? (\(slip))") }
                        return keyField.error("unknown key '\(key)'", hint: slip + (close.map { " (or did you mean '\($0)'?)" } ?? ""))
                    }
                    ?? close.map { keyField.error("unknown key '\(key)'", hint: "did you mean '\($0)'?") }
                    ?? keyField.error("unknown key '\(key)'", hint: "allowed here: \(allowed.joined(separator: ", "))")
                if let close, nearMisses[close] == nil { nearMisses[close] = problem }
                // An unknown key changes nothing else: note it and read on, so every one is reported.
                guard let problems else { throw problem }
                problems.add(problem)
                continue
            }
            guard values[key] == nil else {
                throw at(keyNode, path: value.path).error("'\(key)' appears twice")
            }
            values[key] = value
            order.append(key)
        }
        return Fields(owner: self, values: values, order: order, nearMisses: nearMisses)
    }

    /// This value as a list; a single value counts as a list of one when `single` is true.
    func list(allowingSingle single: Bool = false) throws(ScenarioError) -> [Field] {
        switch node {
        case let .sequence(sequence):
            return sequence.enumerated().map { index, node in Field(node: node, path: "\(path)[\(index)]", file: file, problems: problems) }
        default:
            guard single else { throw error("expected a list, found \(kind)") }
            return [self]
        }
    }

    /// ``list(allowingSingle:)`` of at least one item: an empty list (`[]`) would stand for
    /// nothing, and is refused with `what` it should hold.
    func nonEmptyList(allowingSingle single: Bool = false, of what: String) throws(ScenarioError) -> [Field] {
        let items = try list(allowingSingle: single)
        guard !items.isEmpty else { throw error("expected at least one \(what), found an empty list", hint: "list one, or leave the key out") }
        return items
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
        case let .scalar(scalar):
            // A long value is cut short: the message is one line.
            let shown = scalar.string.count > 80 ? scalar.string.prefix(77) + "…" : scalar.string
            if !CoreSchema.isPlain(scalar) { return "the text \"\(shown)\" (quoted)" }
            return scalar.string.isEmpty ? "nothing" : "'\(shown)'"
        case .alias: return "an alias"
        }
    }

    /// The value as the YAML 1.2 core schema reads it (nil for mappings, lists and aliases).
    var value: CoreSchema.Value? { CoreSchema.value(of: node) }

    /// Whether the value is quoted text that would be a number or a boolean without its quotes.
    private var isQuotedNonText: Bool {
        guard case let .scalar(scalar) = node, !CoreSchema.isPlain(scalar) else { return false }
        switch CoreSchema.resolve(scalar.string) {
        case .integer, .float, .bool: return true
        default: return false
        }
    }

    // MARK: scalars

    func string() throws(ScenarioError) -> String {
        guard case .scalar = node, let text = node.string else {
            throw error("expected text, found \(kind)", hint: isMapping ? "write one value, not a mapping" : "write one value, not a list")
        }
        // `~`, `null` or nothing is null, not the text `~` (a stub's `body: ~` sending one byte)
        if case .null? = value { throw error("expected text, found nothing", hint: "write the text (quoted, if it is '~' or 'null'), or leave the key out") }
        return text
    }

    /// A name or a description: text, not nothing (`name:` with no value) and not a number or a
    /// boolean (which YAML reads as one unquoted).
    func text() throws(ScenarioError) -> String {
        switch value {
        case .null?:
            throw error("expected text, found nothing", hint: "write the text, or leave the key out")
        case .integer?, .float?, .bool?:
            throw error("expected text, found \(kind)", hint: "quote it")
        default:
            return try string()
        }
    }

    /// The value as decimal digits when YAML reads it as a whole number — `0x1F` and `0o17`
    /// too, and a number with a fraction or exponent that is whole (`1.0`, JSON's `1e2`) — so
    /// every key taking a number takes every spelling of one; else the text as written.
    var numberText: String? {
        switch value {
        case let .integer(digits)?: return digits
        case let .float(_, number)? where number.isFinite && number.rounded() == number && abs(number) < 1e18: return String(Int64(number))
        default: return nil
        }
    }

    /// ``numberText``, else the text as written, trimmed. Nothing (`key:`, `~`, `null`) is
    /// refused as not being `what` (`"a duration"`), with `example` to write instead.
    func numberOrText(what: String, example: String) throws(ScenarioError) -> String {
        if let numberText { return numberText }
        if case .null? = value {
            // A list's item has no key to leave out.
            let instead = path.hasSuffix("]") ? "or remove the item" : "or leave the key out"
            throw error("expected \(what), found nothing", hint: "write \(example), \(instead)")
        }
        return try string().trimmingCharacters(in: .whitespaces)
    }

    func int() throws(ScenarioError) -> Int {
        switch value {
        case let .integer(digits)?:
            guard let number = Int(digits) else { throw error("\(digits) is too large for a whole number", hint: "use at most \(Int.max)") }
            return number
        case .float? where numberText != nil:
            return Int(numberText!)!
        default:
            if isQuotedNonText { throw error("expected a whole number, found \(kind)", hint: "remove the quotes") }
            throw error("expected a whole number, found \(kind)", hint: "write digits, e.g. 3")
        }
    }

    /// A seed: a whole number from 0 to 2⁶⁴ − 1, as `--seed` takes it (a shrunk file of any seed loads).
    func seed() throws(ScenarioError) -> UInt64 {
        if let digits = numberText, let seed = UInt64(digits) { return seed }
        if case .integer? = value {
            throw error("\(kind) is not a seed", hint: "use a whole number from 0 to \(UInt64.max)")
        }
        return UInt64(try int())   // its error: not a whole number
    }

    func int(in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        let value = try int()
        guard range.contains(value) else { throw error("\(value) is out of range", hint: "use a number from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    func bool() throws(ScenarioError) -> Bool {
        if case let .bool(flag)? = value { return flag }
        if case let .scalar(scalar) = node, CoreSchema.isPlain(scalar), let old = CoreSchema.yaml11Boolean(scalar.string) {
            throw error("expected true or false, found '\(scalar.string)' (text in YAML 1.2, which scenario files follow)",
                        hint: "write \(old)")
        }
        if isQuotedNonText { throw error("expected true or false, found \(kind)", hint: "remove the quotes") }
        throw error("expected true or false, found \(kind)", hint: "write true or false")
    }

    func double() throws(ScenarioError) -> Double {
        switch value {
        case let .integer(digits)?:
            if let number = Double(digits) { return number }
        case let .float(_, number)? where number.isFinite:
            return number
        default:
            break
        }
        if isQuotedNonText { throw error("expected a number, found \(kind)", hint: "remove the quotes") }
        throw error("expected a number, found \(kind)", hint: "write digits, e.g. 1.5")
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

    /// A set of integers: `503`, `[500, 503]`, `500-599`, or a list mixing them; `[]` only with
    /// `allowingEmpty` (an expectation or a fault's target that is an empty set would match nothing).
    func integers(in range: ClosedRange<Int>, allowingEmpty: Bool = false) throws(ScenarioError) -> IntegerSet {
        var set = IntegerSet()
        if case .mapping = node {
            throw error("expected a number, a range or a list of them, found a mapping",
                        hint: "write e.g. 503, 500-599 or [500, 503] (a mapping's 'key: value' is not a set)")
        }
        for item in try allowingEmpty ? list(allowingSingle: true) : nonEmptyList(allowingSingle: true, of: "number or range") {
            if case .mapping = item.node {
                throw item.error("expected a number or a range, found a mapping", hint: "write e.g. 503 or 500-599, without ':'")
            }
            if item.isQuotedNonText { throw item.error("expected a number or a range, found \(item.kind)", hint: "remove the quotes") }
            let text = try item.numberOrText(what: "a number or a range", example: "e.g. 503 or 500-599")
            if let dash = text.dropFirst().firstIndex(of: "-"),
               let low = Int(text[..<dash].trimmingCharacters(in: .whitespaces)),
               let high = Int(text[text.index(after: dash)...].trimmingCharacters(in: .whitespaces)) {
                guard low <= high else {
                    throw item.error("'\(text)' is reversed: a range goes from the smaller number to the larger", hint: "write \(high)-\(low)")
                }
                guard range.contains(low), range.contains(high) else {
                    throw item.error("'\(text)' is not within \(range.lowerBound)-\(range.upperBound)")
                }
                set.ranges.append(low...high)
            } else if let value = Int(text) {
                guard range.contains(value) else { throw item.error("\(value) is out of range", hint: "stay within \(range.lowerBound)-\(range.upperBound)") }
                set.ranges.append(value...value)
            } else if text.allSatisfy({ $0.isASCII && $0.isNumber }) || (text.hasPrefix("-") && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }) {
                throw item.error("\(text) is out of range", hint: "stay within \(range.lowerBound)-\(range.upperBound)")
            } else if let (low, high) = Self.dottedRange(text) {
                // Swift's and the command line's notation: a set's range is written with a dash.
                throw item.error("'\(text)' is neither a number nor a range like 500-599", hint: "write \(low)-\(high)")
            } else {
                throw item.error("'\(text)' is neither a number nor a range like 500-599")
            }
        }
        return set
    }

    /// The bounds of `1...3` or `1..3` (as `--seeds` and Swift write a range), for a hint.
    static func dottedRange(_ text: String) -> (String, String)? {
        for separator in ["...", ".."] {
            let parts = text.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) { return (parts[0], parts[1]) }
        }
        return nil
    }

    // MARK: parsing helpers

    /// The longest duration a file may give: 10⁹ seconds.
    static let longestDuration = Duration.seconds(1_000_000_000)

    enum DurationProblem: Error {
        case notADuration, negative, tooLarge
    }

    static func readDuration(_ text: String) -> Result<Duration, DurationProblem> {
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3_600)]
        var number = text
        var scale = 1.0
        for (suffix, unit) in units where text.hasSuffix(suffix) {
            number = String(text.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            scale = unit
            break
        }
        // Decimal only: Double would also read `0x10` (hex) as 16.
        let decimal = number.allSatisfy { "0123456789.eE+-".contains($0) } && number.contains { $0.isNumber }
        guard decimal, let value = Double(number), value.isFinite, !number.hasPrefix("+") else { return .failure(.notADuration) }
        guard value >= 0 else { return .failure(.negative) }
        guard value * scale <= 1e9 else { return .failure(.tooLarge) }
        return .success(.nanoseconds(Int64((value * scale * 1e9).rounded())))
    }

    static func parseBytes(_ text: String) -> Int? {
        let units: [(String, Int)] = [("KiB", 1_024), ("MiB", 1_048_576), ("KB", 1_000), ("MB", 1_000_000), ("B", 1)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            // Digits, not a Double: `16.1KB` is exactly 16,100 bytes; `0.5B` is no number of bytes.
            let number = text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard !number.isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  parts.contains(where: { !$0.isEmpty }), parts[0].count <= 12, (parts.count < 2 || parts[1].count <= 9) else { return nil }
            let whole = Int(parts[0]) ?? 0
            let fractionDigits = parts.count == 2 ? String(parts[1]) : ""
            var denominator = 1
            for _ in fractionDigits { denominator *= 10 }
            let fraction = Int(fractionDigits) ?? 0
            guard (fraction * scale) % denominator == 0 else { return nil }
            return whole * scale + fraction * scale / denominator
        }
        guard let value = Int(text), value >= 0 else { return nil }
        return value
    }

    /// The allowed word closest to `word` (case-insensitive edit distance at most 2, or one of
    /// three letters or more contains the other), if any.
    static func closest(to word: String, in choices: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = choices.map { ($0, editDistance(lowered, $0.lowercased())) }.sorted { $0.1 < $1.1 }
        if let best = scored.first, best.1 <= max(2, word.count / 4) { return best.0 }
        // One holding the other counts only for three letters or more: `a` is in most keys.
        return choices.first { choice in
            let choice = choice.lowercased()
            return (lowered.count >= 3 && choice.contains(lowered)) || (choice.count >= 3 && lowered.contains(choice))
        }
    }

    /// Whether `key` is `known` in another case, or its singular or plural (`request`, `requests`).
    static func isVariant(_ key: String, of known: String) -> Bool {
        let key = key.lowercased(), known = known.lowercased()
        return key == known || key + "s" == known || key == known + "s"
    }

    /// How many single-character edits turn `a` into `b` (Levenshtein).
    static func editDistance(_ a: String, _ b: String) -> Int {
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
