import Foundation
import Synchronization

/// A JSONPath expression (Goessner's notation, read as Jayway's JsonPath reads it, which WireMock
/// uses) compiled once and run over JSON documents: what WireMock's `matchesJsonPath` and
/// Hoverfly's `jsonpath` matchers select from a request's body.
///
/// Read: `$` and `@`, `.name`, `['name', …]`, `[0]`, `[-1]`, `[0, 2]`, `[1:3]`, `*`, `..`
/// (any depth), `length()`/`size()` at the end, and filters `[?(…)]` with `==`, `!=`, `<`, `<=`,
/// `>`, `>=`, `=~ /regex/i`, `in`, `nin`, `size`, `empty`, `contains`, `anyof`, `noneof`,
/// `subsetof`, `&&`, `||`, `!` and parentheses. A filter on an object (not an array) tests the
/// object itself, as Jayway does: `$[?(@.kind == 'user')]` matches `{"kind": "user"}`.
struct JSONPath: Hashable, Sendable {
    /// One key of a step: a member's name, an element's index (negative from the end), or all.
    enum Key: Hashable, Sendable {
        case name(String)
        case index(Int)
        case all
    }

    /// One step of a path.
    indirect enum Step: Hashable, Sendable {
        /// Members or elements of each node.
        case child([Key])
        /// The same, at any depth below each node (and on the node itself).
        case descendants([Key])
        /// Elements `from..<to` (Python's slice; negative from the end) by `step`.
        case slice(from: Int?, to: Int?, step: Int)
        /// The elements of an array (or an object itself) the filter holds for.
        case filter(Filter)
        /// `length()` or `size()`: how many elements, members or characters.
        case count
    }

    /// A filter's condition.
    indirect enum Filter: Hashable, Sendable {
        case or(Filter, Filter)
        case and(Filter, Filter)
        case not(Filter)
        /// A path that selects something (or a literal that is `true`).
        case exists(Operand)
        case compare(Operand, String, Operand)
    }

    /// One side of a comparison.
    indirect enum Operand: Hashable, Sendable {
        /// A path from the filtered node (`@`) or from the document's root (`$`).
        case path(fromRoot: Bool, JSONPath)
        case string(String)
        case number(Double)
        case boolean(Bool)
        case null
        case regex(String, ignoringCase: Bool)
        case list([Operand])
    }

    /// The steps after `$`.
    var steps: [Step]

    /// Whether the path names one place (no wildcard, `..`, slice, filter or list of keys): Jayway
    /// returns its value itself, where other paths give a list of what they found.
    var isDefinite: Bool {
        steps.allSatisfy { step in
            switch step {
            case let .child(keys): keys.count == 1 && keys[0] != .all
            case .count: true
            default: false
            }
        }
    }

    // MARK: Reading

    /// The expression compiled; nil when it is not one this reader understands (the caller says so).
    static func compiled(_ expression: String) -> JSONPath? {
        if let known = cache.withLock({ $0[expression] }) { return known }
        var parser = Parser(Array(expression.trimmingCharacters(in: .whitespaces).unicodeScalars))
        let path = parser.wholePath()
        cache.withLock { cache in
            if cache.count < 4_096 { cache[expression] = path }
        }
        return path
    }

    private static let cache = Mutex<[String: JSONPath?]>([:])

    // MARK: Running

    /// What the path selects in `document`.
    func select(in document: ForeignNode) -> [ForeignNode] {
        select(from: document, root: document)
    }

    func select(from start: ForeignNode, root: ForeignNode) -> [ForeignNode] {
        var nodes = [start]
        for step in steps {
            var next: [ForeignNode] = []
            for node in nodes {
                switch step {
                case let .child(keys):
                    Self.children(of: node, keys, into: &next)
                case let .descendants(keys):
                    var all: [ForeignNode] = []
                    Self.collect(node, into: &all)
                    for each in all { Self.children(of: each, keys, into: &next) }
                case let .slice(from, to, by):
                    let elements = node.elements
                    guard case .list = node, by > 0 else { continue }
                    let count = elements.count
                    func bound(_ value: Int?, _ otherwise: Int) -> Int {
                        guard let value else { return otherwise }
                        return min(max(value < 0 ? count + value : value, 0), count)
                    }
                    var index = bound(from, 0)
                    let end = bound(to, count)
                    while index < end {
                        next.append(elements[index])
                        index += by
                    }
                case let .filter(filter):
                    if case let .list(elements, _) = node {
                        next += elements.filter { filter.holds(on: $0, root: root) }
                    } else if case .map = node, filter.holds(on: node, root: root) {
                        next.append(node)
                    }
                case .count:
                    let count: Int? = switch node {
                    case let .list(elements, _): elements.count
                    case let .map(pairs, _): pairs.count
                    case let .text(text, .string, _): text.count
                    default: nil
                    }
                    if let count { next.append(.text(String(count), kind: .number, line: nil)) }
                }
            }
            nodes = next
        }
        return nodes
    }

    private static func children(of node: ForeignNode, _ keys: [Key], into found: inout [ForeignNode]) {
        for key in keys {
            switch (key, node) {
            case let (.name(name), .map(pairs, _)):
                if let value = pairs.first(where: { $0.key == name })?.value { found.append(value) }
            case let (.index(index), .list(elements, _)):
                let place = index < 0 ? elements.count + index : index
                if elements.indices.contains(place) { found.append(elements[place]) }
            case let (.all, .map(pairs, _)):
                found += pairs.map(\.value)
            case let (.all, .list(elements, _)):
                found += elements
            default:
                break
            }
        }
    }

    /// `node` and everything below it, in document order.
    private static func collect(_ node: ForeignNode, into all: inout [ForeignNode]) {
        all.append(node)
        switch node {
        case let .map(pairs, _): for pair in pairs { collect(pair.value, into: &all) }
        case let .list(elements, _): for element in elements { collect(element, into: &all) }
        default: break
        }
    }
}

// MARK: - Filters

extension JSONPath.Filter {
    /// Whether the filter holds for `node` (`@`) in the document `root` (`$`).
    func holds(on node: ForeignNode, root: ForeignNode) -> Bool {
        switch self {
        case let .or(left, right): return left.holds(on: node, root: root) || right.holds(on: node, root: root)
        case let .and(left, right): return left.holds(on: node, root: root) && right.holds(on: node, root: root)
        case let .not(inner): return !inner.holds(on: node, root: root)
        case let .exists(operand):
            if case let .path(fromRoot, path) = operand { return !path.select(from: fromRoot ? root : node, root: root).isEmpty }
            return operand.value(on: node, root: root).flatMap(\.boolean) ?? false
        case let .compare(left, operation, right):
            let lhs = left.value(on: node, root: root)
            let rhs = right.value(on: node, root: root)
            return JSONPath.compare(lhs, operation, rhs, regex: right)
        }
    }
}

extension JSONPath.Operand {
    /// The operand's value as a node (a path selecting several things: a list of them; nothing: nil).
    func value(on node: ForeignNode, root: ForeignNode) -> ForeignNode? {
        switch self {
        case let .path(fromRoot, path):
            let found = path.select(from: fromRoot ? root : node, root: root)
            return path.isDefinite ? found.first : .list(found, line: nil)
        case let .string(text): return .text(text, kind: .string, line: nil)
        case let .number(number): return .text(String(number), kind: .number, line: nil)
        case let .boolean(flag): return .text(flag ? "true" : "false", kind: .boolean, line: nil)
        case .null: return .null(line: nil)
        case .regex: return nil
        case let .list(operands): return .list(operands.compactMap { $0.value(on: node, root: root) }, line: nil)
        }
    }
}

extension JSONPath {
    /// One comparison of a filter (`regex`: the right operand, for `=~`).
    static func compare(_ lhs: ForeignNode?, _ operation: String, _ rhs: ForeignNode?, regex: Operand) -> Bool {
        switch operation {
        case "==": return lhs.map { left in rhs.map { left.sameScalar(as: $0) } ?? false } ?? false
        case "!=": return !(lhs.map { left in rhs.map { left.sameScalar(as: $0) } ?? false } ?? false)
        case "<", "<=", ">", ">=":
            guard let lhs, let rhs else { return false }
            let order: ComparisonResult
            if let left = lhs.numberValue, let right = rhs.numberValue {
                order = left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
            } else if case let .text(left, .string, _) = lhs, case let .text(right, .string, _) = rhs {
                order = left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
            } else {
                return false
            }
            switch operation {
            case "<": return order == .orderedAscending
            case "<=": return order != .orderedDescending
            case ">": return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case "=~":
            guard case let .regex(pattern, ignoringCase) = regex, case let .text(text, _, _)? = lhs else { return false }
            return StubPattern.wholeMatch(text, (ignoringCase ? "(?i)" : "") + pattern)
        case "in", "nin":
            let found = rhs?.elements.contains { lhs?.sameScalar(as: $0) ?? false } ?? false
            return operation == "in" ? found : !found
        case "contains":
            if case let .text(text, .string, _)? = lhs, case let .text(part, .string, _)? = rhs { return text.contains(part) }
            return lhs?.elements.contains { rhs.map($0.sameScalar) ?? false } ?? false
        case "size":
            guard let size = rhs?.numberValue else { return false }
            if case let .text(text, .string, _)? = lhs { return Double(text.count) == size }
            if case let .list(elements, _)? = lhs { return Double(elements.count) == size }
            return false
        case "empty":
            guard let wanted = rhs?.boolean else { return false }
            switch lhs {
            case let .text(text, .string, _)?: return text.isEmpty == wanted
            case let .list(elements, _)?: return elements.isEmpty == wanted
            case let .map(pairs, _)?: return pairs.isEmpty == wanted
            default: return false
            }
        case "anyof", "noneof", "subsetof":
            guard case let .list(left, _)? = lhs, case let .list(right, _)? = rhs else { return false }
            let inRight = left.map { element in right.contains { element.sameScalar(as: $0) } }
            switch operation {
            case "anyof": return inRight.contains(true)
            case "noneof": return !inRight.contains(true)
            default: return !inRight.contains(false)
            }
        default:
            return false
        }
    }
}

extension ForeignNode {
    /// A number's value (nil for anything else).
    var numberValue: Double? {
        if case let .text(text, .number, _) = self { return Double(text) }
        return nil
    }

    /// `true` or `false` (nil for anything else).
    var boolean: Bool? {
        if case let .text(text, .boolean, _) = self { return text == "true" }
        return nil
    }

    /// Whether two nodes are the same JSON value: numbers by value, strings and booleans by text,
    /// nulls, and objects and arrays member by member.
    func sameScalar(as other: ForeignNode) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case let (.text(left, leftKind, _), .text(right, rightKind, _)):
            guard leftKind == rightKind else { return false }
            if leftKind == .number { return Double(left) == Double(right) }
            return left == right
        case let (.list(left, _), .list(right, _)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.sameScalar(as: $1) }
        case let (.map(left, _), .map(right, _)):
            return left.count == right.count && left.allSatisfy { pair in other[pair.key].map(pair.value.sameScalar) ?? false }
        default: return false
        }
    }
}
