/// Why a cassette could not be read or written: which file, where in it, what is wrong, and what
/// to do. Reading never changes a file; a failed write leaves the previous file as it was.
public struct CassetteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: String, Hashable, Sendable {
        /// An input file is missing or cannot be read (bad input, from the user's side).
        case unreadable
        /// A file could not be written, or another I/O failure (disk full, permissions).
        case io
        /// The gzip stream is corrupt or ends early.
        case compression
        /// The bytes are not valid JSON, or JSON without the HAR shape.
        case json
        /// The HAR version or Tapedeck's format version is not one this build reads.
        case version
        /// An entry is missing a field or holds a value that cannot be used (bad URL, bad base64).
        case entry
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The file's path.
    public let file: String
    /// Where: "entry 3 (response.content.text)", "byte 1024", "line 12, column 5"; empty when it is the whole file.
    public let place: String
    /// What is wrong.
    public let reason: String
    /// What the user can do about it.
    public let hint: String

    /// An error about `file`, at `place` (empty: the whole file), with a `hint` for the user.
    public init(_ kind: Kind, file: String, place: String = "", reason: String, hint: String = "") {
        self.kind = kind
        self.file = file
        self.place = place
        self.reason = reason
        self.hint = hint
    }

    /// True for problems with the file's contents (bad input), false for I/O failures.
    public var isBadInput: Bool { kind != .io }

    /// `file, place: reason — hint`, the form the CLI prints.
    public var description: String {
        var text = file
        if !place.isEmpty { text += ", \(place)" }
        text += ": \(reason)"
        if !hint.isEmpty { text += " — \(hint)" }
        return text
    }
}
