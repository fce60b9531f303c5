import Foundation
import NIOCore
import NIOHTTP1

// What a request's head is checked against before it is read further, and the bytes of the
// HTTP/2 answer to a client that speaks HTTP/2 from the first byte.

extension ConnectionHandler {
    /// Whether `value` is a Host field's value as RFC 9112 §3.2 allows: empty, or a host (a
    /// name of letters, digits and `-._~!$&'()*+,;=` or `%XX`, or an IPv6 address in brackets)
    /// and an optional port of at most 65535.
    static func isValidHost(_ value: String) -> Bool {
        var host = Substring(value)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let inside = host[host.index(after: host.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return false }
            port = rest.isEmpty ? nil : rest.dropFirst()
            host = ""
        } else if let colon = host.lastIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        let allowed = Set("-._~!$&'()*+,;=%")
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || allowed.contains($0)) }) else { return false }
        guard let port, !port.isEmpty else { return true }
        return port.count <= 5 && port.allSatisfy({ $0.isASCII && $0.isNumber }) && Int(port).map { $0 <= 65_535 } == true
    }

    /// The first transfer coding of a request's `Transfer-Encoding` other than `chunked` (which
    /// the parser undoes), if any: `gzip` of `gzip, chunked`.
    static func unsupportedTransferCoding(_ headers: HTTPHeaders) -> String? {
        for value in headers["Transfer-Encoding"] {
            for coding in value.split(separator: ",") {
                let name = coding.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                if !name.isEmpty, name != "chunked" { return name }
            }
        }
        return nil
    }

    /// HTTP/2 from the first byte (curl --http2-prior-knowledge, gRPC): answered in HTTP/2's own
    /// words, which such a client understands and an HTTP/1.1 status line it would not: this
    /// server's (empty) SETTINGS, then stream 1 — a prior-knowledge client's first request — reset
    /// with `HTTP_1_1_REQUIRED`, on which curl retries the request over HTTP/1.1 on a new
    /// connection. The connection stays open until the client closes it (curl does at once: a
    /// close from this side first can reach curl before it has read the reset, and it then reports
    /// an empty reply); one still open after 2 s gets a GOAWAY whose debug data says why, then
    /// the close.
    func refuseHTTP2(_ context: ChannelHandlerContext) {
        guard beginRefusal() else { return }
        let channel = context.channel
        guard let outlet = outlet.context else {
            channel.close(promise: nil)
            return
        }
        var buffer = channel.allocator.buffer(capacity: 64)
        Self.writeHTTP2Frame(type: 0x4, stream: 0, payload: [], to: &buffer)    // SETTINGS, none changed
        Self.writeHTTP2Frame(type: 0x3, stream: 1, payload: Self.http11Required, to: &buffer)    // RST_STREAM
        outlet.writeAndFlush(NIOAny(buffer), promise: nil)
        let bound = NIOLoopBound(self.outlet, eventLoop: channel.eventLoop)
        channel.eventLoop.scheduleTask(in: .seconds(2)) {
            guard channel.isActive, let outlet = bound.value.context else { return }
            var goaway = channel.allocator.buffer(capacity: 128)
            let reason = Array("tapedeck speaks HTTP/1.1 only: send this request over HTTP/1.1".utf8)
            Self.writeHTTP2Frame(type: 0x7, stream: 0, payload: [0, 0, 0, 0] + Self.http11Required + reason, to: &goaway)
            outlet.writeAndFlush(NIOAny(goaway)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// HTTP/2's error code `HTTP_1_1_REQUIRED` (0xd), as a frame payload's four bytes.
    static let http11Required: [UInt8] = [0, 0, 0, 0x0d]

    /// Appends one HTTP/2 frame (RFC 9113 §4.1: 24-bit length, type, no flags, stream id).
    static func writeHTTP2Frame(type: UInt8, stream: UInt32, payload: [UInt8], to buffer: inout ByteBuffer) {
        let length = UInt32(payload.count)
        buffer.writeBytes([UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, 0])
        buffer.writeInteger(stream & 0x7fff_ffff)
        buffer.writeBytes(payload)
    }
}
