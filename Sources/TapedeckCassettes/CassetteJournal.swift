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
/// and fsynced before `append` returns; gzip members concatenate, so the journal is itself a valid
/// `.gz` file. `finish` merges it into the cassette with an atomic write and deletes it. If the
/// process dies first (even SIGKILL), ``recover(cassette:)`` — which opening a cassette for
/// replay or recording calls — brings back every interaction whose append had returned; a member
/// cut off by the kill is dropped.
public final class CassetteJournal: Sendable {
    public let cassetteURL: URL
    public var journalURL: URL { Self.journalURL(for: cassetteURL) }
    private let descriptor: Mutex<Int32>

    public static func journalURL(for cassette: URL) -> URL {
        cassette.deletingLastPathComponent().appendingPathComponent(cassette.lastPathComponent + ".journal")
    }

    /// Opens (creating if needed) the journal of `cassette` for appending.
    public init(cassette: URL) throws(CassetteError) {
        cassetteURL = cassette
        let path = Self.journalURL(for: cassette).path
        let opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw CassetteFile.ioError(path, "cannot open the journal") }
        descriptor = Mutex(opened)
    }

    deinit {
        descriptor.withLock { if $0 >= 0 { close($0) } }
    }

    /// Appends one interaction durably (written and fsynced when this returns).
    public func append(_ interaction: Interaction) throws(CassetteError) {
        var line = HARCodec.encodeJSON(HARCodec.entry(for: interaction), pretty: false)
        line.append(0x0A)
        let member: Data
        do {
            member = try Zlib.compress(line, format: .gzip, level: 1)
        } catch {
            preconditionFailure("tapedeck: gzip of an in-memory buffer failed: \(error)")
        }
        let path = journalURL.path
        try descriptor.withLock { (descriptor: inout Int32) throws(CassetteError) in
            guard descriptor >= 0 else {
                throw CassetteError(.io, file: path, reason: "the journal is already finished")
            }
            try CassetteFile.writeAll(descriptor, member, path: path)
            guard fsync(descriptor) == 0 else { throw CassetteFile.ioError(path, "fsync failed") }
        }
    }

    /// Closes the journal, writes `base` plus everything journalled to the cassette atomically,
    /// and deletes the journal. Returns the cassette as written.
    @discardableResult
    public func finish(base: Cassette, options: HARCodec.WriteOptions = .init()) throws(CassetteError) -> Cassette {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
        let journalled = try Self.read(journalURL)
        var cassette = base
        cassette.interactions += journalled.interactions
        try CassetteFile.write(cassette, to: cassetteURL, options: options)
        unlink(journalURL.path)
        CassetteFile.syncDirectory(cassetteURL.deletingLastPathComponent().path)
        return cassette
    }

    /// What a journal holds: the complete interactions, and how many bytes at its end were cut off.
    public struct Contents: Sendable {
        public var interactions: [Interaction]
        public var droppedBytes: Int
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
        let (members, validBytes, _) = Zlib.decompressMembers(data)
        var interactions: [Interaction] = []
        let decoder = JSONDecoder()
        for (position, member) in members.enumerated() {
            // A member is complete (its gzip trailer checked out), so a bad line is real damage.
            let entry: HAREntry
            do {
                entry = try decoder.decode(HAREntry.self, from: member)
            } catch {
                throw CassetteError(.json, file: url.path, place: "journal record \(position)", reason: "not a HAR entry: \(error)",
                                    hint: "move the journal aside to keep the rest of the cassette usable")
            }
            interactions.append(try HARCodec.interaction(from: entry, position: position, file: url.path))
        }
        return Contents(interactions: interactions, droppedBytes: data.count - validBytes)
    }

    /// What ``recover(cassette:)`` did.
    public struct Recovery: Hashable, Sendable {
        /// Interactions brought back from the journal.
        public var recovered: Int
        /// Bytes of a record the interruption cut off (lost).
        public var droppedBytes: Int
    }

    /// Merges a journal left by an interrupted recording into its cassette (atomically) and
    /// deletes it. Returns nil when there was no journal.
    @discardableResult
    public static func recover(cassette: URL) throws(CassetteError) -> Recovery? {
        let journal = journalURL(for: cassette)
        guard FileManager.default.fileExists(atPath: journal.path) else { return nil }
        let contents = try read(journal)
        var base = FileManager.default.fileExists(atPath: cassette.path) ? try CassetteFile.read(cassette) : Cassette()
        base.interactions += contents.interactions
        try CassetteFile.write(base, to: cassette)
        unlink(journal.path)
        CassetteFile.syncDirectory(cassette.deletingLastPathComponent().path)
        return Recovery(recovered: contents.interactions.count, droppedBytes: contents.droppedBytes)
    }
}
