import Foundation
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `tapedeck serve` or `tapedeck record` child process, started and waited for by its readiness
/// line (no sleeps: the line is printed once the port is bound).
final class ServerProcess: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; `Process` itself is thread-safe for kill/wait.
    let process = Process()
    let port: Int
    let errorFile: URL
    private let output = Pipe()

    /// `shellFirst`, when given, runs in a shell before the server takes its place (`ulimit -n 256`).
    init(_ arguments: [String], shellFirst: String? = nil) throws {
        if let shellFirst {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shellFirst + " && exec \"$0\" \"$@\"", try tapedeckExecutable().path] + arguments
        } else {
            process.executableURL = try tapedeckExecutable()
            process.arguments = arguments
        }
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-server-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try launch(process)
        // Blocking reads until the line arrives; EOF (the child exited) ends the wait too.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        // `listening on http://HOST:PORT` (HOST 127.0.0.1, localhost, ...).
        guard let range = text.range(of: "listening on http://"),
              let address = text[range.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\n" }).first,
              let colon = address.lastIndex(of: ":"),
              let port = Int(address[address.index(after: colon)...].prefix { $0.isNumber }) else {
            process.waitUntilExit()
            let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            // `deinit` does not run for an object whose init threw before `port` was set.
            try? FileManager.default.removeItem(at: errorFile)
            throw ServerStartFailed(output: text, errors: errors)
        }
        self.port = port
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Sends `signal` and waits; returns the exit status (or the signal, for a kill).
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: errorFile)
    }
}

struct ServerStartFailed: Error, CustomStringConvertible {
    var output: String
    var errors: String
    var description: String { "the server did not start: \(output) \(errors)" }
}

/// What curl did: its exit status, the body and the response head.
struct CurlRun: Sendable {
    var status: Int32
    var body: Data
    var head: String
    var errors: String
    /// The last response's status code (0 when none).
    var code: Int {
        let lines = head.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/") }
        return lines.last.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }
}

/// Runs Debian's curl with `arguments` (plus -s and a generous --max-time unless given).
func curl(_ arguments: [String]) throws -> CurlRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let body = directory.appendingPathComponent("body"), head = directory.appendingPathComponent("head")
    let errors = directory.appendingPathComponent("errors")
    var all = ["-s", "-S", "-o", body.path, "-D", head.path]
    if !arguments.contains("--max-time") { all += ["--max-time", "60"] }
    process.arguments = all + arguments
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: errors)
    try launch(process)
    process.waitUntilExit()
    return CurlRun(status: process.terminationStatus, body: (try? Data(contentsOf: body)) ?? Data(),
                   head: (try? String(contentsOf: head, encoding: .utf8)) ?? "",
                   errors: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
}

/// A raw TCP exchange on 127.0.0.1: sends `bytes`, half-closes when asked, and reads until the
/// server closes or `timeout` passes (a hang shows as `timedOut`).
struct RawExchange {
    var received: Data
    var timedOut: Bool

    var statusLine: String {
        String(decoding: received.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
    }
}

func rawExchange(port: Int, send bytes: Data, shutdownWrite: Bool = true, timeout: Int = 10) -> RawExchange {
    guard let descriptor = loopbackSocket(port: port, timeoutSeconds: timeout) else { return RawExchange(received: Data(), timedOut: false) }
    defer { close(descriptor) }
    if !bytes.isEmpty {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
    if shutdownWrite { shutdown(descriptor, Int32(SHUT_WR)) }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count > 0 { received.append(contentsOf: buffer[0..<count]); continue }
        if count == 0 { return RawExchange(received: received, timedOut: false) }
        if errno == EINTR { continue }
        return RawExchange(received: received, timedOut: errno == EAGAIN || errno == EWOULDBLOCK)
    }
}

/// A client on a raw TCP socket, for tests that must see when bytes arrive (timeouts: 20 s per
/// read, so a server that holds everything back fails the test instead of hanging it).
/// A TCP socket connected to 127.0.0.1:`port`, its reads timing out after `timeoutSeconds` and
/// its receive buffer set to `receiveBuffer` bytes (before it connects) when given; nil when it
/// cannot connect.
func loopbackSocket(port: Int, timeoutSeconds: Int, receiveBuffer: Int32? = nil) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var seconds = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(descriptor)
        return nil
    }
    return descriptor
}

final class RawClient {
    private let descriptor: Int32
    private var received = Data()
    private var headEnd: Int?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int) throws {
        guard let descriptor = loopbackSocket(port: port, timeoutSeconds: 20) else { throw Failure(description: "cannot connect to port \(port)") }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        let bytes = Data(text.utf8)
        let sent = bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure(description: "send failed") }
    }

    /// The response head, once it has arrived (lowercased).
    var head: String? {
        headEnd.map { String(decoding: received[..<$0], as: UTF8.self).lowercased() }
    }

    /// Reads until the head and at least `count` bytes after it have arrived; returns how many
    /// bytes follow the head (framing included).
    func readBody(atLeast count: Int) throws -> Int {
        while headEnd.map({ received.count - $0 < count }) ?? true {
            guard try readSome() else { throw Failure(description: "closed early: \(String(decoding: received, as: UTF8.self).prefix(200))") }
        }
        return received.count - headEnd!
    }

    /// One read: the bytes that have arrived by then, all of them (a test of what a server wrote
    /// together: one write of a few hundred bytes on loopback is one read).
    func readOnce() throws -> Data {
        let before = received.count
        guard try readSome() else { throw Failure(description: "closed before anything arrived") }
        return Data(received[before...])
    }

    /// Reads until the server closes; returns the body (chunked framing removed).
    func readToEnd() throws -> Data {
        while try readSome() {}
        guard let headEnd else { throw Failure(description: "no head") }
        let head = String(decoding: received[..<headEnd], as: UTF8.self).lowercased()
        let body = Data(received[headEnd...])
        return head.contains("transfer-encoding: chunked") ? try Self.dechunk(body) : body
    }

    /// One recv; false at the end of the stream. A timeout throws.
    private func readSome() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
                if headEnd == nil, let range = received.range(of: Data("\r\n\r\n".utf8)) { headEnd = range.upperBound }
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw Failure(description: "read failed or timed out (errno \(errno)) after \(received.count) bytes")
        }
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var body = Data()
        var index = data.startIndex
        while let lineEnd = data[index...].range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { throw Failure(description: "bad chunk size") }
            if size == 0 { return body }
            let start = lineEnd.upperBound
            guard data.distance(from: start, to: data.endIndex) >= size + 2 else { throw Failure(description: "cut chunk") }
            body.append(data[start..<data.index(start, offsetBy: size)])
            index = data.index(start, offsetBy: size + 2)
        }
        throw Failure(description: "no last chunk")
    }
}
