import CZstd
public import Foundation

/// Zstandard (`Content-Encoding: zstd`) through the system library (libzstd), as libcurl uses it.
///
/// ```swift
/// let packed = try Zstd.compress(Data("hello".utf8))
/// assert(try Zstd.decompress(packed) == Data("hello".utf8))
/// ```
public enum Zstd {
    /// `data` as one zstd frame at `level` (3 is zstd's default).
    public static func compress(_ data: Data, level: Int = 3) throws -> Data {
        var output = Data(count: ZSTD_compressBound(data.count))
        let written = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                ZSTD_compress(out.baseAddress, out.count, input.baseAddress, input.count, Int32(level))
            }
        }
        guard ZSTD_isError(written) == 0 else { throw CodingError(coding: "zstd", detail: String(cString: ZSTD_getErrorName(written))) }
        output.count = written
        return output
    }

    /// The bytes one or more zstd frames stand for (a frame need not say its size). Damaged or
    /// cut-short input is an error; so is output past `limit` bytes.
    public static func decompress(_ data: Data, limit: Int = .max) throws -> Data {
        var output = Data()
        try decompress(data, limit: limit, into: &output, allowingCut: false)
        return output
    }

    /// What the start of a zstd stream that was cut short decodes to (as a client decoding as it
    /// receives has it): the bytes up to the cut, or up to damage, at most `limit`.
    public static func decompressPrefix(_ data: Data, limit: Int = .max) -> Data {
        var output = Data()
        try? decompress(data, limit: limit, into: &output, allowingCut: true)
        return output.prefix(limit)
    }

    private static func decompress(_ data: Data, limit: Int, into output: inout Data, allowingCut: Bool) throws {
        guard let stream = ZSTD_createDStream() else { throw CodingError(coding: "zstd", detail: "no decoder") }
        defer { ZSTD_freeDStream(stream) }
        var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        var pending = 0   // what ZSTD_decompressStream last said it still needs (0: a frame just ended)
        try data.withUnsafeBytes { raw in
            var input = ZSTD_inBuffer(src: raw.baseAddress, size: raw.count, pos: 0)
            repeat {
                let produced = try chunk.withUnsafeMutableBytes { buffer -> Int in
                    var out = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                    let result = ZSTD_decompressStream(stream, &out, &input)
                    guard ZSTD_isError(result) == 0 else {
                        throw CodingError(coding: "zstd", detail: String(cString: ZSTD_getErrorName(result)))
                    }
                    pending = result
                    return out.pos
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= limit else { throw CodingError(coding: "zstd", detail: "more than \(limit) bytes") }
                if produced == 0, input.pos == input.size, pending != 0 { break }
            } while input.pos < input.size || pending != 0
        }
        guard pending == 0 || allowingCut else { throw CodingError(coding: "zstd", detail: "the stream is cut short after \(data.count) bytes") }
    }
}
