import CZlib
public import Foundation

/// Streaming decompression: feed compressed data in pieces as it arrives and get back what each
/// piece decodes to (a gzip event stream decoded as it comes, not at its end). With `.gzip`,
/// members that follow one another are read in turn, as `gzip -d` reads them.
///
/// ```swift
/// let inflater = try Inflater(format: .gzip)
/// let first = try inflater.append(piece1)    // the text piece1 completes (may be empty)
/// let rest = try inflater.append(piece2)
/// ```
public final class Inflater {
    private var stream = z_stream()
    private let format: Zlib.Format
    /// The stream ended and no member may follow (more input is an error).
    private var ended = false
    /// A gzip member ended with the last piece: the next piece starts another.
    private var memberEnded = false

    /// A decompressor for one `format` stream.
    public init(format: Zlib.Format = .gzip) throws {
        self.format = format
        let status = tapedeck_inflateInit2(&stream, format.windowBits)
        guard status == Z_OK else { throw ZlibError(operation: "inflateInit2", status: status, offset: 0) }
    }

    /// Decompresses `data`, returning the output it completes. An input that ends inside the
    /// stream is not an error here: the rest may come with the next piece.
    public func append(_ data: Data) throws -> Data {
        guard !data.isEmpty else { return Data() }
        guard !ended else { throw ZlibError(operation: "inflate", status: Z_STREAM_ERROR, offset: Int(stream.total_in), detail: "data after the stream's end") }
        if memberEnded {
            let reset = inflateReset(&stream)
            guard reset == Z_OK else { throw ZlibError(operation: "inflateReset", status: reset, offset: Int(stream.total_in)) }
            memberEnded = false
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            while true {
                let status = stream.step(through: &buffer, into: &output) { inflate(&$0, Z_NO_FLUSH) }
                switch status {
                case Z_STREAM_END:
                    guard stream.avail_in > 0, format == .gzip else {
                        if stream.avail_in > 0 {
                            throw ZlibError(operation: "inflate", status: status, offset: Int(stream.total_in), detail: "data after the stream's end")
                        }
                        ended = format != .gzip
                        memberEnded = format == .gzip
                        return
                    }
                    let reset = inflateReset(&stream)
                    guard reset == Z_OK else { throw ZlibError(operation: "inflateReset", status: reset, offset: Int(stream.total_in)) }
                case Z_OK:
                    if stream.avail_in == 0 && stream.avail_out != 0 { return }
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return   // waiting for more input
                default:
                    throw ZlibError(operation: "inflate", status: status, offset: Int(stream.total_in), detail: stream.msg.map { String(cString: $0) })
                }
            }
        }
        return output
    }

    deinit {
        inflateEnd(&stream)
    }
}
