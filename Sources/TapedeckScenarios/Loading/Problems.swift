/// A place in a scenario file (1-based line and column; 0 when unknown).
struct SourceMark: Hashable, Sendable {
    var line: Int
    var column: Int
}

/// Problems the reader noted and read past (unknown keys, and whole values that could not be read
/// while the rest still could), reported together in file order.
final class Problems {
    private(set) var errors: [ScenarioError] = []

    /// Notes `error` (once per place in the file).
    func add(_ error: ScenarioError) {
        guard !errors.contains(where: { $0.line == error.line && $0.column == error.column && $0.line > 0 }) else { return }
        errors.append(error)
    }

    /// Runs `body`; an error it throws is noted and nil returned, so reading goes on.
    @discardableResult
    func recovering<T>(_ body: () throws(ScenarioError) -> T) -> T? {
        do {
            return try body()
        } catch {
            add(error)
            return nil
        }
    }

    /// Every problem as one error, the first in the file first (nil when there were none).
    var combined: ScenarioError? {
        let sorted = errors.enumerated().sorted { lhs, rhs in
            let a = lhs.element, b = rhs.element
            if (a.line == 0) != (b.line == 0) { return b.line == 0 }
            if a.line != b.line { return a.line < b.line }
            if a.column != b.column { return a.column < b.column }
            return lhs.offset < rhs.offset
        }.map(\.element)
        guard var first = sorted.first else { return nil }
        first.more = Array(sorted.dropFirst())
        return first
    }
}
