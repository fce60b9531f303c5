import NIOCore

/// Percent-encodes the bytes a request line cannot carry — non-ASCII (raw UTF-8) and `\` — before
/// NIO's HTTP parser sees them: it refuses them (`400 invalid URL`), while servers commonly take
/// them, and clients send them (curl sends a query's UTF-8 raw: `curl 'http://h/search?q=café'`).
/// So `GET /search?q=café` reaches the service as `GET /search?q=caf%C3%A9`, which is what is
/// forwarded, recorded and matched — the same as a client that escaped it itself.
///
/// Only request lines are touched: the handler follows each request's framing (`Content-Length`,
/// chunked) to know where the next one starts, and passes everything else through unchanged (an
/// unchanged buffer is passed on as it came, never copied). A head it cannot frame with certainty
/// (a protocol upgrade, `CONNECT`, conflicting lengths, another transfer coding, an over-long
/// line) ends its work on the connection: the rest goes to the parser as it came, which refuses
/// what it refuses.
final class RequestTargetEscaper: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var framing = RequestFraming()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !framing.isPassingThrough else { return context.fireChannelRead(data) }
        let buffer = unwrapInboundIn(data)
        let escaped = buffer.withUnsafeReadableBytes { framing.pass($0) }
        if let escaped {
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: escaped)))
        } else {
            context.fireChannelRead(data)
        }
    }
}

/// Where a connection's bytes are in its stream of requests — a request line, header lines, a body
/// of known length, chunks — as a value with one step per byte of a line (bodies are skipped whole).
struct RequestFraming {
    enum Phase: Equatable {
        /// Reading a request line (`started`: past any empty lines before it).
        case requestLine(started: Bool)
        case headers
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        /// The line break after a chunk's data.
        case chunkEnd
        case trailers
        /// Framing unknown: nothing more is touched.
        case passingThrough
    }

    private(set) var phase = Phase.requestLine(started: false)
    /// The line being read (header, chunk size), up to ``lineLimit`` bytes.
    private var line: [UInt8] = []
    private var lineOverflowed = false
    /// The request line's method, while it is read (up to its first space).
    private var method: [UInt8] = []
    private var methodDone = false
    private var contentLength: Int?
    private var chunked = false
    /// A head whose body cannot be framed here (see ``RequestTargetEscaper``).
    private var unframed = false

    /// The longest line kept whole: a framing field longer than this is not trusted.
    static let lineLimit = 1_024

    var isPassingThrough: Bool { phase == .passingThrough }

    /// Steps through `input`; returns it with the request lines' bytes escaped, or nil when no
    /// byte needed it (pass the input on as it is).
    mutating func pass(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8]?
        var index = 0
        while index < input.count {
            switch phase {
            case .passingThrough:
                out?.append(contentsOf: input[index...])
                index = input.count
            case let .body(remaining):
                let taken = min(remaining, input.count - index)
                out?.append(contentsOf: input[index..<index + taken])
                index += taken
                phase = taken == remaining ? .requestLine(started: false) : .body(remaining: remaining - taken)
            case let .chunkData(remaining):
                let taken = min(remaining, input.count - index)
                out?.append(contentsOf: input[index..<index + taken])
                index += taken
                phase = taken == remaining ? .chunkEnd : .chunkData(remaining: remaining - taken)
            case let .requestLine(started):
                let byte = input[index]
                if byte >= 0x80 || byte == UInt8(ascii: "\\") {
                    if out == nil { out = Array(input[..<index]) }
                    out?.append(contentsOf: [UInt8(ascii: "%"), Self.hex(byte >> 4), Self.hex(byte & 0x0F)])
                } else {
                    out?.append(byte)
                }
                index += 1
                if byte == UInt8(ascii: "\n") {
                    if started { beginHead() }
                } else if byte != UInt8(ascii: "\r") {
                    if !started { phase = .requestLine(started: true) }
                    if byte == UInt8(ascii: " ") {
                        methodDone = true
                    } else if !methodDone, method.count < 16 {
                        method.append(byte)
                    }
                }
            case .headers, .chunkSize, .chunkEnd, .trailers:
                let byte = input[index]
                out?.append(byte)
                index += 1
                if byte == UInt8(ascii: "\n") {
                    endLine()
                } else if line.count < Self.lineLimit {
                    line.append(byte)
                } else {
                    lineOverflowed = true
                }
            }
        }
        return out
    }

    /// The request line ended: its header fields follow.
    private mutating func beginHead() {
        phase = .headers
        unframed = method == Array("CONNECT".utf8)
        method = []
        methodDone = false
        contentLength = nil
        chunked = false
        line = []
        lineOverflowed = false
    }

    /// A line of the head, a chunk size, a chunk's end or a trailer ended.
    private mutating func endLine() {
        defer {
            line.removeAll(keepingCapacity: true)
            lineOverflowed = false
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        switch phase {
        case .headers where line.isEmpty:
            if unframed {
                phase = .passingThrough
            } else if chunked {
                phase = .chunkSize
            } else if let contentLength, contentLength > 0 {
                phase = .body(remaining: contentLength)
            } else {
                phase = .requestLine(started: false)
            }
        case .headers:
            field()
        case .chunkSize:
            let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            // Hex digits only: `Int(_:radix:)` would also take a sign (`-5`), and a negative size
            // would walk the position backwards.
            guard !lineOverflowed, !digits.isEmpty, digits.count <= 15, digits.allSatisfy(Self.isHexDigit),
                  let size = Int(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0 else {
                phase = .passingThrough
                return
            }
            phase = size == 0 ? .trailers : .chunkData(remaining: size)
        case .chunkEnd:
            phase = line.isEmpty ? .chunkSize : .passingThrough
        case .trailers:
            if line.isEmpty { phase = .requestLine(started: false) }
        default:
            break
        }
    }

    /// A header field: the ones that frame the body are noted.
    private mutating func field() {
        guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
            unframed = true   // a folded line: what it continues is not known here
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        // Only three names frame a body: others (most lines) are passed over without a String.
        guard Self.framingNameLengths.contains(colon) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingASCIISpaces()
        switch name {
        case "content-length":
            guard !lineOverflowed, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let length = Int(value),
                  contentLength == nil || contentLength == length else {
                unframed = true
                return
            }
            contentLength = length
        case "transfer-encoding":
            let last = value.split(separator: ",").last.map { String($0).trimmingASCIISpaces().lowercased() }
            if lineOverflowed || last != "chunked" || contentLength != nil { unframed = true } else { chunked = true }
        case "upgrade":
            unframed = true
        default:
            break
        }
        if contentLength != nil && chunked { unframed = true }
    }

    /// The lengths of `upgrade`, `content-length` and `transfer-encoding`.
    private static let framingNameLengths: Set<Int> = [7, 14, 17]

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    private static func hex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}

extension String {
    /// Without the spaces and tabs at either end.
    fileprivate func trimmingASCIISpaces() -> String {
        let bytes = Array(utf8)
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
