public import Foundation
import Synchronization
import TapedeckHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The append-only journal of a recording in progress: `<cassette>.journal` beside the cassette.
///
/// Each interaction is one gzip member holding one compact JSON line (a HAR entry), written whole
/// and fsynced before `append` returns (or, for the background `append(_:then:)`, before its
/// callback runs: concurrent appends share one write and one fsync); gzip members concatenate, so
/// the journal is itself a valid `.gz` file. `finish` merges it into the cassette with an atomic write and deletes it. If the
/// process dies first (even SIGKILL), ``recover(cassette:)`` — which opening a cassette for
/// replay or recording calls — brings back every interaction whose append had returned; a member
/// cut off by the kill is dropped.
public final class CassetteJournal: Sendable {
    /// The cassette this journal belongs to.
    public let cassetteURL: URL
    /// Where the journal is (beside the cassette).
    public var journalURL: URL { Self.journalURL(for: cassetteURL) }
    private let descriptor: Mutex<Int32>
    /// Background appends waiting for the next group commit, whether one is scheduled, and counts.
    private let commits = Mutex(Commits())
    private struct Commits {
        var pending: [(Data, @Sendable (CassetteError?) -> Void)] = []
        var scheduled = false
        var statistics = Statistics()
    }
    /// Runs group commits, one at a time.
    private let committer = DispatchQueue(label: "tapedeck.journal.commit")
    /// Applied to every interaction before it reaches the disk (redaction is on by default).
    public let redactor: Redactor

    /// The journal's path for `cassette`: the same name with a `.journal` suffix added.
    public static func journalURL(for cassette: URL) -> URL {
        cassette.deletingLastPathComponent().appendingPathComponent(cassette.lastPathComponent + ".journal")
    }

    /// Opens (creating if needed) the journal of `cassette` for appending. A record cut off at the
    /// end of an existing journal (an earlier crash) is trimmed first, so new records stay readable.
    public init(cassette: URL, redactor: Redactor = Redactor()) throws(CassetteError) {
        cassetteURL = cassette
        self.redactor = redactor
        let url = Self.journalURL(for: cassette)
        let path = url.path
        // A first recording may be the first file of its directory.
        try? FileManager.default.createDirectory(at: cassette.deletingLastPathComponent(), withIntermediateDirectories: true)
        let opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw CassetteFile.ioError(path, "cannot open the journal") }
        if let existing = try? Data(contentsOf: url), !existing.isEmpty {
            let valid = Zlib.decompressMembers(existing).validBytes
            if valid < existing.count, Self.nextMemberStart(in: existing, after: valid) != nil {
                // Damage inside, records after it: trimming would destroy them; recovery reads them.
                close(opened)
                throw CassetteError(.io, file: path, reason: "the journal has damaged bytes at byte \(valid) with records after them",
                                    hint: "recover it first (CassetteJournal.recover(cassette:), or start tapedeck record or serve on the cassette): the records after the damage are kept")
            }
            if valid < existing.count && ftruncate(opened, off_t(valid)) != 0 {
                close(opened)
                throw CassetteFile.ioError(path, "cannot trim a cut-off record")
            }
        }
        descriptor = Mutex(opened)
    }

    deinit {
        descriptor.withLock { if $0 >= 0 { close($0) } }
    }

    /// Appends one interaction durably (written and fsynced when this returns).
    public func append(_ interaction: Interaction) throws(CassetteError) {
        try writeDurably(member(for: interaction), records: 1)
    }

    /// How many records reached the disk, in how many fsyncs.
    public struct Statistics: Hashable, Sendable {
        /// Interactions written and fsynced.
        public var records = 0
        /// fsyncs that wrote them (fewer than `records` when group commits batched appends).
        public var fsyncs = 0

        /// Counts of records and fsyncs.
        public init(records: Int = 0, fsyncs: Int = 0) {
            self.records = records
            self.fsyncs = fsyncs
        }
    }

    /// How many records reached the disk so far, in how many fsyncs.
    public var statistics: Statistics {
        commits.withLock { $0.statistics }
    }

    /// Appends one interaction durably in the background and calls `done` once it is written and
    /// fsynced (`nil`) or could not be (the error; nothing of it is left in the journal).
    ///
    /// Group commit: the interaction is encoded and compressed on the caller's thread, then appends
    /// that arrive while a write is under way go to disk together, one `write` and one `fsync` for
    /// the lot — so many concurrent recordings cost one fsync per batch, not one each, and no
    /// caller's thread waits for the disk. `done` runs on the journal's own queue, in append order.
    public func append(_ interaction: Interaction, then done: @escaping @Sendable (CassetteError?) -> Void) {
        let member = member(for: interaction)
        let schedule = commits.withLock { commits -> Bool in
            commits.pending.append((member, done))
            defer { commits.scheduled = true }
            return !commits.scheduled
        }
        if schedule { committer.async { self.commitPending() } }
    }

    /// Writes batches until nothing is pending (on `committer`).
    private func commitPending() {
        while true {
            let batch = commits.withLock { commits in
                defer { commits.pending.removeAll(keepingCapacity: true) }
                if commits.pending.isEmpty { commits.scheduled = false }
                return commits.pending
            }
            guard !batch.isEmpty else { return }
            var bytes = Data(capacity: batch.reduce(0) { $0 + $1.0.count })
            for (member, _) in batch { bytes.append(member) }
            var failure: CassetteError?
            do throws(CassetteError) {
                try writeDurably(bytes, records: batch.count)
            } catch {
                failure = error
            }
            for (_, done) in batch { done(failure) }
        }
    }

    /// One journal record: the redacted HAR entry as a JSON line, in a gzip member of its own.
    private func member(for interaction: Interaction) -> Data {
        var line = HARFastWriter.encode(HARCodec.entry(for: redactor.redact(interaction)))
        line.append(0x0A)
        do {
            return try Zlib.compress(line, format: .gzip, level: 1)
        } catch {
            preconditionFailure("tapedeck: gzip of an in-memory buffer failed: \(error)")
        }
    }

    /// Writes whole records and fsyncs; on failure the journal is cut back to where it was.
    private func writeDurably(_ bytes: Data, records: Int) throws(CassetteError) {
        let path = journalURL.path
        try descriptor.withLock { (descriptor: inout Int32) throws(CassetteError) in
            guard descriptor >= 0 else {
                throw CassetteError(.io, file: path, reason: "the journal is already finished")
            }
            let size = lseek(descriptor, 0, SEEK_END)
            do throws(CassetteError) {
                try CassetteFile.writeAll(descriptor, bytes, path: path)
                guard fsync(descriptor) == 0 else { throw CassetteFile.ioError(path, "fsync failed") }
            } catch {
                // Never leave half a record for later records to follow.
                if size >= 0 { _ = ftruncate(descriptor, size) }
                throw error
            }
        }
        commits.withLock {
            $0.statistics.records += records
            $0.statistics.fsyncs += 1
        }
    }

    /// Holds background commits back until ``resumeCommits()`` (tests use it to make a batch).
    package func suspendCommits() {
        committer.suspend()
    }

    /// Lets background commits run again after ``suspendCommits()``.
    package func resumeCommits() {
        committer.resume()
    }

    /// Waits until every background append made so far is on disk (or failed).
    public func flush() {
        committer.sync {}
    }

    /// Closes the journal, writes `base` plus everything journalled to the cassette atomically,
    /// and deletes the journal. Returns the cassette as written. With `replacing`, the cassette
    /// holds only what was journalled, renumbered from 0 (a re-recording).
    @discardableResult
    public func finish(base: Cassette, replacing: Bool = false, options: HARCodec.WriteOptions = .init()) throws(CassetteError) -> Cassette {
        flush()
        let wasOpen = descriptor.withLock { descriptor -> Bool in
            defer { descriptor = -1 }
            guard descriptor >= 0 else { return false }
            close(descriptor)
            return true
        }
        guard wasOpen else {
            throw CassetteError(.io, file: journalURL.path, reason: "the journal is already finished")
        }
        let journalled = try Self.read(journalURL)
        var cassette = Self.merge(replacing ? Cassette() : base,
                                  journalled.interactions)
        if replacing {
            for position in cassette.interactions.indices { cassette.interactions[position].index = position }
        }
        try CassetteFile.write(cassette, to: cassetteURL, options: options)
        let aside = Self.retire(journalURL, damaged: journalled.droppedBytes > 0 || !journalled.skipped.isEmpty)
        if journalled.droppedBytes > 0 {
            // Not a crash's torn tail (this recording is stopping normally): records past what a
            // cassette may hold, or damage. They are in the `.damaged` copy; nobody may think
            // the cassette holds them.
            throw CassetteError(
                .io, file: cassetteURL.path,
                reason: "the cassette holds \(cassette.interactions.count) interaction\(cassette.interactions.count == 1 ? "" : "s"), but "
                    + (journalled.damagedBytes > 0
                        ? "\(journalled.damagedBytes) bytes of the journal were damaged on disk"
                        : "the last \(journalled.droppedBytes) bytes of the journal did not fit (a cassette holds at most \(CassetteFile.maximumJSONSize / 1_048_576) MiB of JSON)")
                    + ": they are kept in \(aside ?? journalURL.path + ".damaged")",
                hint: "record large bodies into a cassette of their own")
        }
        cassette.skipped = journalled.skipped
        return cassette
    }

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
    private static func nextMemberStart(in data: Data, after offset: Int) -> Int? {
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
                        skipped: contents.skipped, keptAside: aside, damagedBytes: contents.damagedBytes)
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
