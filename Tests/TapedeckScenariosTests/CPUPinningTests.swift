import Foundation
import Testing
import TapedeckScenarios

/// CPUPinning on Linux: every thread, and every thread started afterwards, keeps to the one CPU;
/// releasing gives back the CPUs the process had.
@Suite("Scenarios: CPU pinning for sequential simulations", .serialized)
struct CPUPinningTests {
    /// Each thread's `Cpus_allowed_list` line (e.g. "0-1" or "1").
    private func allowedLists() -> [String: String] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var lists: [String: String] = [:]
        for thread in threads {
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { continue }
            lists[thread] = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        }
        return lists
    }

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
    @Test("pinning puts every thread, and threads started later, on one CPU; releasing restores the CPUs the process had")
    func pinsAndReleases() throws {
        let before = try #require(newThreadList())
        let cpu = try #require(CPUPinning.pinProcess(toCPUAt: 1))
        let pinned = allowedLists()
        #expect(!pinned.isEmpty)
        #expect(pinned.values.allSatisfy { $0 == String(cpu) }, "every thread on CPU \(cpu): \(pinned)")
        #expect(newThreadList() == String(cpu), "a thread started after the pin inherits it")
        CPUPinning.releaseProcess()
        #expect(allowedLists().values.allSatisfy { $0 == before }, "released: \(allowedLists()), before: \(before)")
        #expect(newThreadList() == before)
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
