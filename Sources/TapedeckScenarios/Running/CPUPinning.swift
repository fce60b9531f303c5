#if os(Linux)
import CAffinity
#endif
import Foundation
import Synchronization

/// Keeps a process's threads on one CPU while it runs simulations.
///
/// A scenario run is sequential by design: the scheduler hands each step to URLSession's
/// threads and waits for them to settle before the next. Spread over several CPUs, every hand-off
/// wakes a thread on another CPU — on an idle machine (or a virtual machine's idle core) that
/// costs far more than the step itself. On one CPU the same hand-offs are local switches; the
/// trace is the same either way (docs/benchmarks.md has the figures).
///
/// `tapedeck run`, `shrink` and `explore` pin themselves (each `explore` worker process to its own
/// CPU); `check-determinism` does not, so that its second process sees other thread timings. A
/// program that runs many scenarios itself may do the same:
///
/// ```swift
/// CPUPinning.pinProcess()          // the CPU the caller runs on now
/// for seed in 1...1_000 { _ = try runner.run(scenario, seed: seed) }
/// CPUPinning.releaseProcess()      // back to every CPU it had
/// ```
///
/// Set `TAPEDECK_CPU=any` to leave the threads where the system puts them. Linux only; elsewhere
/// nothing is pinned.
public enum CPUPinning {
    /// The environment variable that turns pinning off (`TAPEDECK_CPU=any`).
    public static let environmentVariable = "TAPEDECK_CPU"

    /// The CPU set the process had before its first pin (restored by `releaseProcess()`).
    private static let original = Mutex<[UInt64]?>(nil)

    /// Lets every thread of this process — and the threads they start — run on one CPU only.
    ///
    /// - Parameter index: which of the CPUs the process may run on (taken modulo their count), so
    ///   that worker processes can spread over them; `nil` keeps the CPU the caller runs on now.
    /// - Returns: the CPU's number, or `nil` when nothing was pinned (not Linux, turned off by
    ///   `TAPEDECK_CPU=any`, or the system refused).
    @discardableResult
    public static func pinProcess(toCPUAt index: Int? = nil) -> Int? {
        #if os(Linux)
        if ProcessInfo.processInfo.environment[environmentVariable] == "any" { return nil }
        let count = Int(tapedeck_allowed_cpu(-1))
        guard count > 0 else { return nil }
        let cpu = Int(index.map { tapedeck_allowed_cpu(Int32((($0 % count) + count) % count)) } ?? tapedeck_current_cpu())
        guard cpu >= 0 else { return nil }
        original.withLock { saved in
            guard saved == nil else { return }
            var mask = [UInt64](repeating: 0, count: Int(TAPEDECK_CPU_WORDS))
            if tapedeck_get_cpus(&mask) == 0 { saved = mask }
        }
        let pinned = everyThread().filter { tapedeck_pin_thread($0, Int32(cpu)) == 0 }
        return pinned.isEmpty ? nil : cpu
        #else
        return nil
        #endif
    }

    /// Where the CPU the caller runs on now stands among the CPUs the process may use (the index
    /// ``pinProcess(toCPUAt:)`` takes); nil when not known (not Linux). Worker processes counted
    /// on from it spread over the machine from where their parent ran, so that two explorations
    /// side by side do not both start at the first CPU.
    public static func currentCPUIndex() -> Int? {
        #if os(Linux)
        let current = tapedeck_current_cpu()
        let count = tapedeck_allowed_cpu(-1)
        guard current >= 0, count > 0 else { return nil }
        return (0..<count).first { tapedeck_allowed_cpu($0) == current }.map(Int.init)
        #else
        return nil
        #endif
    }

    /// Lets every thread of this process run again on all the CPUs it had before `pinProcess`.
    public static func releaseProcess() {
        #if os(Linux)
        guard let mask = original.withLock({ $0 }) else { return }
        for thread in everyThread() { _ = tapedeck_set_cpus(thread, mask) }
        #endif
    }

    #if os(Linux)
    /// The threads the process has now (threads started later inherit their starter's CPUs).
    private static func everyThread() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { Int32($0) }
    }
    #endif
}
