public import Foundation

// What a recorder is made of beside its lifecycle: the check of where it may write, and what it
// reports when it finishes.

extension CassetteRecorder {
    /// Refuses a cassette whose journal could not be written beside it (an unwritable directory,
    /// a file in the way, a missing directory unless `creatingDirectories`: then the nearest one
    /// that exists must be writable, as the journal creates the rest), so that no request is
    /// forwarded before that is found out.
    ///
    /// ```swift
    /// try CassetteRecorder.checkWritable(URL(fileURLWithPath: "recordings/api.har.gz"))
    /// ```
    public static func checkWritable(_ cassette: URL, creatingDirectories: Bool = false) throws(CassetteError) {
        // `..` resolved first: the parent of `missing/..` is itself, and the walk up would never end.
        var directory = cassette.standardizedFileURL.deletingLastPathComponent()
        if creatingDirectories {
            while !FileManager.default.fileExists(atPath: directory.path) {
                let up = directory.deletingLastPathComponent()
                if up.path == directory.path { break }
                directory = up
            }
        }
        var isDirectory: ObjCBool = false
        let hint = "create the directory, or record into a cassette in a writable directory"
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw CassetteError(.unreadable, file: cassette.path, reason: "cannot record here: the directory \(directory.path) does not exist", hint: hint)
        }
        guard isDirectory.boolValue else {
            throw CassetteError(.unreadable, file: cassette.path, reason: "cannot record here: \(directory.path) is a file, not a directory", hint: hint)
        }
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw CassetteError(.unreadable, file: cassette.path, reason: "cannot record here: the directory \(directory.path) is not writable", hint: hint)
        }
    }
}

extension CassetteRecorder {
    /// What a recorder did, from ``finish(succeeded:)``.
    public struct Summary: Sendable {
        /// Requests answered from the cassette.
        public var replayed: Int
        /// Requests recorded from the live network.
        public var recorded: Int
        /// Requests sent live without recording (passthrough playback).
        public var passedThrough: Int
        /// Requests nothing answered, each explained (closest entries and why they differ).
        public var misses: [String]
        /// Recorded interactions nobody asked for.
        public var unplayed: [Interaction]
        /// Transport errors (refused, timed out...) that were recorded as answers, and responses
        /// that broke off mid-body: a first recording made while a server was down keeps
        /// answering "down" until re-recorded.
        public var recordedFailures: [String]
        /// The cassette as written, or nil when nothing had to be written.
        public var written: Cassette?
        /// Records journalled and the fsyncs that wrote them (nil: nothing was journalled).
        public var journal: CassetteJournal.Statistics?
    }
}

extension CassetteRecorder {
    /// When this recorder adds to (or replaces) a cassette another tool wrote, what the rewrite
    /// costs it, in a sentence; nil for a new cassette, one Tapedeck wrote, or one only replayed.
    /// The merged file is Tapedeck's HAR: the entries are kept, but what Tapedeck does not read
    /// (the pages, the browser, per-entry fields such as `pageref`, `serverIPAddress`,
    /// `connection` and other tools' `_` fields) is not written back.
    ///
    /// ```swift
    /// if let warning = recorder.foreignFileWarning { print("warning: " + warning) }
    /// ```
    public var foreignFileWarning: String? {
        guard isRecording, !base.interactions.isEmpty, base.creator.lowercased() != "tapedeck" else { return nil }
        let writer = base.creatorVersion.isEmpty ? base.creator : "\(base.creator) \(base.creatorVersion)"
        // `all` replaces the entries themselves when it passes (and keeps them when it fails).
        let entries = options.mode == .all ? "its entries are replaced by a passing recording" : "its entries are kept"
        return "\(cassetteURL.lastPathComponent) was written by \(writer); recording into it rewrites it as Tapedeck's HAR: \(entries), "
            + "but its pages, browser and the fields Tapedeck does not read (pageref, serverIPAddress, connection, "
            + "other tools' _ fields) are not kept; record into a copy to keep the original as it is"
    }
}
