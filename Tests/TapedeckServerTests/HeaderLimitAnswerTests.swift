import Foundation
import Testing
import TapedeckServer
#if canImport(Glibc)
import Glibc
#endif

/// The `431` a head over the limit gets says which limit, its value and how to raise it, as the
/// `413` for a body does — not NIO's "too many header bytes seen; overflow detected".
@Suite("Server: the 431 answer names the header limit")
struct HeaderLimitAnswerTests {
    /// Answers every request `200 ok`.
    private struct OK: ExchangeService {
        func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void) { answer(.text(200, "ok\n")) }
    }

    @Test("a request line or a header field over --max-header-bytes gets 431 naming the limit's value and the flag; the server keeps serving")
    func namesTheLimit() throws {
        var options = ServerOptions()
        options.threads = 1
        options.maxHeaderBytes = 1_024
        let server = try TapedeckHTTPServer(service: OK(), options: options)
        defer { try? server.shutdown() }
        let longTarget = "GET /x?q=\(String(repeating: "b", count: 40_000)) HTTP/1.1\r\nHost: x\r\n\r\n"
        let longField = "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 4_000))\r\n\r\n"
        for request in [longTarget, longField] {
            let reply = rawExchange(port: server.port, send: Data(request.utf8))
            let text = String(decoding: reply.received, as: UTF8.self)
            #expect(reply.statusLine == "HTTP/1.1 431 Request Header Fields Too Large", "\(reply.statusLine)")
            #expect(text.contains("tapedeck: the request head (its request line and header fields) is over the limit of 1024 bytes (--max-header-bytes sets it)"), "\(text)")
            #expect(!text.contains("overflow detected"), "\(text)")
        }
        let fine = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(fine.statusLine == "HTTP/1.1 200 OK")
    }
}
