import Foundation

/// The keys of a mapping, read by name.
struct Fields {
    let owner: Field
    let values: [String: Field]
    /// The keys in file order.
    let order: [String]
    /// Unknown keys that look like a misspelling of an allowed one, by the allowed key.
    var nearMisses: [String: ScenarioError] = [:]

    subscript(key: String) -> Field? { values[key] }

    /// Reads `key` when present; with a problem collector, an error is noted and reading goes on
    /// with the next key (so that several wrong keys of one mapping are reported at once). The
    /// body may run more than once (again without each wrong value found); what those runs build
    /// is never used, as a file with a problem does not load.
    func read(_ key: String, _ body: (Field) throws(ScenarioError) -> Void) throws(ScenarioError) {
        guard let value = values[key] else { return }
        guard let problems = owner.problems else { return try body(value) }
        // Every wrong value under the key, not only the first (see ``Problems/recovering(item:_:)``).
        problems.recovering(item: value) { (value) throws(ScenarioError) in try body(value) }
    }

    /// The value of a key that must be there.
    func required(_ key: String, hint: String = "") throws(ScenarioError) -> Field {
        guard let value = values[key] else {
            // `scirpt:` is the problem to report, not a missing `script:`.
            if let misspelt = nearMisses[key] { throw misspelt }
            throw owner.error("'\(key)' is required here", hint: hint)
        }
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
