import CZlib
public import Foundation

/// Compression through the system zlib (gzip, zlib-wrapped deflate, raw deflate).
///
/// ```swift
/// let packed = try Zlib.compress(Data(json.utf8), format: .gzip)   // a .gz member that gzip -d reads
/// let unpacked = try Zlib.decompress(packed, format: .gzip)          // the bytes of json again
/// ```
public enum Zlib {
    /// The container around the deflate data.
    public enum Format: Sendable, Hashable {
        /// RFC 1952 (what `Content-Encoding: gzip` and `.gz` files hold).
        case gzip
        /// RFC 1950, zlib-wrapped deflate (what `Content-Encoding: deflate` should hold).
        case zlib
        /// RFC 1951 raw deflate (what some servers send as `deflate`).
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// Compresses `data` at `level` (0–9; 6 is zlib's default).
    public static func compress(_ data: Data, format: Format = .gzip, level: Int = 6) throws -> Data {
        // A window no larger than the input compresses it just as well and costs far less to set
        // up (zlib clears its tables per stream: ~260 KB at the defaults, for a 1 KB journal line).
        let bits = min(15, max(9, Int.bitWidth - max(data.count, 1).leadingZeroBitCount))
        let deflater = try Deflater(format: format, level: level, windowBits: bits, memoryLevel: max(1, min(8, bits - 6)))
        var output = try deflater.append(data)
        output.append(try deflater.finish())
        return output
    }

    /// One gzip member holding `data` uncompressed, in deflate's stored blocks (RFC 1951 §3.2.4):
    /// what `gzip -d` and ``decompress(_:format:sizeHint:limit:)`` read like any other member, for
    /// the cost of a CRC instead of a compressor's set-up — which, for a record of a kilobyte or two,
    /// costs more than the bytes it would save.
    ///
    /// ```swift
    /// let member = Zlib.storedGzipMember(Data("{\"a\":1}\n".utf8))   // 10 + 5 + 8 + 8 bytes
    /// try Zlib.decompress(member) == Data("{\"a\":1}\n".utf8)           // true
    /// ```
    public static func storedGzipMember(_ data: Data) -> Data {
        let blockLimit = 65_535
        let blocks = max(1, (data.count + blockLimit - 1) / blockLimit)
        var member = Data(capacity: 10 + blocks * 5 + data.count + 8)
        // Magic, deflate, no flags, no time, no extra flags, OS unknown.
        member.append(contentsOf: [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        var crc: UInt = 0
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            for block in 0..<blocks {
                let length = min(blockLimit, bytes.count - offset)
                let final: UInt8 = block == blocks - 1 ? 1 : 0
                member.append(contentsOf: [final, UInt8(length & 0xFF), UInt8(length >> 8),
                                           UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)])
                if length > 0, let base = bytes.baseAddress {
                    let piece = UnsafeRawBufferPointer(start: base + offset, count: length)
                    member.append(contentsOf: piece)
                    crc = crc32_z(crc, piece.baseAddress!.assumingMemoryBound(to: Bytef.self), length)
                }
                offset += length
            }
        }
        let size = UInt32(truncatingIfNeeded: data.count)
        for value in [UInt32(truncatingIfNeeded: crc), size] {
            member.append(contentsOf: [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)])
        }
        return member
    }

    /// Decompresses `data`. With `.gzip`, concatenated members (as an append-only journal writes
    /// them) are decoded one after another. Throws ``ZlibError`` for corrupt or truncated input,
    /// with the byte offset where decoding stopped — also when the output would exceed `limit`
    /// bytes (a "zip bomb" is refused instead of filling memory).
    public static func decompress(_ data: Data, format: Format = .gzip, sizeHint: Int = 0, limit: Int = .max) throws -> Data {
        guard !data.isEmpty else {
            throw ZlibError(operation: "inflate", status: Z_BUF_ERROR, offset: 0, detail: "input is empty")
        }
        let (members, _, failure) = inflateMembers(data, format: format, sizeHint: min(sizeHint, limit), limit: limit)
        if let failure { throw failure }
        return members.count == 1 ? members[0] : members.reduce(into: Data()) { $0.append($1) }
    }

    /// Whether `data` is one `format` stream with nothing after it, decoding within `limit` bytes
    /// (a stream that ends early, with bytes left over, is not).
    ///
    /// ```swift
    /// Zlib.inflatesWhole(try Zlib.compress(Data("x".utf8), format: .raw), format: .raw)   // true
    /// ```
    public static func inflatesWhole(_ data: Data, format: Format, limit: Int = .max) -> Bool {
        guard !data.isEmpty else { return false }
        let (_, validBytes, failure) = inflateMembers(data, format: format, sizeHint: 0, limit: limit)
        return failure == nil && validBytes == data.count
    }

    /// Decodes concatenated gzip members one by one (an append-only journal), stopping at the first
    /// damaged or cut-off member. Returns every complete member, how many input bytes they span,
    /// and the error that stopped decoding (nil when the input ended cleanly).
    /// Stops, with an error, once the members together would exceed `limit` bytes.
    public static func decompressMembers(_ data: Data, limit: Int = .max) -> (members: [Data], validBytes: Int, error: ZlibError?) {
        guard !data.isEmpty else { return ([], 0, nil) }
        return inflateMembers(data, format: .gzip, sizeHint: 0, limit: limit)
    }

    /// The one inflate loop: each stream end closes a member; with `.gzip` another member may
    /// follow, with the other formats the first stream is the whole result. `data` is not empty.
    private static func inflateMembers(_ data: Data, format: Format, sizeHint: Int, limit: Int) -> (members: [Data], validBytes: Int, error: ZlibError?) {
        var stream = z_stream()
        var status = tapedeck_inflateInit2(&stream, format.windowBits)
        guard status == Z_OK else { return ([], 0, ZlibError(operation: "inflateInit2", status: status, offset: 0)) }
        defer { inflateEnd(&stream) }
        var members: [Data] = []
        var current = Data()
        current.reserveCapacity(min(max(sizeHint, data.count * 4), limit))
        var validBytes = 0
        var total = 0
        let chunk = 256 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        let failure: ZlibError? = data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> ZlibError? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            while true {
                let produced: Int = buffer.withUnsafeMutableBytes { out in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(chunk)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return chunk - Int(stream.avail_out)
                }
                let consumed = input.count - Int(stream.avail_in)
                total += produced
                guard total <= limit else {
                    return ZlibError(operation: ZlibError.limitOperation, status: Z_BUF_ERROR, offset: consumed,
                                     detail: "the output exceeds the limit of \(limit) bytes")
                }
                current.append(contentsOf: buffer[0..<produced])
                switch status {
                case Z_STREAM_END:
                    members.append(current)
                    current = Data()
                    validBytes = consumed
                    if stream.avail_in == 0 || format != .gzip { return nil }
                    status = inflateReset(&stream)
                    guard status == Z_OK else { return ZlibError(operation: "inflateReset", status: status, offset: consumed) }
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return ZlibError(operation: "inflate", status: status, offset: consumed, detail: "input ends inside a compressed stream (truncated?)")
                default:
                    return ZlibError(operation: "inflate", status: status, offset: consumed, detail: stream.msg.map { String(cString: $0) })
                }
            }
        }
        return (members, validBytes, failure)
    }

    /// True when `data` starts with the gzip magic bytes `1f 8b`.
    public static func looksLikeGzip(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1F && data[data.startIndex + 1] == 0x8B
    }

    /// True when `data` starts with a zlib header: compression method 8, and a check value that
    /// makes the first two bytes a multiple of 31 (a `deflate` body not sent raw).
    public static func looksLikeZlib(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let first = data[data.startIndex], second = data[data.startIndex + 1]
        return first & 0x0F == 8 && (Int(first) << 8 | Int(second)) % 31 == 0
    }
}

/// Streaming compression: feed data in pieces, then finish. Each `Deflater` writes one complete
/// stream (for gzip: one member; members can be concatenated).
public final class Deflater {
    private var stream = z_stream()
    private var finished = false

    /// A compressor writing one `format` stream at compression `level` (0–9).
    public convenience init(format: Zlib.Format = .gzip, level: Int = 6) throws {
        try self.init(format: format, level: level, windowBits: 15, memoryLevel: 8)
    }

    /// A compressor with a smaller window (`windowBits` 9–15) and hash tables (`memoryLevel` 1–9).
    init(format: Zlib.Format, level: Int, windowBits: Int, memoryLevel: Int) throws {
        let bits = Int32(windowBits)
        let window: Int32 = switch format {
        case .gzip: bits + 16
        case .zlib: bits
        case .raw: -bits
        }
        let status = tapedeck_deflateInit2(&stream, Int32(level), window, Int32(memoryLevel))
        guard status == Z_OK else { throw ZlibError(operation: "deflateInit2", status: status, offset: 0) }
    }

    /// Compresses `data`, returning whatever compressed output is ready.
    public func append(_ data: Data) throws -> Data {
        try run(data, flush: Z_NO_FLUSH)
    }

    /// Returns everything compressed so far, decodable now (a sync flush, as a server streaming
    /// events through gzip does after each event); the stream goes on.
    public func flush() throws -> Data {
        try run(Data(), flush: Z_SYNC_FLUSH)
    }

    /// Ends the stream and returns the remaining output (trailer included).
    public func finish() throws -> Data {
        precondition(!finished, "Deflater.finish() called twice")
        finished = true
        return try run(Data(), flush: Z_FINISH)
    }

    private func run(_ data: Data, flush: Int32) throws -> Data {
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
            stream.avail_in = uInt(input.count)
            while true {
                let status = stream.step(through: &buffer, into: &output) { deflate(&$0, flush) }
                if status == Z_STREAM_END { return }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    throw ZlibError(operation: "deflate", status: status, offset: Int(stream.total_in))
                }
                if stream.avail_in == 0 && stream.avail_out != 0 { return }
            }
        }
        return output
    }

    deinit {
        deflateEnd(&stream)
    }
}

/// A zlib failure, with where in the input it happened.
public struct ZlibError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The zlib call that failed (or the size limit).
    public let operation: String
    /// zlib's status code.
    public let status: Int32
    /// Input bytes consumed before the failure.
    public let offset: Int
    /// zlib's message, when it gave one.
    public let detail: String?

    init(operation: String, status: Int32, offset: Int, detail: String? = nil) {
        self.operation = operation
        self.status = status
        self.offset = offset
        self.detail = detail
    }

    static let limitOperation = "inflate (output limit)"

    /// True when decoding stopped because the output would exceed the caller's limit.
    public var exceededLimit: Bool { operation == Self.limitOperation }

    /// The call, status, input offset and message.
    public var description: String {
        "zlib \(operation) failed (status \(status)) at input byte \(offset)" + (detail.map { ": \($0)" } ?? "")
    }
}

extension z_stream {
    /// One call of `operation` (inflate or deflate) with `buffer` as its output space; what it
    /// produced is appended to `output`. Returns zlib's status.
    mutating func step(through buffer: inout [UInt8], into output: inout Data, _ operation: (inout z_stream) -> Int32) -> Int32 {
        var status: Int32 = Z_OK
        let produced: Int = buffer.withUnsafeMutableBytes { out in
            next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            avail_out = uInt(out.count)
            status = operation(&self)
            return out.count - Int(avail_out)
        }
        output.append(contentsOf: buffer[0..<produced])
        return status
    }
}
