import Foundation

/// Which cassettes are open in this process, and how: many replayers may share one, but a
/// recorder holds it alone (two recorders would number entries alike and merge each other's
/// journal), and a journal is recovered by one opener while the others wait.
final class CassetteHolds: @unchecked Sendable {
    // @unchecked Sendable: `table` is only touched with `condition` locked.
    static let shared = CassetteHolds()

    enum Kind {
        /// May write: holds the cassette alone.
        case recorder
        /// Only reads: shares the cassette with other readers.
        case reader
        /// Only reads, but found a journal: holds the cassette alone while recovering it, then
        /// becomes a reader (``finishRecovery(_:)``).
        case recoveringReader
    }

    private enum Hold {
        case readers(Int)
        case recorder
        case recovering
    }

    private let condition = NSCondition()
    private var table: [String: Hold] = [:]
    /// How long an opener waits for another's recovery (a journal merge) before giving up.
    private let recoveryWait: TimeInterval = 120

    static func key(for cassette: URL) -> String {
        cassette.standardizedFileURL.path
    }

    /// Takes a hold of `kind`; returns true when the caller must recover the journal (it holds the
    /// cassette alone until ``finishRecovery(_:)`` or, for a recorder, until release).
    func acquire(_ key: String, as kind: Kind, file: String) throws(CassetteError) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        waitOutRecovery(key)
        switch (table[key], kind) {
        case (nil, .recorder):
            table[key] = .recorder
            return true
        case (nil, .recoveringReader):
            table[key] = .recovering
            return true
        case (nil, .reader):
            table[key] = .readers(1)
            return false
        case let (.readers(count)?, .reader), let (.readers(count)?, .recoveringReader):
            // Whoever opened it first recovered it.
            table[key] = .readers(count + 1)
            return false
        case (.readers?, .recorder):
            throw CassetteError(
                .io, file: file, reason: "other tests in this process are replaying this cassette while this one would record it",
                hint: "tests that record a cassette cannot share it meanwhile: record it first, give each test its own cassette, or mark the suite .serialized")
        case (.recorder?, _), (.recovering?, _):
            throw CassetteError(
                .io, file: file, reason: "another recorder in this process is recording this cassette",
                hint: "tests that record the same cassette cannot run at the same time: give each its own cassette, record it first, or mark the suite .serialized "
                    + "(or a Tape on it was never finished: call finish() on every Tape you make)")
        }
    }

    /// A recovering reader is done: it becomes an ordinary reader, and waiting openers go on.
    func finishRecovery(_ key: String) {
        condition.lock()
        defer { condition.unlock() }
        if case .recovering = table[key] { table[key] = .readers(1) }
        condition.broadcast()
    }

    func release(_ key: String, exclusive: Bool) {
        condition.lock()
        defer { condition.unlock() }
        switch table[key] {
        case let .readers(count)? where !exclusive:
            table[key] = count > 1 ? .readers(count - 1) : nil
        case .recorder? where exclusive:
            table[key] = nil
        default:
            break
        }
        condition.broadcast()
    }

    /// For a recovery outside any recorder: true (and the cassette held alone) when nobody holds it.
    func beginRecovery(_ key: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        waitOutRecovery(key)
        guard table[key] == nil else { return false }
        table[key] = .recovering
        return true
    }

    /// Waits (with `condition` locked) while another opener recovers `key`, at most `recoveryWait`;
    /// a recovery that outlasts it is then treated as a hold like any other.
    private func waitOutRecovery(_ key: String) {
        let giveUp = Date(timeIntervalSinceNow: recoveryWait)
        while case .recovering = table[key] {
            if !condition.wait(until: giveUp) { return }
        }
    }

    func endRecovery(_ key: String) {
        condition.lock()
        defer { condition.unlock() }
        table[key] = nil
        condition.broadcast()
    }
}
