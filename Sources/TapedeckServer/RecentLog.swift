/// The most recent entries of a log that would otherwise grow for as long as a server runs (the
/// miss log, the fired-fault log): it keeps the last `capacity` entries and counts the rest.
///
/// ```swift
/// var log = RecentLog<String>(capacity: 2)
/// for miss in ["a", "b", "c"] { log.append(miss) }
/// // log.entries == ["b", "c"], log.total == 3, log.dropped == 1
/// ```
public struct RecentLog<Element: Sendable>: Sendable {
    /// How many entries are kept.
    public let capacity: Int
    /// How many entries were ever appended (since the last ``removeAll()``).
    public private(set) var total = 0
    private var storage: [Element] = []

    /// An empty log keeping at most `capacity` entries (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends `entry`, forgetting the oldest beyond the capacity.
    public mutating func append(_ entry: Element) {
        total += 1
        storage.append(entry)
        // Trim in batches, so appending stays O(1) amortized.
        if storage.count >= capacity * 2 { storage.removeFirst(storage.count - capacity) }
    }

    /// Appends `entries` in order.
    public mutating func append(contentsOf entries: some Sequence<Element>) {
        for entry in entries { append(entry) }
    }

    /// The kept entries, oldest first.
    public var entries: [Element] { Array(storage.suffix(capacity)) }

    /// How many entries were appended but are no longer kept.
    public var dropped: Int { total - min(storage.count, capacity) }

    /// Forgets everything, the count too.
    public mutating func removeAll() {
        total = 0
        storage.removeAll()
    }
}
