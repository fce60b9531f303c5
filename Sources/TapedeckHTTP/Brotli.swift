import CBrotli
public import Foundation

/// Brotli (`Content-Encoding: br`) through the system library (libbrotli), as libcurl uses it.
///
/// ```swift
/// let packed = try Brotli.compress(Data("hello".utf8))
/// assert(try Brotli.decompress(packed) == Data("hello".utf8))
/// ```
public enum Brotli {
    /// `data` brotli-compressed at `quality` (0–11; 5 is what servers commonly send).
    public static func compress(_ data: Data, quality: Int = 5) throws -> Data {
        var size = BrotliEncoderMaxCompressedSize(data.count)
        if size == 0 { size = data.count + 1_024 }   // zero: the bound overflows or the input is empty
        var output = Data(count: size)
        let ok = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                BrotliEncoderCompress(Int32(quality), BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, data.count,
                                      input.bindMemory(to: UInt8.self).baseAddress, &size, out.bindMemory(to: UInt8.self).baseAddress)
            }
        }
        guard ok == BROTLI_TRUE else { throw CodingError(coding: "br", detail: "the encoder refused the input") }
        output.count = size
        return output
    }

    /// What the start of a brotli stream that was cut short decodes to (as a client decoding as
    /// it receives has it): the bytes up to the cut, or up to damage, at most `limit`.
    public static func decompressPrefix(_ data: Data, limit: Int = .max) -> Data {
        var output = Data()
        try? decompress(data, limit: limit, into: &output, allowingCut: true)
        return output.prefix(limit)
    }

    /// Input handed to the decoder at a time when a cut stream is read: given the whole of it at
    /// once, libbrotli keeps decoded bytes back in its window when the input runs out (a cut body
    /// read so stopped at 64 KiB where a client reading as the bytes came had 240 KiB).
    static let cutSlice = 1_024

    /// The bytes a brotli stream stands for. A stream that is damaged, cut short or followed by
    /// other bytes is an error; so is one that grows past `limit` bytes.
    public static func decompress(_ data: Data, limit: Int = .max) throws -> Data {
        var output = Data()
        try decompress(data, limit: limit, into: &output, allowingCut: false)
        return output
    }

    private static func decompress(_ data: Data, limit: Int, into output: inout Data, allowingCut: Bool) throws {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { throw CodingError(coding: "br", detail: "no decoder") }
        defer { BrotliDecoderDestroyInstance(state) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1_024)
        try data.withUnsafeBytes { raw in
            // A cut stream goes in as a client receives it, a slice at a time (`cutSlice`).
            var fed = allowingCut ? min(cutSlice, raw.count) : raw.count
            var availableIn = fed
            var nextIn = raw.bindMemory(to: UInt8.self).baseAddress
            while true {
                var availableOut = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { buffer -> BrotliDecoderResult in
                    var nextOut = buffer.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - availableOut)])
                guard output.count <= limit else { throw CodingError(coding: "br", detail: "more than \(limit) bytes") }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS:
                    // libcurl refuses bytes after the end of the stream too.
                    guard availableIn == 0 else { throw CodingError(coding: "br", detail: "\(availableIn) bytes follow the end of the stream") }
                    return
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                    continue
                case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                    if allowingCut, fed < raw.count {
                        let next = min(cutSlice, raw.count - fed)
                        availableIn += next
                        fed += next
                        continue
                    }
                    if allowingCut { return }
                    throw CodingError(coding: "br", detail: "the stream is cut short after \(raw.count) bytes")
                default:
                    let code = BrotliDecoderGetErrorCode(state)
                    throw CodingError(coding: "br", detail: String(cString: BrotliDecoderErrorString(code)))
                }
            }
        }
    }
}

/// A body that is not what its `Content-Encoding` says (or cannot be encoded that way).
public struct CodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The coding (`br`, `zstd`).
    public var coding: String
    /// What went wrong.
    public var detail: String

    /// An error of `coding`.
    public init(coding: String, detail: String) {
        self.coding = coding
        self.detail = detail
    }

    /// `br: the stream is cut short…`.
    public var description: String { "\(coding): \(detail)" }
}
