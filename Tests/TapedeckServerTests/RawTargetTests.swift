import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport
@testable import TapedeckServer
#if canImport(Glibc)
import Glibc
#endif

/// Raw non-ASCII bytes (UTF-8) and `\` in a request target: curl sends a query's UTF-8 unescaped,
/// hand-written clients a path's. NIO's parser refuses them; `record` and `serve` escape them first.
@Suite("Server: raw non-ASCII request targets", .serialized)
struct RawTargetTests {
    /// Requests on one connection, pipelined: a body with high bytes (by length, then chunked)
    /// between request lines with raw UTF-8; the last closes the connection.
    private static let pipelined: Data = {
        var bytes = Data()
        let body = Data("GET /é\r\n\r\n".utf8)   // a body that looks like a request line: left alone
        bytes.append(Data("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n\r\n".utf8))
        bytes.append(body)
        bytes.append(Data("GET /get?q=日 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        bytes.append(Data("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nü\\ü\r\n0\r\n\r\n".utf8))
        bytes.append(Data("GET /get?q=a\\b&r=ü HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        return bytes
    }()

    /// The same requests with only their request lines escaped.
    private static let escaped = Data(String(decoding: pipelined, as: UTF8.self)
        .replacingOccurrences(of: "GET /get?q=日 ", with: "GET /get?q=%E6%97%A5 ")
        .replacingOccurrences(of: "GET /get?q=a\\b&r=ü ", with: "GET /get?q=a%5Cb&r=%C3%BC ").utf8)

    @Test("request lines are escaped and bodies left alone, however the bytes are split into reads")
    func framing() {
        let input = Array(Self.pipelined)
        for split in 0...input.count {
            var framing = RequestFraming()
            var output: [UInt8] = []
            for part in [Array(input[..<split]), Array(input[split...])] {
                let escaped = part.withUnsafeBytes { framing.pass($0) }
                output += escaped ?? part
            }
            #expect(Data(output) == Self.escaped, "split at \(split)")
            #expect(framing.phase == .requestLine(started: false), "split at \(split)")
        }
        // A head it cannot frame for sure (a length and chunks together): the rest passes as it came.
        var framing = RequestFraming()
        let ambiguous = Array("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nGET /é HTTP/1.1\r\n".utf8)
        #expect(ambiguous.withUnsafeBytes { framing.pass($0) } == nil && framing.isPassingThrough)
    }

    @Test("a chunk size that is not plain hex digits (a sign, 0x, too long) stops the framing: the rest passes as it came, in one step")
    func badChunkSizes() {
        for size in ["-5", "+5", "0x5", "-0", " -1", "1234567890abcdef0"] {
            // Given a chunked upload whose size line is not hex digits, followed by a request line to escape
            let text = "POST /é HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nGET /ü HTTP/1.1\r\n\r\n"
            var framing = RequestFraming()
            let escaped = Array(text.utf8).withUnsafeBytes { framing.pass($0) }
            // Then only the first request line is escaped, and the framing gives up (never walks backwards)
            let expected = text.replacingOccurrences(of: "POST /é ", with: "POST /%C3%A9 ")
            #expect(escaped.map { String(decoding: $0, as: UTF8.self) } == expected, "size \(size)")
            #expect(framing.isPassingThrough, "size \(size)")
        }
    }

    @Test("record forwards and records a raw UTF-8 query (curl) and path bytes escaped; serve matches the raw and the escaped forms")
    func recordAndServe() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking { try recordAndServe(upstream) }
    }

    private func recordAndServe(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("utf8.har")
        // Given a recording proxy.
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        // When curl sends a query's UTF-8 raw, and a raw client pipelines requests with raw bytes.
        let café = try curl([proxy.base + "/get?q=café"])
        let raw = rawExchange(port: proxy.port, send: Self.pipelined, shutdownWrite: false)
        #expect(proxy.stop() == 0, "\(proxy.errors)")

        // Then the upstream got them escaped, bodies byte for byte, and all were answered.
        #expect(café.code == 200 && String(decoding: café.body, as: UTF8.self).contains(#""query":"q=caf%C3%A9""#),
                "\(café.code) \(String(decoding: café.body, as: UTF8.self))")
        let answers = String(decoding: raw.received, as: UTF8.self)
        #expect(answers.components(separatedBy: "HTTP/1.1 200 ").count == 5, "\(answers)")
        #expect(raw.received.range(of: Data("GET /é\r\n\r\n".utf8)) != nil && raw.received.range(of: Data("ü\\ü".utf8)) != nil)
        #expect(answers.contains(#""query":"q=%E6%97%A5""#) && answers.contains(#""query":"q=a%5Cb&r=%C3%BC""#), "\(answers)")
        // And the cassette holds the escaped URLs.
        let urls = try CassetteFile.read(cassette).interactions.map { $0.request.url.absoluteString }
        let origin = upstream.baseURL.absoluteString
        #expect(urls == [origin + "/get?q=caf%C3%A9", origin + "/echo", origin + "/get?q=%E6%97%A5", origin + "/echo",
                         origin + "/get?q=a%5Cb&r=%C3%BC"], "\(urls)")

        // When serve replays it: the raw query, the escaped one and the raw path bytes all match.
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        defer { server.stop() }
        #expect(try curl([server.base + "/get?q=café"]).code == 200)
        #expect(try curl([server.base + "/get?q=caf%C3%A9"]).code == 200)
        let replayed = rawExchange(port: server.port, send: Data("GET /get?q=日 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
                                   shutdownWrite: false)
        #expect(replayed.statusLine == "HTTP/1.1 200 OK", "\(String(decoding: replayed.received, as: UTF8.self))")
    }

    @Test("OPTIONS * (asterisk-form, about the server) is answered 501 by record, never forwarded as OPTIONS /* nor recorded, and by serve")
    func asteriskForm() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("star.har")
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            let asked = rawExchange(port: proxy.port, send: Data("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
                                    shutdownWrite: false)
            let then = try curl([proxy.base + "/get?after=1"])
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(asked.statusLine == "HTTP/1.1 501 Not Implemented", "\(String(decoding: asked.received, as: UTF8.self))")
            #expect(then.code == 200)
            #expect(try CassetteFile.read(cassette).interactions.map(\.request.url.path) == ["/get"])

            let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
            defer { server.stop() }
            let replayed = rawExchange(port: server.port, send: Data("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
                                       shutdownWrite: false)
            #expect(replayed.statusLine == "HTTP/1.1 501 Not Implemented", "\(String(decoding: replayed.received, as: UTF8.self))")
        }
    }
}
