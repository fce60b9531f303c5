import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import TapedeckCassettes

/// Cassettes read once and kept, for a runner or worker that runs many seeds of one scenario. A
/// `Cassette` is an immutable value; each run still builds its own `CassettePlayer` (which holds
/// what the run consumed), so nothing a run changes is kept. A file that changed since it was read
/// (re-recorded, edited: another inode, size or modification time) is read again.
final class CassetteCache: Sendable {
    private struct Entry {
        let stamp: Stamp
        let cassette: Cassette
    }

    /// What identifies the bytes that were read, short of reading them again: cassettes are
    /// written to a temporary file and renamed into place, so a rewrite is a new file (inode) even
    /// when its size and modification time (coarse on some file systems) match the old one's.
    private struct Stamp: Equatable {
        let file: UInt64
        let size: Int64
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int

        /// One `stat` call: `FileManager.attributesOfItem` also looks up the owner's and group's
        /// names (reading /etc/passwd and /etc/group) and the extended attributes, on every run.
        init?(_ url: URL) {
            var info = stat()
            guard stat(url.path, &info) == 0 else { return nil }
            file = UInt64(info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            let modified = info.st_mtimespec
            #else
            let modified = info.st_mtim
            #endif
            modifiedSeconds = Int(modified.tv_sec)
            modifiedNanoseconds = Int(modified.tv_nsec)
        }
    }

    private let loaded = Mutex<[URL: Entry]>([:])

    /// The cassette at `url`, read (after recovering an interrupted recording's journal) on first
    /// use and whenever the file changed since.
    func cassette(at url: URL) throws(CassetteError) -> Cassette {
        try CassetteJournal.recover(cassette: url)
        let stamp = Stamp(url)
        if let stamp, let entry = loaded.withLock({ $0[url] }), entry.stamp == stamp { return entry.cassette }
        let cassette = try CassetteFile.read(url)
        if let stamp { loaded.withLock { $0[url] = Entry(stamp: stamp, cassette: cassette) } }
        return cassette
    }
}
