import Foundation

// How stubs compare JSON bodies: WireMock's `equalToJson` (with its options and JsonUnit's
// placeholders), Hoverfly's `jsonPartial`, and what a JSONPath expression selects.

extension StubPattern {
    /// Whether `value` is the JSON document `expected` says, with WireMock's options.
    static func sameJSON(_ value: String, _ expected: String, ignoringArrayOrder: Bool = false, ignoringExtraElements: Bool = false) -> Bool {
        guard let actual = ForeignNode.json(Data(value.utf8)), let wanted = ForeignNode.json(Data(expected.utf8)) else { return false }
        return JSONComparison(ignoringArrayOrder: ignoringArrayOrder, ignoringExtraElements: ignoringExtraElements).same(wanted, actual)
    }

    /// Whether some object in the JSON `value` (at any depth) holds the members of the JSON object
    /// `expected`, as Hoverfly's `jsonPartial` decides.
    static func holdsJSON(_ value: String, _ expected: String) -> Bool {
        guard let actual = ForeignNode.json(Data(value.utf8)), let wanted = ForeignNode.json(Data(expected.utf8)), case .map = wanted else { return false }
        var objects: [ForeignNode] = []
        JSONComparison.objects(in: actual, into: &objects)
        return objects.contains { JSONComparison.holds(wanted, in: $0) }
    }

    /// Whether the JSONPath `expression` selects something in the JSON `value`, as WireMock's
    /// `matchesJsonPath` decides: a path naming one place must find a value that is not null, nor
    /// an empty object or array; any other path must find something. With `then`, something it
    /// selects (an array's elements one by one; an object, or anything when `then` compares JSON,
    /// as JSON text) must match `then` (``Value/absent``: nothing selected).
    static func selects(_ expression: String, in value: String, then: Value?) -> Bool {
        // WireMock does not read XML as JSON.
        guard let path = JSONPath.compiled(expression), !value.drop(while: \.isWhitespace).hasPrefix("<"),
              let document = ForeignNode.json(Data(value.utf8)) else { return false }
        let found = path.select(in: document)
        guard let then else {
            guard path.isDefinite else { return !found.isEmpty }
            switch found.first {
            case nil, .null?: return false
            case let .map(pairs, _)?: return !pairs.isEmpty
            case let .list(elements, _)?: return !elements.isEmpty
            default: return true
            }
        }
        let selected: ForeignNode? = path.isDefinite ? found.first : .list(found, line: nil)
        var texts: [String] = []
        switch selected {
        case nil, .null?: break
        case .map?: texts = [selected!.jsonText()]
        case let .list(elements, _)?:
            if case .equalJSON = then { texts = [selected!.jsonText()] } else { texts = elements.map(\.matchedText) }
        case let node?: texts = [node.matchedText]
        }
        if texts.isEmpty, case .absent = then { return true }
        return texts.contains { then.matches($0) }
    }
}

extension ForeignNode {
    /// The text a matcher sees for a selected value: a scalar's own text, anything else as JSON.
    fileprivate var matchedText: String {
        if case let .text(text, _, _) = self { return text }
        return jsonText()
    }
}

/// A comparison of an expected JSON document with a request's, as WireMock (JsonUnit) makes it.
struct JSONComparison {
    /// Whether an array's elements may come in another order.
    var ignoringArrayOrder = false
    /// Whether the request's JSON may hold members and array elements the expected one lacks.
    var ignoringExtraElements = false

    /// Whether `actual` is what `expected` says.
    func same(_ expected: ForeignNode, _ actual: ForeignNode) -> Bool {
        if case let .text(text, .string, _) = expected, text.hasPrefix("${json-unit.") { return Self.placeholder(text, holdsFor: actual) }
        switch (expected, actual) {
        case let (.map(wanted, _), .map(given, _)):
            for (key, value) in wanted {
                if let other = given.first(where: { $0.key == key })?.value {
                    guard same(value, other) else { return false }
                } else if case .text("${json-unit.ignore-element}", .string, _) = value {
                    continue
                } else {
                    return false
                }
            }
            return ignoringExtraElements || given.allSatisfy { pair in wanted.contains { $0.key == pair.key } }
        case let (.list(wanted, _), .list(given, _)):
            guard ignoringExtraElements ? given.count >= wanted.count : given.count == wanted.count else { return false }
            guard ignoringArrayOrder else { return zip(wanted, given).allSatisfy { same($0, $1) } }
            // Each expected element takes an element of its own, the first free one it matches.
            var free = Array(given.indices)
            for element in wanted {
                guard let place = free.firstIndex(where: { same(element, given[$0]) }) else { return false }
                free.remove(at: place)
            }
            return true
        default:
            return expected.sameScalar(as: actual)
        }
    }

    /// JsonUnit's placeholders: `${json-unit.ignore}`, `…any-string}`, `…any-number}`,
    /// `…any-boolean}`, `${json-unit.regex}PATTERN`; any other is compared as the string it is.
    private static func placeholder(_ text: String, holdsFor actual: ForeignNode) -> Bool {
        switch text {
        case "${json-unit.ignore}", "${json-unit.ignore-element}": return true
        case "${json-unit.any-string}": if case .text(_, .string, _) = actual { return true } else { return false }
        case "${json-unit.any-number}": return actual.numberValue != nil
        case "${json-unit.any-boolean}": return actual.boolean != nil
        default:
            if text.hasPrefix("${json-unit.regex}"), case let .text(given, .string, _) = actual {
                return StubPattern.wholeMatch(given, String(text.dropFirst("${json-unit.regex}".count)))
            }
            if case let .text(given, .string, _) = actual { return given == text }
            return false
        }
    }

    /// Every object in `node`, itself first, at any depth.
    static func objects(in node: ForeignNode, into found: inout [ForeignNode]) {
        switch node {
        case let .map(pairs, _):
            found.append(node)
            for pair in pairs { objects(in: pair.value, into: &found) }
        case let .list(elements, _):
            for element in elements { objects(in: element, into: &found) }
        default:
            break
        }
    }

    /// Whether the object `actual` holds every member of the object `expected` (objects inside
    /// compared the same way; an array's expected elements each found in the given array).
    static func holds(_ expected: ForeignNode, in actual: ForeignNode?) -> Bool {
        guard case let .map(wanted, _) = expected, case .map = actual else { return false }
        return wanted.allSatisfy { key, value in
            guard let given = actual?[key] else { return false }
            switch value {
            case .map: return holds(value, in: given)
            case let .list(elements, _): return elements.allSatisfy { element in given.elements.contains { holdsElement(element, $0) } }
            default: return value.sameScalar(as: given)
            }
        }
    }

    private static func holdsElement(_ expected: ForeignNode, _ given: ForeignNode) -> Bool {
        if case .map = expected { return holds(expected, in: given) }
        return expected.sameScalar(as: given)
    }
}
