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
        /// What players of the cassette under each source's matching rules share.
        var prepared: [Rules: CassettePlayer.Prepared] = [:]
    }

    /// The matching rules a scenario's cassette source asks for, as a key.
    private struct Rules: Hashable {
        let url: MatchRules.URLRule
        let body: MatchRules.BodyRule
        let headers: [String]
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
            // A folder (WireMock's) changes in its files, which its own stamp does not show: never kept.
            guard stat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else { return nil }
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
        try current(url).cassette
    }

    /// The cassette at `url` and the stamp of the version it is (nil: the file could not be
    /// stat'ed, so nothing about it is kept).
    private func current(_ url: URL) throws(CassetteError) -> (cassette: Cassette, stamp: Stamp?) {
        try CassetteJournal.recover(cassette: url)
        let stamp = Stamp(url)
        if let stamp, let entry = loaded.withLock({ $0[url] }), entry.stamp == stamp { return (entry.cassette, stamp) }
        let cassette = try CassetteFile.read(url, foreign: .convert)
        if let stamp { loaded.withLock { $0[url] = Entry(stamp: stamp, cassette: cassette) } }
        return (cassette, stamp)
    }

    /// A fresh player of the cassette `source` names, its redacted requests and indexes worked
    /// out once per file version and rules, not per run.
    func player(for source: CassetteSource) throws(CassetteError) -> CassettePlayer {
        let (cassette, stamp) = try current(source.url)
        let key = Rules(url: source.urlRule, body: source.bodyRule, headers: source.headers)
        // Only what was worked out from this very version of the file is shared.
        let shared = stamp.flatMap { stamp in loaded.withLock { $0[source.url].flatMap { $0.stamp == stamp ? $0.prepared[key] : nil } } }
        let prepared = shared ?? CassettePlayer.Prepared(cassette: cassette, rules: source.rules, redactor: Redactor())
        if shared == nil, let stamp {
            loaded.withLock { entries in
                if entries[source.url]?.stamp == stamp { entries[source.url]?.prepared[key] = prepared }
            }
        }
        return CassettePlayer(prepared: prepared, afterLast: source.afterLast, source: source.url.path)
    }
}
