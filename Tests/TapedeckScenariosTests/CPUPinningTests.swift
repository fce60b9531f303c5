import Foundation
import Testing
import TapedeckScenarios

/// CPUPinning on Linux: every thread, and every thread started afterwards, keeps to the one CPU;
/// releasing gives back the CPUs the process had.
@Suite("Scenarios: CPU pinning for sequential simulations", .serialized)
struct CPUPinningTests {
    /// The allowed list of a thread started now, read from inside it.
    private func newThreadList() -> String? {
        let box = ResultBox()
        let thread = Thread {
            let status = (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)) ?? ""
            box.set(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
                .map { $0.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces) })
        }
        thread.start()
        return box.wait()
    }

    #if os(Linux)
    /// This thread's `Cpus_allowed_list`.
    private func ownList() -> String? {
        let status = (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
            .map { $0.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces) }
    }

    // Other suites run in this process meanwhile: only this thread and threads it starts are
    // checked (another suite's thread may start mid-pin from one not yet pinned).
    @Test("pinning puts this thread, and threads started later, on one CPU; releasing restores the CPUs the process had",
          .enabled(if: ProcessInfo.processInfo.environment[CPUPinning.environmentVariable] != "any"))
    func pinsAndReleases() throws {
        let before = try #require(newThreadList())
        let cpu = try #require(CPUPinning.pinProcess(toCPUAt: 1))
        #expect(ownList() == String(cpu))
        #expect(newThreadList() == String(cpu), "a thread started after the pin inherits it")
        CPUPinning.releaseProcess()
        #expect(ownList() == before, "released")
        #expect(newThreadList() == before)
        #expect(CPUPinning.pinProcess(toCPUAt: -1) != nil, "a negative index counts from the end, within the allowed CPUs")
        CPUPinning.releaseProcess()
        // The index of the CPU a pinned thread is on names that CPU again.
        let here = try #require(CPUPinning.pinProcess())
        let index = try #require(CPUPinning.currentCPUIndex())
        #expect(CPUPinning.pinProcess(toCPUAt: index) == here)
        CPUPinning.releaseProcess()
    }
    #endif
}

/// One value handed from a thread to the test.
private final class ResultBox: @unchecked Sendable {
    // @unchecked Sendable: the value is guarded by `condition`.
    private let condition = NSCondition()
    private var value: String??

    func set(_ new: String?) {
        condition.lock()
        value = .some(new)
        condition.signal()
        condition.unlock()
    }

    func wait() -> String? {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }
}
