/// Runs the same simulation several times from one seed and compares the traces step by step.
///
/// ```swift
/// let report = try DeterminismCheck.run(seed: 42) { scheduler in
///     buildWorkload(on: scheduler)
///     try scheduler.runUntilIdle()
/// }
/// #expect(report.isDeterministic, "\(report)")
/// ```
public enum DeterminismCheck {
    /// Each run gets a fresh ``SimulatedScheduler`` (full trace, recording violations) with `seed`.
    /// Errors thrown by `workload` end the check and propagate.
    public static func run(
        seed: UInt64, runs: Int = 2, _ workload: (SimulatedScheduler) throws -> Void
    ) rethrows -> DeterminismReport {
        precondition(runs >= 2, "a determinism check needs at least two runs")
        var traces: [[TraceStep]] = []
        var hashes: [TraceHash] = []
        for _ in 0..<runs {
            let scheduler = SimulatedScheduler(seed: seed, traceMode: .full, violationPolicy: .record)
            try workload(scheduler)
            traces.append(scheduler.trace)
            hashes.append(scheduler.traceHash)
        }
        for run in 1..<runs where hashes[run] != hashes[0] || traces[run].count != traces[0].count {
            return DeterminismReport(seed: seed, hashes: hashes, divergence: Divergence(run: run, first: traces[0], other: traces[run]))
        }
        return DeterminismReport(seed: seed, hashes: hashes, divergence: nil)
    }
}

/// The outcome of a ``DeterminismCheck``.
public struct DeterminismReport: Sendable, CustomStringConvertible {
    /// The seed every run used.
    public let seed: UInt64
    /// One trace hash per run.
    public let hashes: [TraceHash]
    /// Where the first run that differed from run 0 left it, if any did.
    public let divergence: Divergence?

    /// True when every run gave run 0's trace.
    public var isDeterministic: Bool { divergence == nil }

    /// A one-line verdict: the hash when deterministic, else where the runs diverged.
    public var description: String {
        guard let divergence else {
            return "deterministic: seed \(seed), \(hashes.count) runs, trace hash \(hashes[0])"
        }
        return "NOT deterministic: seed \(seed); \(divergence)"
    }
}

/// The first step at which two runs' traces differ, with both sides.
public struct Divergence: Sendable, CustomStringConvertible {
    /// The run (counted from 0) compared with run 0.
    public let run: Int
    /// The index of the first step that differs.
    public let stepIndex: Int
    /// Run 0's step there (nil: run 0 had already ended).
    public let expected: TraceStep?
    /// The other run's step there (nil: that run had already ended).
    public let actual: TraceStep?
    /// The steps both runs shared just before the divergence.
    public let commonPrefix: [TraceStep]

    /// Compares `other` (the trace of run `run`) with run 0's `first`, step by step.
    public init(run: Int, first: [TraceStep], other: [TraceStep]) {
        var index = 0
        while index < first.count && index < other.count && first[index].sameContent(as: other[index]) {
            index += 1
        }
        self.run = run
        self.stepIndex = index
        self.expected = index < first.count ? first[index] : nil
        self.actual = index < other.count ? other[index] : nil
        self.commonPrefix = Array(first[max(0, index - 3)..<index])
    }

    /// Both sides of the first differing step, with the steps just before it.
    public var description: String {
        var lines = ["run \(run) diverged from run 0 at step \(stepIndex):"]
        lines += commonPrefix.map { "    \($0)" }
        lines.append("  run 0:   \(expected.map(String.init(describing:)) ?? "(trace ended)")")
        lines.append("  run \(run):   \(actual.map(String.init(describing:)) ?? "(trace ended)")")
        return lines.joined(separator: "\n")
    }
}
