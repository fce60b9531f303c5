import Yams

/// A place in a scenario file (1-based line and column; 0 when unknown).
struct SourceMark: Hashable, Sendable {
    var line: Int
    var column: Int
}

/// Problems the reader noted and read past (unknown keys, and whole values that could not be read
/// while the rest still could), reported together in file order.
final class Problems {
    private(set) var errors: [ScenarioError] = []
    /// What reads but may not say what was meant (a bare `latency: 200` is 200 seconds): load
    /// warnings, once per place.
    private(set) var doubts: [ScenarioError] = []

    /// Notes a doubt about a value that was read (once per place in the file).
    func doubt(_ warning: ScenarioError) {
        guard !doubts.contains(where: { $0.line == warning.line && $0.column == warning.column }) else { return }
        doubts.append(warning)
    }

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

    /// Reads `item` with `read`; when that fails, the problem is noted and the item read again
    /// without the value it named, and again, so that every wrong value of one item (a stub, a
    /// step, a fault, a section) is reported, not only its first. The item's value is nil once
    /// anything was wrong. A later problem at the item itself (a required key now missing) is an
    /// effect of the removal and is not reported.
    func recovering<T>(item: Field, _ read: (Field) throws(ScenarioError) -> T) -> T? {
        var current = item
        // The mappings and lists a value was taken out of: a problem reported at one of them
        // (`'url' is required here`) is the removal's doing.
        var emptied: Set<SourceMark> = []
        for attempt in 0..<64 {
            do {
                let value = try read(current)
                return attempt == 0 ? value : nil
            } catch {
                if emptied.contains(SourceMark(line: error.line, column: error.column)) { return nil }
                add(error)
                guard error.line > 0, let (reduced, parents) = current.node.removing(line: error.line, column: error.column) else { return nil }
                emptied.formUnion(parents)
                current = Field(node: reduced, path: current.path, file: current.file, problems: current.problems)
            }
        }
        return nil
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

extension Node {
    /// This node without the mapping entry found at `line`:`column` (its key or its value starts
    /// there), at any depth, and the marks of the mappings and lists it was taken from; nil when
    /// nothing removable starts there. Never the node itself (a block mapping starts where its
    /// first key does: an error about the whole item is not one about that key), and never a list
    /// item (the items after it would be reported under the wrong index).
    func removing(line: Int, column: Int) -> (Node, parents: [SourceMark])? {
        func at(_ node: Node) -> Bool { node.mark?.line == line && node.mark?.column == column }
        guard !at(self) else { return nil }
        let here = SourceMark(line: mark?.line ?? 0, column: mark?.column ?? 0)
        switch self {
        case let .mapping(mapping):
            var pairs = mapping.map { ($0.key, $0.value) }
            var parents = [here]
            if let index = pairs.firstIndex(where: { at($0.0) || (at($0.1) && !$0.1.isCollection) }) {
                pairs.remove(at: index)
            } else if let (index, (inner, below)) = pairs.indices.lazy
                .compactMap({ index in pairs[index].1.removing(line: line, column: column).map { (index, $0) } }).first {
                pairs[index].1 = inner
                parents += below
            } else if let index = pairs.firstIndex(where: { at($0.1) }) {
                pairs.remove(at: index)   // a collection value that is wrong as a whole
            } else {
                return nil
            }
            return (.mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark, mapping.anchor)), parents)
        case let .sequence(sequence):
            var nodes = Array(sequence)
            guard let (index, (inner, below)) = nodes.indices.lazy
                .compactMap({ index in nodes[index].removing(line: line, column: column).map { (index, $0) } }).first else { return nil }
            nodes[index] = inner
            return (.sequence(Node.Sequence(nodes, sequence.tag, sequence.style, sequence.mark, sequence.anchor)), [here] + below)
        default:
            return nil
        }
    }

    /// A mapping or a list.
    private var isCollection: Bool {
        switch self {
        case .mapping, .sequence: true
        default: false
        }
    }
}
