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
    /// Records whose JSON line is shorter than this many bytes are stored in their gzip member
    /// uncompressed (deflate's stored blocks); longer ones are compressed (level 1).
    public static let storedRecordLimit = 16 * 1024

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
    /// A line under ``storedRecordLimit`` bytes is stored, not compressed: zlib's set-up per member
    /// cost a recording proxy an eighth of its CPU for lines of a kilobyte or two, which compress to
    /// half that. The finished cassette is compressed whole either way.
    private func member(for interaction: Interaction) -> Data {
        var line = HARFastWriter.encode(HARCodec.entry(for: redactor.redact(interaction)))
        line.append(0x0A)
        if line.count < Self.storedRecordLimit { return Zlib.storedGzipMember(line) }
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
}
