import Foundation
import NIOCore
import TapedeckHTTP

/// Where a server listens and what it refuses: the limits that keep a slow or hostile client from
/// holding it.
///
/// ```swift
/// var options = ServerOptions()
/// options.port = 0                    // any free port; `TapedeckHTTPServer.port` says which
/// options.maxBodyBytes = 1 << 20
/// ```
public struct ServerOptions: Sendable {
    /// The address to bind (loopback unless the caller explicitly allows another).
    public var host: String = "127.0.0.1"
    /// The port (0: any free one).
    public var port: Int = 0
    /// The most connections open at once; one more gets `503` and is closed.
    public var maxConnections: Int = 4_096
    /// The most bytes of request head (request line and header fields); more gets `431`.
    public var maxHeaderBytes: Int = 32 * 1024
    /// The most bytes of request body; more gets `413`.
    public var maxBodyBytes: Int = 64 * 1024 * 1024
    /// How long a connection may take to send a complete request head (and how long it may sit
    /// idle between requests); then it gets `408` and is closed.
    public var headerTimeout: Duration = .seconds(10)
    /// Event loop threads (0: one per core).
    public var threads: Int = 0
    /// Whether the server keeps the list of answers not yet handed whole to the kernel
    /// (``TapedeckHTTPServer/unwrittenAnswers``, ``TapedeckHTTPServer/takeUnwritten()``), which
    /// a stop that names what it cuts off needs (`tapedeck record`). Off by default: the list
    /// costs every request a shared lock twice (a fifth of `serve`'s throughput under `wrk`).
    public var tracksUnwrittenAnswers = false

    /// The event loop threads the server starts: ``threads``, or one per core when it is 0.
    public var loopThreads: Int { threads > 0 ? threads : System.coreCount }

    /// The defaults: 127.0.0.1, any port, 4,096 connections, 32 KiB heads, 64 MiB bodies, 10 s.
    public init() {}

    /// Whether `host` is a loopback address (anything else needs an explicit flag).
    public static func isLoopback(_ host: String) -> Bool {
        if host.equalsIgnoringASCIICase("localhost") || host == "::1" { return true }
        // 127.0.0.0/8 written as four decimal octets; a name such as 127.example.com is not one.
        return isIPv4Address(host) && host.hasPrefix("127.")
    }

    /// Whether `host` is an IPv4 address written as four decimal octets (`10.0.0.2`), not a name.
    public static func isIPv4Address(_ host: String) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { "0123456789".contains($0) } && UInt8($0) != nil }
    }

    /// Parses `HOST:PORT`, `:PORT` or `PORT` (IPv6 as `[::1]:PORT`); nil when it is not one.
    public static func parseListen(_ text: String) -> (host: String, port: Int)? {
        if let port = Int(text), (0...65_535).contains(port) { return ("127.0.0.1", port) }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }
}
