public import Foundation
import TapedeckHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Reading a journal and recovering an interrupted recording from it: what a journal holds, its
// damage told apart from a crash's torn tail, merged into the cassette and set aside.

extension CassetteJournal {
    /// What a journal holds: the complete interactions, and how many bytes at its end were cut off.
    public struct Contents: Sendable {
        /// Every complete interaction, in order.
        public var interactions: [Interaction]
        /// Bytes that did not form a complete record: a write cut by a crash at the end, and
        /// ``damagedBytes`` within.
        public var droppedBytes: Int
        /// Complete records that cannot be replayed, and why (kept in the journal's `.damaged` copy).
        public var skipped: [SkippedEntry] = []
        /// Bytes inside the journal that formed no record (damage on disk): the records after
        /// them were read again from the next record's start.
        public var damagedBytes = 0
    }

    /// Reads a journal (missing: empty).
    public static func read(_ url: URL) throws(CassetteError) -> Contents {
        guard FileManager.default.fileExists(atPath: url.path) else { return Contents(interactions: [], droppedBytes: 0) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CassetteError(.io, file: url.path, reason: "cannot read the journal: \(error.localizedDescription)")
        }
        // Each record is a gzip member. Damage inside (a bad sector, a stray write) ends a run of
        // members; the records after it are read again from the next member's start, so one bad
        // record does not strand the rest. Past the size limit the rest counts as damaged: kept
        // aside as `.damaged`, never lost.
        var members: [Data] = []
        var offset = 0
        var damaged = 0
        var decoded = 0
        while offset < data.count {
            let (found, validBytes, error) = Zlib.decompressMembers(data[offset...], limit: CassetteFile.maximumJSONSize - decoded)
            members += found
            decoded += found.reduce(0) { $0 + $1.count }
            offset += validBytes
            guard offset < data.count, error?.exceededLimit != true,
                  let next = nextMemberStart(in: data, after: offset) else { break }
            damaged += next - offset
            offset = next
        }
        var interactions: [Interaction] = []
        var skipped: [SkippedEntry] = []
        let decoder = JSONDecoder()
        for (position, member) in members.enumerated() {
            // A member is complete (its gzip trailer checked out), so a bad line is real damage:
            // left out (the journal goes aside as `.damaged`), not allowed to strand the rest.
            let entry: HAREntry
            do {
                entry = try decoder.decode(HAREntry.self, from: member)
            } catch {
                skipped.append(SkippedEntry(position: position, method: "?", url: "(unreadable journal record)", error: CassetteError(
                    .json, file: url.path, place: "journal record \(position)", reason: "not a HAR entry: \(Self.firstLine(of: error))")))
                continue
            }
            do {
                interactions.append(try HARCodec.interaction(from: entry, position: position, file: url.path))
            } catch {
                // A record that reads but cannot replay (an upgrade an older recorder kept) is
                // left out, not allowed to strand the records beside it; the journal is kept
                // aside (`.damaged`) when merged, so its bytes are not lost.
                skipped.append(SkippedEntry(position: position, method: entry.request.method, url: entry.request.url, error: error))
            }
        }
        return Contents(interactions: interactions, droppedBytes: damaged + data.count - offset, skipped: skipped, damagedBytes: damaged)
    }

    /// Where the next gzip member (`1f 8b 08`) starts after the damaged byte at `offset`.
    static func nextMemberStart(in data: Data, after offset: Int) -> Int? {
        let magic = Data([0x1F, 0x8B, 0x08])
        guard offset + 1 < data.count else { return nil }
        return data.range(of: magic, in: (data.startIndex + offset + 1)..<data.endIndex).map { $0.lowerBound - data.startIndex }
    }

    /// A decoding error's text without Swift's dump of its context.
    private static func firstLine(of error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error { return context.debugDescription }
        if case let DecodingError.keyNotFound(key, _) = error { return "no '\(key.stringValue)'" }
        if case let DecodingError.typeMismatch(_, context) = error {
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        }
        return "\(error)"
    }

    /// What ``recover(cassette:)`` did.
    public struct Recovery: Hashable, Sendable {
        /// Interactions brought back from the journal.
        public var recovered: Int
        /// Bytes of a record the interruption cut off (lost).
        public var droppedBytes: Int
        /// Records that could not be replayed, left out (the journal is kept aside as `.damaged`).
        public var skipped: [SkippedEntry] = []
        /// Where the journal was kept aside (a damaged one), nil when it was deleted.
        public var keptAside: String?
        /// Bytes inside the journal that formed no record (damage on disk); the records after
        /// them were recovered.
        public var damagedBytes = 0
        /// Entries the cassette held before (the recovered ones come after them).
        public var earlier = 0

        /// What an opener says of the recovery: how many interactions it brought back, what it
        /// could not, and where a damaged journal went.
        ///
        /// ```swift
        /// recovery.summary(by: "tapedeck serve")
        /// // "tapedeck serve: recovered 3 interactions from the journal of an interrupted recording"
        /// ```
        public func summary(by opener: String) -> String {
            var line = "\(opener): recovered \(recovered) interaction\(recovered == 1 ? "" : "s") from the journal of an interrupted recording"
            if damagedBytes > 0 { line += "; \(damagedBytes) damaged bytes inside it were skipped (the records after them were recovered)" }
            if droppedBytes > 0 { line += "; its last \(droppedBytes) bytes were a cut-off record" }
            if !skipped.isEmpty { line += "; \(skipped.count) record(s) could not be read" }
            if let keptAside { line += " (the journal is kept as \(keptAside))" }
            if earlier > 0, recovered > 0 {
                // An interrupted `--mode all` replaces nothing: its new entries follow the old ones.
                line += "; they follow the cassette's \(earlier) earlier entr\(earlier == 1 ? "y" : "ies"), which replays answer first "
                    + "(if that recording was --mode all, record again with --mode all to replace them)"
            }
            return line
        }
    }

    /// The pid of another process recording `cassette` right now (0 when it wrote none), nil when
    /// none is: its journal is live, and openers leave it alone.
    ///
    /// ```swift
    /// if let pid = CassetteJournal.liveRecorder(of: url) { print("pid \(pid) is recording it") }
    /// ```
    public static func liveRecorder(of cassette: URL) -> Int? {
        CassetteLock.recorder(of: cassette)
    }

    /// Merges a journal left by an interrupted recording into its cassette (atomically) and
    /// deletes it. Returns nil when there was no journal — or when a recorder in this process or
    /// another (holding `<cassette>.lock`) is using the cassette (its journal is live, not left over), or
    /// another opener is recovering it.
    @discardableResult
    public static func recover(cassette: URL) throws(CassetteError) -> Recovery? {
        let key = CassetteHolds.key(for: cassette)
        guard CassetteHolds.shared.beginRecovery(key) else { return nil }
        defer { CassetteHolds.shared.endRecovery(key) }
        return try recoverHeld(cassette: cassette)
    }

    /// ``recover(cassette:)`` for a caller that already holds the cassette alone in this process;
    /// `lockedByCaller`: it holds the ``CassetteLock`` too (a recorder), else a journal another
    /// process holds is left alone.
    @discardableResult
    static func recoverHeld(cassette: URL, lockedByCaller: Bool = false) throws(CassetteError) -> Recovery? {
        let journal = journalURL(for: cassette)
        guard FileManager.default.fileExists(atPath: journal.path) else { return nil }
        // Held for the merge, so that a recorder starting meanwhile waits instead of opening a
        // journal this merge would then delete; one recording now keeps its journal.
        var held: CassetteLock?
        if !lockedByCaller {
            do {
                held = try CassetteLock.acquire(for: cassette, patient: false)
            } catch {
                return nil
            }
            // No lock file could be made (a read-only place): only a look is possible.
            if held == nil, CassetteLock.recorder(of: cassette) != nil { return nil }
        }
        defer { held?.release() }
        // A recorder that held the lock a moment ago may have merged it already.
        guard FileManager.default.fileExists(atPath: journal.path) else { return nil }
        let base = FileManager.default.fileExists(atPath: cassette.path) ? try CassetteFile.read(cassette) : Cassette()
        let contents = try read(journal)
        let merged = merge(base, contents.interactions)
        try CassetteFile.write(merged, to: cassette)
        let aside = retire(journal, damaged: contents.droppedBytes > 0 || !contents.skipped.isEmpty)
        return Recovery(recovered: merged.interactions.count - base.interactions.count, droppedBytes: contents.droppedBytes - contents.damagedBytes,
                        skipped: contents.skipped, keptAside: aside, damagedBytes: contents.damagedBytes, earlier: base.interactions.count)
    }

    /// The cassette `base` (read from `cassette`, or empty when that file does not exist yet) as it
    /// will be once its journal is merged — without merging, writing or deleting anything: what a
    /// read-only tool shows after an interrupted recording. `added` counts the journal's
    /// interactions the cassette lacks; `droppedBytes`, a torn record at the journal's end.
    ///
    /// ```swift
    /// let (whole, added, _) = try CassetteJournal.preview(cassette: url, base: Cassette())
    /// print("\(added) interactions wait in the journal")
    /// ```
    public static func preview(cassette: URL, base: Cassette) throws(CassetteError) -> (merged: Cassette, added: Int, droppedBytes: Int) {
        let contents = try read(journalURL(for: cassette))
        var merged = merge(base, contents.interactions)
        merged.skipped = base.skipped + contents.skipped
        return (merged, merged.interactions.count - base.interactions.count, contents.droppedBytes)
    }

    /// `base` plus the journalled interactions it does not hold yet (by `_index`): merging twice —
    /// a crash between writing the cassette and deleting the journal — adds nothing the second time.
    static func merge(_ base: Cassette, _ journalled: [Interaction]) -> Cassette {
        var merged = base
        var present = Set(base.interactions.map(\.index))
        // Appends may reach the journal out of order (live answers finish when they finish).
        for interaction in journalled.sorted(by: { $0.index < $1.index }) where present.insert(interaction.index).inserted {
            merged.interactions.append(interaction)
        }
        return merged
    }

    /// Deletes a merged journal; one whose tail was damaged is kept beside it as `.damaged` (or
    /// `.damaged.1`, `.damaged.2`… when an earlier crash left one: each is kept), so no byte is
    /// lost for good.
    @discardableResult
    static func retire(_ journal: URL, damaged: Bool) -> String? {
        var aside: String?
        if damaged {
            let copy = damagedCopy(of: journal)
            if rename(journal.path, copy) == 0 { aside = copy }
        } else {
            unlink(journal.path)
        }
        CassetteFile.syncDirectory(journal.deletingLastPathComponent().path)
        return aside
    }

    /// The first of `<journal>.damaged`, `<journal>.damaged.1`, … that does not exist yet.
    static func damagedCopy(of journal: URL) -> String {
        let first = journal.path + ".damaged"
        var candidate = first
        var number = 0
        while FileManager.default.fileExists(atPath: candidate) {
            number += 1
            candidate = first + ".\(number)"
        }
        return candidate
    }
}
