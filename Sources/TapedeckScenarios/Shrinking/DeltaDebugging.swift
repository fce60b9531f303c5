/// Zeller's ddmin as a value: it proposes a candidate (a subsequence of the current list), is told
/// whether the candidate still fails, and moves on, until no subset or complement at the finest
/// granularity fails. The caller runs the tests; the value only keeps the state.
///
/// ```swift
/// var search = DeltaDebugging(Array(1...8))
/// while let candidate = search.candidate {
///     search.record(failing: candidate.contains(3) && candidate.contains(6))
/// }
/// print(search.current)      // [3, 6]
/// ```
public struct DeltaDebugging<Element: Sendable>: Sendable {
    private enum Phase: Sendable {
        /// Trying the empty list once, first.
        case empty
        /// Trying the chunk at this index alone.
        case subset(Int)
        /// Trying everything but the chunk at this index.
        case complement(Int)
        /// Nothing smaller fails.
        case done
    }

    /// The smallest failing list found so far.
    public private(set) var current: [Element]
    private var granularity = 2
    private var phase = Phase.empty

    /// A search starting from `failing`, a list known to fail.
    public init(_ failing: [Element]) {
        current = failing
        if failing.isEmpty { phase = .done }
    }

    /// The next list to test, or nil when the search is over.
    public var candidate: [Element]? {
        switch phase {
        case .empty: return []
        case let .subset(index): return chunks[index]
        case let .complement(index): return chunks.enumerated().filter { $0.offset != index }.flatMap(\.element)
        case .done: return nil
        }
    }

    /// Whether the search is over.
    public var isDone: Bool {
        if case .done = phase { return true }
        return false
    }

    /// The transition: the last ``candidate`` failed the same way (`failing`) or not.
    public mutating func record(failing: Bool) {
        guard let tested = candidate else { return }
        if failing {
            // A failing subset restarts at two chunks; a failing complement keeps the granularity
            // one coarser (ddmin's n - 1).
            granularity = phaseIsComplement ? max(granularity - 1, 2) : 2
            current = tested
            phase = current.count < 2 ? .done : .subset(0)
            return
        }
        switch phase {
        case .empty:
            phase = current.count < 2 ? .done : .subset(0)
        case let .subset(index):
            phase = index + 1 < chunks.count ? .subset(index + 1) : (chunks.count > 2 ? .complement(0) : refine())
        case let .complement(index):
            phase = index + 1 < chunks.count ? .complement(index + 1) : refine()
        case .done:
            break
        }
    }

    private var phaseIsComplement: Bool {
        if case .complement = phase { return true }
        return false
    }

    /// No chunk or complement fails: split finer, or stop at single elements.
    private mutating func refine() -> Phase {
        guard granularity < current.count else { return .done }
        granularity = min(current.count, granularity * 2)
        return .subset(0)
    }

    /// `current` in `granularity` nearly equal chunks.
    private var chunks: [[Element]] {
        let count = min(granularity, current.count)
        var result: [[Element]] = []
        var start = 0
        for index in 0..<count {
            let end = start + (current.count - start) / (count - index)
            result.append(Array(current[start..<end]))
            start = end
        }
        return result
    }
}
