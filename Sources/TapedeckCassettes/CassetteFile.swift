public import Foundation
import Synchronization
import TapedeckHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing cassette files: plain `.har` or gzip-compressed `.har.gz` (the reader sniffs
/// the magic bytes, not the name). Writes are atomic: a temporary file in the same directory,
/// fsync, rename over the old file, fsync of the directory — a crash leaves the old file or the
/// new one, never a mix.
public enum CassetteFile {
    /// How a cassette file is stored.
    public enum Compression: String, Hashable, Sendable {
        /// gzip-compressed HAR (`.har.gz`).
        case gzip
        /// Plain HAR JSON (`.har`).
        case none

        /// gzip for names ending in `.gz` (in any case: `.HAR.GZ`), none otherwise.
        public static func forPath(_ path: String) -> Compression {
            path.lowercased().hasSuffix(".gz") ? .gzip : .none
        }
    }

    /// How the file at `url` is stored, by its first bytes (by its name when it cannot be read).
    public static func storedCompression(of url: URL) -> Compression {
        guard let handle = FileHandle(forReadingAtPath: url.path), let head = try? handle.read(upToCount: 2) else {
            return .forPath(url.path)
        }
        return Zlib.looksLikeGzip(head) ? .gzip : Compression.none
    }

    /// Reads the cassette at `url`. A journal left by an interrupted recording is not merged here;
    /// ``CassetteJournal/recover(cassette:)`` does that. Entries that cannot be replayed are
    /// skipped and listed in ``Cassette/skipped``, unless `strict` makes them an error. A file
    /// that is no HAR but another tool's cassette is read or refused as `foreign` says.
    ///
    /// ```swift
    /// let cassette = try CassetteFile.read(URL(fileURLWithPath: "cassettes/test_login.yaml"), foreign: .convert)
    /// ```
    public static func read(_ url: URL, strict: Bool = false, foreign: ForeignFiles = .refuse) throws(CassetteError) -> Cassette {
        if ForeignCassette.wireMockMappingsFolder(url) != nil {
            // A WireMock folder (mappings/ and __files/): its mappings, as one cassette.
            guard foreign == .convert else { throw refusal(of: url, format: .wiremock) }
            return try converted(ForeignCassette.loadWireMock(folder: url, keepingPatterns: true), strict: strict)
        }
        // A pipe gives its bytes once: they are kept for a second look. A file is read again,
        // only when it is no HAR (a HAR file's bytes are let go of while they are decoded).
        let kept = isStream(url.path) ? try contents(of: url) : nil
        func bytes() throws(CassetteError) -> Data {
            if let kept { return kept }
            return try contents(of: url)
        }
        do {
            return try decode(bytes(), file: url.path, strict: strict, attachments: url.deletingLastPathComponent())
        } catch where error.kind == .json {
            return try foreignOrNot(try? json(from: bytes(), file: url.path), url: url, strict: strict, foreign: foreign, harError: error).get()
        }
    }

    /// The file's bytes, or an error that says why not: missing, a directory, not readable.
    private static func contents(of url: URL) throws(CassetteError) -> Data {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if exists, isDirectory.boolValue {
            throw CassetteError(.unreadable, file: url.path, reason: "this is a directory, not a cassette file",
                                hint: "give the path of a .har or .har.gz file")
        }
        guard exists else {
            throw CassetteError(.unreadable, file: url.path, reason: "no such file", hint: "check the path")
        }
        do {
            if isStream(url.path) {
                // A named pipe or a descriptor (`inspect <(zcat old.har.gz)`): read as a stream.
                // No cassette is larger than the JSON it may hold: an endless device is refused.
                guard let data = try FileStream.read(atPath: url.path, limit: maximumJSONSize) else {
                    throw CassetteError(.unreadable, file: url.path, reason: "more than \(maximumJSONSize >> 20) MiB arrived from this pipe or device (or it never ends)",
                                        hint: "give the path of a .har or .har.gz file")
                }
                return data
            }
            return try Data(contentsOf: url)
        } catch let error as CassetteError {
            throw error
        } catch is FileStream.CannotOpen {
            throw CassetteError(.unreadable, file: url.path, reason: "cannot read: \(CocoaError(.fileReadNoPermission).localizedDescription)",
                                hint: "check the file's permissions")
        } catch {
            throw CassetteError(.unreadable, file: url.path, reason: "cannot read: \(error.localizedDescription)",
                                hint: "check the file's permissions")
        }
    }

    /// Decodes file contents: gzip (sniffed by magic bytes) or plain HAR JSON.
    /// A `.har.gz` that would inflate to more than `maximumJSONSize` bytes is refused. Bodies a HAR
    /// keeps in files of their own (Playwright's `_file`) are read from `attachments`.
    public static func decode(
        _ data: consuming Data, file: String, strict: Bool = false, maximumJSONSize: Int = maximumJSONSize, attachments: URL? = nil
    ) throws(CassetteError) -> Cassette {
        guard !data.isEmpty else {
            throw CassetteError(.json, file: file, reason: "the file is empty", hint: "delete it to record again, or restore it")
        }
        let json = try json(from: data, file: file, limit: maximumJSONSize)
        _ = consume data   // a plain file's bytes now live only in `json`, which the decoder frees early
        return try HARCodec.decode(consume json, file: file, strict: strict, attachments: attachments)
    }

    /// The HAR JSON inside `data`, decompressing when it is gzip or a zlib stream (mitmproxy's
    /// `.zhar`); containers it cannot open (a ZIP archive, a JSONP wrapper) are named in the error.
    static func json(from data: Data, file: String, limit: Int = maximumJSONSize) throws(CassetteError) -> Data {
        let format: Zlib.Format
        if Zlib.looksLikeGzip(data) {
            format = .gzip
        } else if looksLikeZlib(data) {
            format = .zlib
        } else {
            try refuseKnownContainers(data, file: file)
            return data
        }
        let name = format == .gzip ? "gzip" : "zlib"
        do {
            return try Zlib.decompress(data, format: format, sizeHint: format == .gzip ? gzipSizeHint(data) : 0, limit: limit)
        } catch let error as ZlibError where error.exceededLimit {
            throw CassetteError(.compression, file: file, place: "byte \(error.offset)",
                                reason: "the cassette inflates to more than \(limit) bytes, the most a cassette may hold",
                                hint: "a damaged or hostile file; restore it or re-record")
        } catch let error as ZlibError {
            throw CassetteError(.compression, file: file, place: "byte \(error.offset)",
                                reason: "the \(name) stream is damaged: \(error.detail ?? "zlib status \(error.status)")",
                                hint: "the file was cut or corrupted; restore it or re-record")
        } catch {
            throw CassetteError(.compression, file: file, reason: "\(error)")
        }
    }

    /// A zlib stream (RFC 1950) holding JSON: deflate with a window of at most 32 KiB (`0x78`),
    /// and a header check value making the first two bytes a multiple of 31. JSON never starts
    /// with `x`, so a HAR file cannot be mistaken for one.
    static func looksLikeZlib(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let first = data[data.startIndex], second = data[data.startIndex + 1]
        return first == 0x78 && (Int(first) << 8 | Int(second)) % 31 == 0
    }

    /// Files that hold a HAR in a form Tapedeck does not open itself: a clear error saying what
    /// the file is and how to get the HAR out, instead of "not valid JSON".
    static func refuseKnownContainers(_ data: Data, file: String) throws(CassetteError) {
        let head = Array(data.prefix(64))
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            throw CassetteError(.json, file: file, place: "byte 0",
                                reason: "this is a ZIP archive, not a HAR file (Playwright writes one for record_har_path ending in .zip)",
                                hint: "unzip it and read the HAR inside (Playwright stores it as har.har, with the bodies beside it)")
        }
        // JSONP: an identifier and "(" before the JSON (HAR Viewer's `onInputData({...})`).
        var index = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[index]) { index += 1 }
        let nameStart = index
        while index < head.count, head[index] == UInt8(ascii: "_") || head[index] == UInt8(ascii: "$") || head[index] == UInt8(ascii: ".")
                || (0x30...0x39).contains(head[index]) || (0x41...0x5A).contains(head[index]) || (0x61...0x7A).contains(head[index]) {
            index += 1
        }
        while index < head.count, [0x20, 0x09].contains(head[index]) { index += 1 }
        if index > nameStart, index < head.count, head[index] == UInt8(ascii: "(") {
            let name = String(decoding: head[nameStart..<index], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            throw CassetteError(.json, file: file, place: "byte \(nameStart)",
                                reason: "this is JSONP, a HAR wrapped in a call to \(name)(…) (HAR Viewer's .harp format), not plain HAR JSON",
                                hint: "remove '\(name)(' at the start and ')' at the end, and read the JSON that is left")
        }
    }

    /// The largest cassette JSON a `.har.gz` may inflate to (1 GiB): beyond it reading fails with
    /// a compression error instead of exhausting memory on a hostile or damaged file.
    public static let maximumJSONSize = 1 << 30

    /// The uncompressed size a gzip stream's trailer states (ISIZE, modulo 2³²) when it is
    /// plausible, so inflating allocates once instead of growing (peak memory of a load). Only a
    /// hint: a multi-member or damaged stream merely grows as usual.
    static func gzipSizeHint(_ data: Data) -> Int {
        guard data.count >= 18 else { return 0 }
        let tail = data.suffix(4)
        let size = tail.reversed().reduce(0) { $0 << 8 | Int($1) }
        // JSON cassettes compress 5–20×; a trailer claiming far more is not trusted with an
        // up-front allocation (the buffer then grows as the bytes really arrive).
        return size <= data.count * 64 ? size : 0
    }

    /// The HAR JSON text of the file at `url`, inflated when the file is compressed (within
    /// ``maximumJSONSize``): the bytes another tool wrote, with nothing read into a cassette.
    ///
    /// ```swift
    /// let json = try CassetteFile.jsonText(of: URL(fileURLWithPath: "api.har.gz"))
    /// ```
    public static func jsonText(of url: URL) throws(CassetteError) -> Data {
        try json(from: contents(of: url), file: url.path)
    }

    /// Encodes `cassette` as HAR JSON, gzip-compressed when asked.
    ///
    /// With gzip, the JSON is produced in pieces that a second thread compresses while the next
    /// piece is written (level 6; the bytes equal compressing the whole JSON at once), with at
    /// most a few pieces waiting, so the whole JSON never has to sit in memory.
    public static func encode(_ cassette: Cassette, compression: Compression, options: HARCodec.WriteOptions = .init()) -> Data {
        guard compression == .gzip else { return HARCodec.encode(cassette, options: options) }
        let compressor = PipelinedCompressor()
        HARCodec.encode(cassette, options: options, chunkSize: 1 << 20) { compressor.submit($0) }
        return compressor.finish()
    }

    /// Writes `cassette` to `url` atomically. `compression` nil: by the file name.
    public static func write(
        _ cassette: Cassette, to url: URL, compression: Compression? = nil, options: HARCodec.WriteOptions = .init()
    ) throws(CassetteError) {
        let data = encode(cassette, compression: compression ?? .forPath(url.path), options: options)
        try atomicWrite(data, to: url)
    }

    /// Writes `data` to a temporary sibling of `url`, fsyncs it, renames it over `url` and fsyncs
    /// the directory. A `url` that is a symbolic link writes the file it points at, created if
    /// it does not exist yet (the link stays a link); a file that exists keeps its permissions (a
    /// `0600` cassette stays private). A `url` that is no regular file — `/dev/null`, a named
    /// pipe, `/dev/stdout` and the other descriptors of this process — is written into, never
    /// renamed over (see ``outputTarget(_:)``).
    public static func atomicWrite(_ data: Data, to url: URL) throws(CassetteError) {
        let path: String
        switch outputTarget(url.path) {
        case .descriptor(let descriptor):
            try writeAll(descriptor, data, path: url.path)
            return
        case .device(let device):
            let descriptor = open(device, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ioError(device, "cannot write it") }
            defer { close(descriptor) }
            try writeAll(descriptor, data, path: device)
            return
        case .file(let file):
            path = file
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        // Unique per write (parallel writers in one process never share it), created exclusively.
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UUID().uuidString)"
        temporaries.withLock { _ = $0.insert(temporary) }
        defer { temporaries.withLock { _ = $0.remove(temporary) } }
        var existing = stat()
        let mode = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : nil
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ?? 0o644)
        guard descriptor >= 0 else {
            // Read before anything else can set errno (a stat of the path did: EACCES read as ENOENT).
            let failure = errno
            var isDirectory: ObjCBool = false
            if failure == ENOENT || failure == ENOTDIR,
               !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
                throw CassetteError(.io, file: path, reason: "cannot write here: \(directory) is not an existing directory",
                                    hint: "create the directory, or give a path in one that exists")
            }
            let sibling = String(temporary[temporary.index(after: temporary.lastIndex(of: "/")!)...])
            throw ioError(path, "cannot write it (its temporary sibling \(sibling) cannot be created in \(directory))", code: failure)
        }
        do throws(CassetteError) {
            // The umask narrowed `open`'s mode; the old file's mode is what it had.
            if let mode { _ = fchmod(descriptor, mode) }
            try writeAll(descriptor, data, path: temporary)
            guard fsync(descriptor) == 0 else { throw ioError(temporary, "fsync failed") }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let failure = ioError(path, "cannot rename \(temporary) over it")
            unlink(temporary)
            throw failure
        }
        syncDirectory(directory)
    }

    /// Temporary files being written now (``atomicWrite(_:to:)``), for ``removeTemporaryFiles()``.
    private static let temporaries = Mutex<Set<String>>([])

    /// Deletes the temporary files of writes under way: for a command stopped by a signal
    /// (SIGINT, SIGTERM) before its write finished, so no hidden copy of the cassette — perhaps
    /// one not redacted yet — is left beside it. The file being replaced is untouched.
    ///
    /// ```swift
    /// signal(SIGINT, SIG_IGN)
    /// let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    /// source.setEventHandler { CassetteFile.removeTemporaryFiles(); exit(130) }
    /// source.resume()
    /// ```
    public static func removeTemporaryFiles() {
        temporaries.withLock { paths in
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }

    static func writeAll(_ descriptor: Int32, _ data: Data, path: String) throws(CassetteError) {
        let failed: Bool = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        if failed { throw ioError(path, "write failed") }
    }

    static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// An I/O failure of `path`, with the system's words for `code` (errno, read by the caller
    /// right after the failing call) and a hint fitting it.
    static func ioError(_ path: String, _ what: String, code: Int32) -> CassetteError {
        let message = String(cString: strerror(code))
        let hint = switch code {
        case EACCES, EPERM: "you may not write there: check the directory's permissions and owner"
        case ENOSPC, EDQUOT: "the disk (or your quota) is full: free some space"
        case EROFS: "the file system is read-only: write the cassette elsewhere"
        default: "check free space and permissions"
        }
        return CassetteError(.io, file: path, reason: "\(what): \(message)", hint: hint)
    }

    /// ``ioError(_:_:code:)`` with the current errno (call it right after the failing call).
    static func ioError(_ path: String, _ what: String) -> CassetteError {
        ioError(path, what, code: errno)
    }
}

/// `write(2)`, named apart from the `write` functions above.
func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// Level-6 gzip on its own serial queue, fed in order; `submit` blocks when a few pieces are
/// already waiting (bounded memory).
private final class PipelinedCompressor: @unchecked Sendable {
    // @unchecked Sendable: `deflater` and `output` are touched only on `queue`; `finish` reads
    // `output` after a `queue.sync`.
    private let queue = DispatchQueue(label: "tapedeck.cassette-compress")
    private let slots = DispatchSemaphore(value: 4)
    private let deflater: Deflater
    private var output = Data()

    init() {
        do {
            deflater = try Deflater(format: .gzip, level: 6)
        } catch {
            preconditionFailure("tapedeck: zlib could not start a deflate stream: \(error)")
        }
    }

    func submit(_ piece: Data) {
        slots.wait()
        queue.async { [self] in
            do {
                output.append(try deflater.append(piece))
            } catch {
                preconditionFailure("tapedeck: gzip of an in-memory buffer failed: \(error)")
            }
            slots.signal()
        }
    }

    func finish() -> Data {
        queue.sync {
            do {
                output.append(try deflater.finish())
            } catch {
                preconditionFailure("tapedeck: gzip of an in-memory buffer failed: \(error)")
            }
        }
        return output
    }
}
