import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A recorder's hold on its cassette across processes: an advisory lock (`flock`) on
/// `<cassette>.lock`, taken when a recorder that may write opens the cassette and let go (the
/// file deleted) when it finishes. ``CassetteHolds`` keeps recorders of one process apart; this
/// keeps a second `tapedeck record` — or a `tapedeck serve`, a test run, a `cassette` command —
/// from merging or replacing a journal another process is still writing. A recorder killed
/// mid-recording leaves the file unlocked (the kernel lets go of its locks), so the next opener
/// recovers the journal as usual.
///
/// ```swift
/// let lock = try CassetteLock.acquire(for: cassette)   // throws when another process records it
/// defer { lock?.release() }
/// ```
final class CassetteLock: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is written once more, by `release()`, under `released`.
    private var descriptor: Int32
    private let path: String
    private let released = NSLock()

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        release()
    }

    /// The lock file of `cassette`.
    static func url(for cassette: URL) -> URL {
        cassette.deletingLastPathComponent().appendingPathComponent(cassette.lastPathComponent + ".lock")
    }

    /// Takes the lock for a recorder, or throws when another process holds it (naming its pid).
    /// Nil when the lock file cannot be made at all (an unwritable directory): the recorder's own
    /// checks then say what is wrong with the place. `patient`: a hold that ends within about a
    /// tenth of a second (a reader's look, a short recovery) is waited out, not reported.
    static func acquire(for cassette: URL, patient: Bool = true) throws(CassetteError) -> CassetteLock? {
        let path = url(for: cassette).path
        var waits = patient ? 10 : 0
        // A lock file deleted by its finishing holder between our open and our lock is not the
        // lock any more: try again with the file now at the path.
        for _ in 0..<8 {
            var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            // Another user's lock file: it can still be locked (flock needs no write access).
            if descriptor < 0, errno == EACCES { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
            guard descriptor >= 0 else { return nil }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                guard waits > 0 else {
                    let holder = Self.holder(descriptor)
                    close(descriptor)
                    throw CassetteError(
                        .io, file: cassette.path,
                        reason: "another process\(holder.map { " (pid \($0))" } ?? "") is recording this cassette (it holds \(path))",
                        hint: "stop that recording first, or record into another cassette; two recorders would overwrite each other's entries")
                }
                waits -= 1
                usleep(10_000)   // real files and other processes: this is not the simulated path
            }
            var held = stat(), current = stat()
            guard fstat(descriptor, &held) == 0, stat(path, &current) == 0, held.st_ino == current.st_ino, held.st_dev == current.st_dev else {
                close(descriptor)
                continue
            }
            let pid = Array("\(getpid())\n".utf8)
            if ftruncate(descriptor, 0) == 0 {
                _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            }
            return CassetteLock(descriptor: descriptor, path: path)
        }
        return nil
    }

    /// The pid of the process recording `cassette` now, or nil when none is (no lock file, or
    /// nobody holds it). `0` when a holder wrote no pid.
    static func recorder(of cassette: URL) -> Int? {
        let descriptor = open(url(for: cassette).path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return holder(descriptor) ?? 0
    }

    /// The pid written in an open lock file, if any.
    private static func holder(_ descriptor: Int32) -> Int? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int(String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Deletes the lock file and lets go of the lock (once; later calls do nothing).
    func release() {
        released.lock()
        defer { released.unlock() }
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }
}
