public import Foundation
import TapedeckScheduling

/// A `multipart/form-data` body built from parts (data, files, streams), as Alamofire's
/// `MultipartFormData`: append the parts, then hand it to `Session.upload(multipartFormData:to:)`
/// (or call ``encode()`` yourself).
///
/// One difference, on purpose: without a `boundary:` Alamofire draws a random one, so the same
/// form gives different bytes on every run and a cassette recorded once never matches again.
/// Here the boundary is derived from the parts (a hash of their headers and contents, fixed the
/// first time it is read), so the same form always encodes to the same bytes — recorded and
/// replayed bodies match, and a scenario's trace hash does not change from run to run
/// (docs/client.md, "Uploads and downloads").
///
/// ```swift
/// session.upload(multipartFormData: { form in
///     form.append(Data("Ada".utf8), withName: "name")
///     form.append(avatarURL, withName: "avatar")          // file name and MIME type from the URL
/// }, to: "https://api.example.com/profile")
/// .responseDecodable(of: Profile.self) { print($0.result) }
/// ```
///
/// `@unchecked Sendable`: a form is filled on one thread, then only read (encoded) by the request
/// it was given to; the lock keeps a boundary read while parts are still appended consistent.
open class MultipartFormData: @unchecked Sendable {
    /// Forms whose ``contentLength`` is under this many bytes are encoded in memory; larger ones
    /// are written to a temporary file and uploaded from it (10 MB, as Alamofire).
    public static let encodingMemoryThreshold: UInt64 = 10_000_000

    /// Where one part's bytes come from.
    enum Source {
        case data(Data)
        case file(URL)
        case stream(InputStream)
    }

    /// One part: its headers, its bytes' source and their length.
    struct Part {
        let headers: HTTPHeaders
        let source: Source
        let length: UInt64
    }

    private let lock = NSLock()
    private var parts: [Part] = []
    private var fixedBoundary: String?
    /// The first error met while appending (a missing file, a directory…): ``encode()`` throws it.
    private var appendError: ClientError?

    /// The file manager used to check and read file parts and to write encoded forms to disk.
    public let fileManager: FileManager

    /// A form. `boundary`: the separator between parts; nil derives one from the parts (see the
    /// type's documentation).
    public init(fileManager: FileManager = .default, boundary: String? = nil) {
        self.fileManager = fileManager
        self.fixedBoundary = boundary
    }

    /// The separator between parts. Unless one was given, it is derived from the parts appended
    /// when it is first read (by ``contentType``, ``encode()`` or you), then never changes.
    public var boundary: String {
        lock.lock()
        defer { lock.unlock() }
        if let fixedBoundary { return fixedBoundary }
        let made = "alamofire.boundary." + Self.hex(Self.digest(of: parts))
        fixedBoundary = made
        return made
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=…`.
    open lazy var contentType: String = "multipart/form-data; boundary=\(boundary)"

    /// The total length of the parts' bodies (without boundaries and part headers, as Alamofire's).
    public var contentLength: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return parts.reduce(0) { $0 + $1.length }
    }

    // MARK: appending parts

    /// Appends `data` as a part named `name`, with `filename` and `Content-Type` when given.
    public func append(_ data: Data, withName name: String, fileName: String? = nil, mimeType: String? = nil) {
        add(Part(headers: Self.partHeaders(name: name, fileName: fileName, mimeType: mimeType), source: .data(data), length: UInt64(data.count)))
    }

    /// Appends the file at `fileURL` as a part named `name`; its file name is the URL's last path
    /// component and its MIME type comes from the extension (`application/octet-stream` when
    /// unknown). A URL without a file name or extension is an error ``encode()`` reports.
    public func append(_ fileURL: URL, withName name: String) {
        let fileName = fileURL.lastPathComponent
        let pathExtension = fileURL.pathExtension
        guard !fileName.isEmpty, !pathExtension.isEmpty else {
            record(.multipartEncodingFailed(reason: .bodyPartFilenameInvalid(in: fileURL)))
            return
        }
        append(fileURL, withName: name, fileName: fileName, mimeType: Self.mimeType(forPathExtension: pathExtension))
    }

    /// Appends the file at `fileURL` as a part named `name` with the given file name and MIME type.
    /// The file must exist, be reachable and not be a directory (else ``encode()`` throws); its
    /// bytes are read when the form is encoded.
    public func append(_ fileURL: URL, withName name: String, fileName: String, mimeType: String) {
        guard fileURL.isFileURL else {
            record(.multipartEncodingFailed(reason: .bodyPartURLInvalid(url: fileURL)))
            return
        }
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: fileURL.path, isDirectory: &isDirectory) else {
            record(.multipartEncodingFailed(reason: .bodyPartFileNotReachable(at: fileURL)))
            return
        }
        guard !isDirectory.boolValue else {
            record(.multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: fileURL)))
            return
        }
        let size: UInt64
        do {
            guard let number = try fileManager.attributesOfItem(atPath: fileURL.path)[.size] as? NSNumber else {
                record(.multipartEncodingFailed(reason: .bodyPartFileSizeNotAvailable(at: fileURL)))
                return
            }
            size = number.uint64Value
        } catch {
            record(.multipartEncodingFailed(reason: .bodyPartFileSizeQueryFailedWithError(forURL: fileURL, error: error)))
            return
        }
        add(Part(headers: Self.partHeaders(name: name, fileName: fileName, mimeType: mimeType), source: .file(fileURL), length: size))
    }

    /// Appends `length` bytes read from `stream` as a part named `name` with a file name and MIME type.
    public func append(_ stream: InputStream, withLength length: UInt64, name: String, fileName: String, mimeType: String) {
        append(stream, withLength: length, headers: Self.partHeaders(name: name, fileName: fileName, mimeType: mimeType))
    }

    /// Appends `length` bytes read from `stream` as a part with exactly these headers. The stream
    /// is read when the form is encoded; a stream that ends early or runs longer is an error.
    public func append(_ stream: InputStream, withLength length: UInt64, headers: HTTPHeaders) {
        add(Part(headers: headers, source: .stream(stream), length: length))
    }

    private func add(_ part: Part) {
        lock.lock()
        parts.append(part)
        lock.unlock()
    }

    private func record(_ error: ClientError) {
        lock.lock()
        if appendError == nil { appendError = error }
        lock.unlock()
    }

    // MARK: encoding

    /// The whole body in memory: each part's boundary line, headers, a blank line and bytes, then
    /// the closing boundary (a form without parts is empty, as Alamofire's). Throws the first error
    /// met while appending, or a read failure.
    public func encode() throws -> Data {
        let (parts, error) = snapshot()
        if let error { throw error }
        guard !parts.isEmpty else { return Data() }   // as Alamofire: no parts, no bytes
        let boundary = self.boundary
        var body = Data()
        for (index, part) in parts.enumerated() {
            body.append(Self.boundaryLine(boundary, first: index == 0))
            body.append(Self.headerBlock(part.headers))
            try Self.bytes(of: part, reading: fileManager) { body.append($0) }
        }
        body.append(Self.closingLine(boundary))
        return body
    }

    /// Writes the encoded body to a new file at `fileURL` (part by part, so a large file part is
    /// never held whole in memory). Refuses a URL that is not a file URL or a file that exists.
    public func writeEncodedData(to fileURL: URL) throws {
        let (parts, error) = snapshot()
        if let error { throw error }
        guard fileURL.isFileURL else { throw ClientError.multipartEncodingFailed(reason: .outputStreamURLInvalid(url: fileURL)) }
        guard !fileManager.fileExists(atPath: fileURL.path) else {
            throw ClientError.multipartEncodingFailed(reason: .outputStreamFileAlreadyExists(at: fileURL))
        }
        guard fileManager.createFile(atPath: fileURL.path, contents: nil), let handle = try? FileHandle(forWritingTo: fileURL) else {
            throw ClientError.multipartEncodingFailed(reason: .outputStreamCreationFailed(for: fileURL))
        }
        defer { try? handle.close() }
        let boundary = self.boundary
        func write(_ data: Data) throws {
            do { try handle.write(contentsOf: data) } catch {
                throw ClientError.multipartEncodingFailed(reason: .outputStreamWriteFailed(error: error))
            }
        }
        for (index, part) in parts.enumerated() {
            try write(Self.boundaryLine(boundary, first: index == 0))
            try write(Self.headerBlock(part.headers))
            try Self.bytes(of: part, reading: fileManager, into: write)
        }
        if !parts.isEmpty { try write(Self.closingLine(boundary)) }
    }

    private func snapshot() -> ([Part], ClientError?) {
        lock.lock()
        defer { lock.unlock() }
        return (parts, appendError)
    }
}

extension MultipartFormData {
    /// `Content-Disposition: form-data; name="…"; filename="…"` and, with a MIME type, `Content-Type`.
    static func partHeaders(name: String, fileName: String?, mimeType: String?) -> HTTPHeaders {
        var disposition = "form-data; name=\"\(name)\""
        if let fileName { disposition += "; filename=\"\(fileName)\"" }
        var headers: HTTPHeaders = [HTTPHeader(name: "Content-Disposition", value: disposition)]
        if let mimeType { headers.add(name: "Content-Type", value: mimeType) }
        return headers
    }

    static func boundaryLine(_ boundary: String, first: Bool) -> Data {
        Data(((first ? "" : "\r\n") + "--\(boundary)\r\n").utf8)
    }

    static func closingLine(_ boundary: String) -> Data {
        Data("\r\n--\(boundary)--\r\n".utf8)
    }

    static func headerBlock(_ headers: HTTPHeaders) -> Data {
        Data((headers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n").utf8)
    }

    /// Hands `part`'s bytes to `sink` in chunks: data at once, files and streams 64 KiB at a time.
    static func bytes(of part: Part, reading fileManager: FileManager, into sink: (Data) throws -> Void) throws {
        switch part.source {
        case let .data(data):
            try sink(data)
        case let .file(url):
            guard let stream = InputStream(url: url) else {
                throw ClientError.multipartEncodingFailed(reason: .bodyPartInputStreamCreationFailed(for: url))
            }
            try copy(stream, length: part.length, into: sink)
        case let .stream(stream):
            try copy(stream, length: part.length, into: sink)
        }
    }

    /// Reads exactly `length` bytes from `stream` (opening and closing it).
    private static func copy(_ stream: InputStream, length: UInt64, into sink: (Data) throws -> Void) throws {
        stream.open()
        defer { stream.close() }
        var remaining = length
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while remaining > 0 {
            let read = stream.read(&buffer, maxLength: Int(min(UInt64(buffer.count), remaining)))
            if read < 0 {
                throw ClientError.multipartEncodingFailed(reason: .inputStreamReadFailed(error: stream.streamError
                    ?? ClientError.UnexpectedInputStreamLength(bytesExpected: length, bytesRead: length - remaining)))
            }
            if read == 0 { break }
            try sink(Data(buffer[0..<read]))
            remaining -= UInt64(read)
        }
        guard remaining == 0 else {
            throw ClientError.multipartEncodingFailed(reason: .inputStreamReadFailed(
                error: ClientError.UnexpectedInputStreamLength(bytesExpected: length, bytesRead: length - remaining)))
        }
        // A stream holding more than its stated length is an error too, not a part cut short.
        var extra = 0
        while true {
            let read = stream.read(&buffer, maxLength: buffer.count)
            if read <= 0 { break }
            extra += read
        }
        guard extra == 0 else {
            throw ClientError.multipartEncodingFailed(reason: .inputStreamReadFailed(
                error: ClientError.UnexpectedInputStreamLength(bytesExpected: length, bytesRead: length + UInt64(extra))))
        }
    }

    /// FNV-1a over every part's headers and what identifies its bytes (data: the bytes; a file:
    /// its name and size, not its directory, so a form built in another checkout or temporary
    /// directory gets the same boundary; a stream: its length), so equal forms get equal boundaries.
    static func digest(of parts: [Part]) -> UInt64 {
        var hash = StableHash.fnvOffset
        func mix<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            hash = StableHash.fnv1a([0xFF], continuing: StableHash.fnv1a(bytes, continuing: hash))   // 0xFF ends a field
        }
        for part in parts {
            for header in part.headers { mix(header.name.utf8); mix(header.value.utf8) }
            switch part.source {
            case let .data(data): mix(data)
            case let .file(url): mix(url.lastPathComponent.utf8); mix(String(part.length).utf8)
            case .stream: mix(String(part.length).utf8)
            }
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The MIME type of common file extensions, `application/octet-stream` for others (Alamofire
    /// asks the platform's type registry, which Linux lacks, and says `application/octet-stream`
    /// there for everything).
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "svg": "image/svg+xml"
        case "pdf": "application/pdf"
        case "json": "application/json"
        case "xml": "application/xml"
        case "zip": "application/zip"
        case "gz": "application/gzip"
        case "txt", "text", "log": "text/plain"
        case "csv": "text/csv"
        case "html", "htm": "text/html"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "wav": "audio/wav"
        default: "application/octet-stream"
        }
    }
}
