import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckServer
#if canImport(Glibc)
import Glibc
#endif

/// The proxy's upstream client keeps connections alive between exchanges; an upstream may close
/// one just as the next request goes out on it.
@Suite("Server: the upstream connection pool")
struct UpstreamPoolTests {
    @Test("a pooled connection the upstream closes as a request goes out: an idempotent request is sent again on a new connection, a POST fails as lost (-1005), never sent twice")
    func staleConnection() async throws {
        // Given an upstream that answers the first request of each connection (keep-alive) and
        // closes the connection, unanswered, when a second one arrives on it.
        let upstream = try OneAnswerUpstream()
        defer { upstream.stop() }
        // (Pooled connections kept for an hour: on a loaded machine the test may wait longer than
        // the default minute between two requests, and the sweep would then close connection 1.)
        let client = UpstreamClient(upstream: URL(string: "http://127.0.0.1:\(upstream.port)")!, idleTimeout: .seconds(3_600))
        defer { client.shutdown() }

        // When three requests go out one after another.
        let first = try await exchange(client, "GET", "/a")
        let second = try await exchange(client, "GET", "/b")
        let post = try await exchange(client, "POST", "/c", body: Data("once".utf8))

        // Then the first is answered on connection 1; the second goes out on it, finds it closed
        // and is answered on connection 2; the POST goes out on connection 2, finds it closed,
        // and is reported lost rather than sent again.
        #expect(first.status == 200 && second.status == 200, "\(first) \(second)")
        #expect(post.failure == URLError.networkConnectionLost.rawValue, "\(post)")
        #expect(upstream.requests == ["GET /a", "GET /b", "GET /b", "POST /c"], "\(upstream.requests)")
        #expect(upstream.connections == 2)
    }

    @Test("an upstream that closes cleanly before the body its head announced: the head and the 7 bytes are kept, broken off by a lost connection (-1005), as URLSession reports it")
    func closedMidBody() async throws {
        // Given an upstream that announces 100 bytes, sends 7 and closes
        let upstream = try OneAnswerUpstream(answer: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial", thenClose: true)
        defer { upstream.stop() }
        let client = UpstreamClient(upstream: URL(string: "http://127.0.0.1:\(upstream.port)")!)
        defer { client.shutdown() }
        // When a request goes out
        let cut = try await exchange(client, "GET", "/cut")
        // Then it is a lost connection after the bytes that came, not a bad answer
        #expect(cut.status == 200 && cut.body == Data("partial".utf8) && cut.failure == URLError.networkConnectionLost.rawValue, "\(cut)")
    }

    @Test("an upstream that switches protocols anyway: its 101 is reported, and the connection, no longer HTTP, is not used again")
    func switchedProtocols() async throws {
        // Given an upstream that answers every connection's first request with a 101
        let upstream = try OneAnswerUpstream(answer: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        defer { upstream.stop() }
        let client = UpstreamClient(upstream: URL(string: "http://127.0.0.1:\(upstream.port)")!, options: LiveForwarder.Options(timeout: .seconds(10)))
        defer { client.shutdown() }
        // When two requests go out one after another
        let first = try await exchange(client, "GET", "/ws")
        let second = try await exchange(client, "GET", "/ws")
        // Then both get the 101, each on its own connection
        #expect(first.status == 101 && second.status == 101, "\(first) \(second)")
        #expect(upstream.connections == 2 && upstream.requests == ["GET /ws", "GET /ws"], "\(upstream.requests)")
    }

    private struct Outcome: CustomStringConvertible {
        var status: Int?
        var body = Data()
        /// The failure instead of a response, or the one that broke the response off.
        var failure: Int?
        var description: String { "status \(status.map(String.init) ?? "-") \(body.count) bytes failure \(failure.map(String.init) ?? "-")" }
    }

    private func exchange(_ client: UpstreamClient, _ method: String, _ path: String, body: Data? = nil) async throws -> Outcome {
        let request = RequestSnapshot(method: .init(method)!, url: URL(string: "http://127.0.0.1\(path)")!, body: body)
        return await withCheckedContinuation { continuation in
            client.forward(request) { result in
                switch result.outcome {
                case let .response(response):
                    continuation.resume(returning: Outcome(status: response.status, body: response.body, failure: response.interruption?.code))
                case let .failure(failure): continuation.resume(returning: Outcome(failure: failure.code))
                }
            }
        }
    }
}

/// A raw TCP upstream on 127.0.0.1: the first request on each connection gets `answer` (by
/// default `200 ok`, keep-alive); at the second it closes the connection without answering.
final class OneAnswerUpstream: @unchecked Sendable {
    // @unchecked Sendable: the listener and counters are touched by the accept thread and the
    // test under `state`'s lock only.
    let port: Int
    private let listener: Int32
    private let answer: Data
    private let thenClose: Bool
    private let state = Mutex<(requests: [String], connections: Int)>(([], 0))

    var requests: [String] { state.withLock { $0.requests } }
    var connections: Int { state.withLock { $0.connections } }

    /// `answer`: the bytes sent for the first request of each connection; `thenClose`: the
    /// connection is closed right after them.
    init(answer: String = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: Bool = false) throws {
        self.answer = Data(answer.utf8)
        self.thenClose = thenClose
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            state.withLock { $0.connections += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var received = Data()
        var answered = false
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            guard let end = received.range(of: Data("\r\n\r\n".utf8)) else {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                received.append(contentsOf: buffer[0..<count])
                continue
            }
            let line = String(decoding: received[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n").first ?? ""
            let parts = line.split(separator: " ")
            state.withLock { $0.requests.append("\(parts[0]) \(parts[1])") }
            guard !answered else { return }   // the second request on this connection: closed, unanswered
            answered = true
            received.removeSubrange(..<end.upperBound)
            _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if thenClose { return }
        }
    }
}
