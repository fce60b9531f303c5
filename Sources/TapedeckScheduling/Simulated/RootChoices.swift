/// One scheduling choice between ready root queues that differs from plain FIFO: at the
/// `point`-th choice of a run (counting only instants where two or more roots were ready), the root
/// whose oldest job was the `rank`-th oldest among the ready roots' oldest jobs ran (0 would be
/// FIFO's pick, so a recorded choice always has a rank above 0).
///
/// ```swift
/// let scheduler = SimulatedScheduler(seed: 9, choices: .recording)
/// try scheduler.runUntilIdle()
/// let replay = SimulatedScheduler(choices: .replaying(scheduler.recordedChoices))   // the same order
/// ```
public struct SchedulingChoice: Hashable, Sendable, CustomStringConvertible {
    /// Which multi-root choice of the run (from 1).
    public var point: Int
    /// The picked root's rank by the age of its oldest ready job (0: the oldest).
    public var rank: Int

    /// A choice.
    public init(point: Int, rank: Int) {
        self.point = point
        self.rank = rank
    }

    /// `choice 12: rank 1`.
    public var description: String { "choice \(point): rank \(rank)" }
}

/// Where a ``SimulatedScheduler`` takes its choices between ready roots from.
///
/// ```swift
/// let seeded = SimulatedScheduler(seed: 4)                                  // .seeded
/// let replay = SimulatedScheduler(choices: .replaying([SchedulingChoice(point: 3, rank: 1)]))
/// ```
public enum RootChoiceSource: Hashable, Sendable {
    /// From the seed (``SimulatedScheduler/fifoSeed``: FIFO), nothing recorded.
    case seeded
    /// From the seed, and every choice FIFO would not have made is kept in
    /// ``SimulatedScheduler/recordedChoices``.
    case recording
    /// Exactly these choices; every other choice point takes FIFO's pick. The seed decides nothing.
    /// The choices made (a rank beyond the ready roots takes the youngest) are kept in
    /// ``SimulatedScheduler/recordedChoices``.
    case replaying([SchedulingChoice])
}

/// The choice-making state: a value with one transition, ``pick(among:seeded:)``.
struct RootChoices {
    private enum Mode {
        case seeded
        case recording
        case replaying([Int: Int])
    }

    private let mode: Mode
    private var point = 0
    private(set) var recorded: [SchedulingChoice] = []

    init(_ source: RootChoiceSource) {
        switch source {
        case .seeded: mode = .seeded
        case .recording: mode = .recording
        case let .replaying(choices):
            var ranks: [Int: Int] = [:]
            for choice in choices { ranks[choice.point] = choice.rank }
            mode = .replaying(ranks)
        }
    }

    /// Whether picks come from the seed (or FIFO under the FIFO seed).
    var usesSeed: Bool {
        if case .replaying = mode { return false }
        return true
    }

    /// The index in `roots` to run next, given the seeded index (nil: the FIFO seed's oldest head).
    mutating func pick(among roots: [ReadyRoot], seeded: Int?) -> Int {
        point += 1
        switch mode {
        case .seeded:
            return seeded ?? Self.index(ofRank: 0, in: roots)
        case .recording:
            let index = seeded ?? Self.index(ofRank: 0, in: roots)
            let rank = Self.rank(of: index, in: roots)
            if rank > 0 { recorded.append(SchedulingChoice(point: point, rank: rank)) }
            return index
        case let .replaying(ranks):
            let rank = min(ranks[point] ?? 0, roots.count - 1)
            if rank > 0 { recorded.append(SchedulingChoice(point: point, rank: rank)) }
            return Self.index(ofRank: rank, in: roots)
        }
    }

    /// How many ready roots have an older head than `roots[index]`.
    static func rank(of index: Int, in roots: [ReadyRoot]) -> Int {
        let seq = roots[index].queue.ready.firstSeq
        return roots.count { $0.queue.ready.firstSeq < seq }
    }

    /// The index of the root whose head has `rank` older heads before it.
    static func index(ofRank rank: Int, in roots: [ReadyRoot]) -> Int {
        if rank == 0 {
            var best = 0
            for index in roots.indices.dropFirst() where roots[index].queue.ready.firstSeq < roots[best].queue.ready.firstSeq {
                best = index
            }
            return best
        }
        let order = roots.indices.sorted { roots[$0].queue.ready.firstSeq < roots[$1].queue.ready.firstSeq }
        return order[rank]
    }
}
