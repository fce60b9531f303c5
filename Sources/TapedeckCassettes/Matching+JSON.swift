import Foundation

// JSON bodies compared as documents: key order and spacing aside, a redacted value matching any,
// and the first place two differ named (by path, never by value: a miss may quote a secret's place only).

extension MatchRules {
    /// Whether two parsed JSON documents mean the same, a redacted value (``Redactor/placeholder``)
    /// on either side matching any value.
    func jsonMatches(_ left: Any, _ right: Any) -> Bool {
        jsonDifference(left, right, at: "$") == nil
    }

    /// Where two parsed JSON documents first differ (`$.user.id`, `$.items[2]`, with what is
    /// missing on which side), or nil when they mean the same (a redacted value matches any).
    func jsonDifference(_ left: Any, _ right: Any, at path: String) -> String? {
        if let text = left as? String, text == Redactor.placeholder { return nil }
        if let text = right as? String, text == Redactor.placeholder { return nil }
        switch (left, right) {
        case let (left as [String: Any], right as [String: Any]):
            for key in left.keys.sorted() {
                let place = Self.jsonPath(path, key)
                guard let other = right[key] else { return "\(place) (this request has it, the recorded one does not)" }
                if let difference = jsonDifference(left[key]!, other, at: place) { return difference }
            }
            if let extra = right.keys.sorted().first(where: { left[$0] == nil }) {
                return "\(Self.jsonPath(path, extra)) (the recorded request has it, this one does not)"
            }
            return nil
        case let (left as [Any], right as [Any]):
            for (index, (one, other)) in zip(left, right).enumerated() {
                if let difference = jsonDifference(one, other, at: "\(path)[\(index)]") { return difference }
            }
            return left.count == right.count ? nil : "\(path) (\(left.count) elements here, \(right.count) recorded)"
        default:
            return canonicalJSON(left) == canonicalJSON(right) ? nil : path
        }
    }

    /// JSON with object keys sorted, so equal values compare equal as data.
    func canonicalJSON(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    }

    /// `path.key`, or `path['key']` for a key that is not a plain name.
    private static func jsonPath(_ path: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
        return plain ? "\(path).\(key)" : "\(path)['\(key.replacingOccurrences(of: "'", with: "\\'"))']"
    }
}
