import Foundation
import Testing
import TapedeckCassettes
import TapedeckServer
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Limits, malformed input and a fuzz run against the server over real sockets.
@Suite("Server: limits, malformed requests, fuzz", .serialized)
struct LimitsTests {
    private func service() -> ReplayService {
        let url = URL(string: "http://api.test/ok")!
        let cassette = Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: url), outcome: .response(RecordedResponse(status: 200, body: Data("fine".utf8)))),
        ])
        return ReplayService(cassette: cassette, options: .init(timing: .instant))
    }

    private func server(_ edit: (inout ServerOptions) -> Void = { _ in }) throws -> TapedeckHTTPServer {
        var options = ServerOptions()
        options.threads = 1
        edit(&options)
        return try TapedeckHTTPServer(service: service(), options: options)
    }

    @Test("garbage, two Host fields or an invalid one → 400, a head over the limit → 431, a body over the limit → 413, a slow head → 408; the server keeps serving")
    func limits() throws {
        let server = try server {
            $0.maxHeaderBytes = 1_024
            $0.maxBodyBytes = 100
            $0.headerTimeout = .milliseconds(200)
        }
        defer { try? server.shutdown() }
        #expect(rawExchange(port: server.port, send: Data("NOT HTTP AT ALL\r\n\r\n".utf8)).statusLine == "HTTP/1.1 400 Bad Request")
        let twoHosts = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: a.test\r\nhost: b.test\r\n\r\n".utf8))
        #expect(twoHosts.statusLine == "HTTP/1.1 400 Bad Request", "which host was meant is not guessed")
        let noHost = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nAccept: */*\r\n\r\n".utf8))
        #expect(noHost.statusLine == "HTTP/1.1 400 Bad Request" && String(decoding: noHost.received, as: UTF8.self).contains("Host"), "RFC 9112 §3.2")
        #expect(rawExchange(port: server.port, send: Data("GET /ok HTTP/1.0\r\n\r\n".utf8)).statusLine == "HTTP/1.1 200 OK", "HTTP/1.0 needs none")
        let coded = rawExchange(port: server.port, send: Data("POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
        #expect(coded.statusLine == "HTTP/1.1 501 Not Implemented" && String(decoding: coded.received, as: UTF8.self).contains("'gzip'"),
                "a transfer coding it cannot undo is refused, not passed on as plain bytes: \(coded.statusLine)")
        for host in ["a b", "[zz", "x:99999", "x:8o", "[::1]x", "h\u{e9}.test"] {
            let bad = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8))
            #expect(bad.statusLine == "HTTP/1.1 400 Bad Request", "Host: \(host) is no host[:port]: \(bad.statusLine)")
        }
        for host in ["api.test", "127.0.0.1:8080", "[::1]:9000", "localhost:", "my_host.local"] {
            let good = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
            #expect(good.statusLine == "HTTP/1.1 200 OK", "Host: \(host): \(good.statusLine)")
        }
        let big = "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 4_000))\r\n\r\n"
        #expect(rawExchange(port: server.port, send: Data(big.utf8)).statusLine.hasPrefix("HTTP/1.1 431"))
        let body = "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n" + String(repeating: "b", count: 500)
        #expect(rawExchange(port: server.port, send: Data(body.utf8)).statusLine.hasPrefix("HTTP/1.1 413"))
        let chunked = "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n200\r\n" + String(repeating: "c", count: 512) + "\r\n0\r\n\r\n"
        #expect(rawExchange(port: server.port, send: Data(chunked.utf8)).statusLine.hasPrefix("HTTP/1.1 413"))
        let slow = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHo".utf8), shutdownWrite: false)
        #expect(slow.statusLine.hasPrefix("HTTP/1.1 408") && !slow.timedOut)
        // A head whose promised body never comes cannot hold the connection either.
        let stuck = rawExchange(port: server.port, send: Data("POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc".utf8),
                                shutdownWrite: false)
        #expect(stuck.statusLine.hasPrefix("HTTP/1.1 408") && !stuck.timedOut, "\(stuck.statusLine)")
        // A CONNECT the cassette does not answer: the head, then the connection closes (an
        // answer to CONNECT carries no body), though the client did not half-close.
        let connect = rawExchange(port: server.port, send: Data("CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n".utf8),
                                  shutdownWrite: false, timeout: 5)
        #expect(connect.statusLine.hasPrefix("HTTP/1.1 404") && !connect.timedOut, "\(connect.statusLine)")
        let fine = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n".utf8))
        #expect(fine.statusLine == "HTTP/1.1 200 OK" && String(decoding: fine.received, as: UTF8.self).hasSuffix("fine"))
    }

    @Test("a slow upload that keeps sending is not cut at the header timeout: the bound is between the body's reads")
    func slowUploadStillMoving() throws {
        // The bound is 1.5 s; the body takes 2.4 s to come, 0.6 s between pieces.
        let server = try server { $0.headerTimeout = .milliseconds(1_500) }
        defer { try? server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("POST /ok HTTP/1.1\r\nHost: api.test\r\nContent-Length: 4\r\nConnection: close\r\n\r\n")
        for piece in ["a", "b", "c", "d"] {
            Thread.sleep(forTimeInterval: 0.6)
            try client.send(piece)
        }
        _ = try client.readToEnd()
        // The whole request reached the cassette (which recorded only a GET: a miss), not a 408.
        #expect(client.head?.hasPrefix("http/1.1 404") == true, "\(client.head ?? "no head")")
    }

    @Test("an idle keep-alive connection, and one that never sends a byte, are closed quietly at the header timeout: no 408 waits in the socket for the next request")
    func idleConnectionsCloseQuietly() throws {
        let server = try server { $0.headerTimeout = .milliseconds(200) }
        defer { try? server.shutdown() }
        let idle = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: api.test\r\n\r\n".utf8), shutdownWrite: false)
        let text = String(decoding: idle.received, as: UTF8.self)
        #expect(!idle.timedOut, "the idle connection was closed")
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2 && text.hasPrefix("HTTP/1.1 200") && !text.contains("408"), "\(text)")
        let silent = rawExchange(port: server.port, send: Data(), shutdownWrite: false)
        #expect(!silent.timedOut && silent.received.isEmpty, "\(String(decoding: silent.received, as: UTF8.self))")
    }

    @Test("with few descriptors (ulimit -n 256) the connection limit shrinks to fit, with a warning: connections past it get 503, not an accept loop that answers nobody")
    func descriptorLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("one.har")
        try CassetteFile.write(Cassette(interactions: [Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/ok")!),
                                                                   outcome: .response(RecordedResponse(status: 200, body: Data("fine".utf8))))]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--threads", "1"], shellFirst: "ulimit -n 256")
        defer { server.stop() }
        // 256, less 64 kept for the rest and 3 for the one event loop thread.
        #expect(server.errors.contains("--max-connections 4096 is more than this process can open (ulimit -n); using 189"), "\(server.errors)")
        // Hold 189 connections open; the server accepts in connection order, so the next one is the 190th.
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        for _ in 0..<189 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(server.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            held.append(descriptor)
        }
        let over = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: api.test\r\n\r\n".utf8))
        #expect(over.statusLine.hasPrefix("HTTP/1.1 503") && !over.timedOut, "\(over.statusLine)")
    }

    /// Answers every request with an interim status, whole or streamed (`?stream`).
    private struct InterimService: ExchangeService {
        func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void) {
            if request.target.hasSuffix("?stream"), let stream = request.stream {
                stream.head(ServerAnswer(status: 103))
                stream.end()
            } else {
                answer(ServerAnswer(status: 100, body: Data("x".utf8)))
            }
        }
    }

    @Test("an answer with an interim status (1xx), whole or streamed, is answered 502 and the server keeps serving (NIO trapped on it)")
    func interimStatusIsNoAnswer() throws {
        var options = ServerOptions()
        options.threads = 1
        let server = try TapedeckHTTPServer(service: InterimService(), options: options)
        defer { try? server.shutdown() }
        for target in ["/a", "/a?stream", "/b"] {
            let reply = rawExchange(port: server.port, send: Data("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(reply.statusLine == "HTTP/1.1 502 Bad Gateway" && !reply.timedOut, "\(target): \(reply.statusLine)")
        }
        // A HAR entry with a 1xx status is skipped when read, with the reason.
        let har = #"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"request":{"method":"GET","url":"http://a.test/"},"response":{"status":103,"content":{}}}]}}"#
        let cassette = try HARCodec.decode(Data(har.utf8), file: "hints.har")
        #expect(cassette.interactions.isEmpty && cassette.skipped.first?.error.reason.contains("interim answer (1xx)") == true)
    }

    @Test("one connection over the limit gets 503 and is closed; CLI refuses a non-loopback address without the flag")
    func connectionLimit() throws {
        let server = try server { $0.maxConnections = 1 }
        defer { try? server.shutdown() }
        // Hold one connection open (no request yet), then a second one is refused.
        let holder = Thread {
            _ = rawExchange(port: server.port, send: Data(), shutdownWrite: false, timeout: 3)
        }
        holder.start()
        while server.openConnections < 1 { sched_yield() }   // polls the count, not a clock
        let refused = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(refused.statusLine.hasPrefix("HTTP/1.1 503"), "\(refused.statusLine)")
        let run = try runTapedeck(["serve", "/nonexistent.har", "--listen", "0.0.0.0:0"])
        #expect(run.status == 64 && run.errors.contains("--allow-non-loopback"), "\(run.errors)")
        let named = try runTapedeck(["serve", "/nonexistent.har", "--listen", "127.example.com:0"])
        #expect(named.status == 64 && named.errors.contains("--allow-non-loopback"), "a name that starts like 127.x is not loopback")
        let nan = try runTapedeck(["serve", "/nonexistent.har", "--header-timeout", "nan"])
        #expect(nan.status == 64 && nan.errors.contains("--header-timeout"), "\(nan.errors)")
        // An upstream with a path would have it silently dropped: refused, saying so.
        let path = try runTapedeck(["record", "--upstream", "http://127.0.0.1:9/api/v2", "--cassette", "/tmp/never-written.har.gz"])
        #expect(path.status == 64 && path.errors.contains("without a path"), "\(path.errors)")
        let passthrough = try runTapedeck(["serve", "/nonexistent.har", "--on-miss", "passthrough=http://127.0.0.1:9/api"])
        #expect(passthrough.status == 64 && passthrough.errors.contains("without a path"), "\(passthrough.errors)")
        #expect(ReplayService.isOrigin(URL(string: "http://127.0.0.1:8080/")!) && !ReplayService.isOrigin(URL(string: "http://h.test?x=1")!))
        // A port past 65535 would reach another port (modulo 65,536) than the one named
        #expect(!ReplayService.isOrigin(URL(string: "http://127.0.0.1:70000")!) && !ReplayService.isOrigin(URL(string: "http://127.0.0.1:0")!))
        #expect(ReplayService.isOrigin(URL(string: "http://127.0.0.1:65535")!))
    }

    @Test("a 204 or 304 answer carries no body bytes and no framing, even when its recording has some or names its status its own way (Werkzeug's NO CONTENT): the next answer on the connection stays framed",
          arguments: [(204, ""), (204, "NO CONTENT"), (304, "NOT MODIFIED")])
    func bodylessStatus(_ status: Int, _ phrase: String) throws {
        let cassette = Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/gone")!),
                        outcome: .response(RecordedResponse(status: status, statusText: phrase, body: Data("leak".utf8)))),
            Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/ok")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("fine".utf8)))),
        ])
        var options = ServerOptions()
        options.threads = 1
        let server = try TapedeckHTTPServer(service: ReplayService(cassette: cassette, options: .init(timing: .instant)), options: options)
        defer { try? server.shutdown() }
        // (Conditional: serve answers a recorded 304 only to a conditional request.)
        let both = rawExchange(port: server.port, send: Data(
            "GET /gone HTTP/1.1\r\nHost: api.test\r\nIf-None-Match: \"v1\"\r\n\r\nGET /ok HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n".utf8))
        let text = String(decoding: both.received, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 \(status)") && !text.contains("leak") && text.hasSuffix("fine"), "\(text)")
        #expect(!text.lowercased().contains("transfer-encoding") && text.components(separatedBy: "HTTP/1.1 200").count == 2, "\(text)")
    }

    @Test("a body the writer did not capture goes out empty without its Content-Encoding (no decoder then fails on zero bytes of gzip); a HEAD keeps it")
    func uncapturedEncodedBody() throws {
        let headers = [HeaderField("Content-Type", "text/css"), HeaderField("Content-Encoding", "br")]
        let cassette = Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/site.css")!),
                        outcome: .response(RecordedResponse(status: 200, headers: headers))),
            Interaction(index: 1, request: RecordedRequest(method: "HEAD", url: URL(string: "http://api.test/site.css")!),
                        outcome: .response(RecordedResponse(status: 200, headers: headers))),
        ])
        var options = ServerOptions()
        options.threads = 1
        let server = try TapedeckHTTPServer(service: ReplayService(cassette: cassette, options: .init(timing: .instant)), options: options)
        defer { try? server.shutdown() }
        let both = rawExchange(port: server.port, send: Data(
            "GET /site.css HTTP/1.1\r\nHost: api.test\r\n\r\nHEAD /site.css HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n".utf8))
        let answers = String(decoding: both.received, as: UTF8.self).lowercased().components(separatedBy: "http/1.1 200")
        #expect(answers.count == 3, "\(answers)")
        #expect(answers.count == 3 && !answers[1].contains("content-encoding") && answers[1].contains("content-length: 0"), "\(answers)")
        #expect(answers.count == 3 && answers[2].contains("content-encoding: br"), "\(answers)")
    }

    @Test("a client speaking HTTP/2 from the first byte gets HTTP/2's HTTP_1_1_REQUIRED: curl --http2-prior-knowledge retries over HTTP/1.1 and gets its answer; a client that stays gets a GOAWAY saying why")
    func http2PriorKnowledge() throws {
        let server = try server()
        defer { try? server.shutdown() }
        let run = try curl(["--http2-prior-knowledge", "-v", "http://127.0.0.1:\(server.port)/ok"])
        #expect(run.status == 0 && run.code == 200 && String(decoding: run.body, as: UTF8.self) == "fine", "\(run.errors)")
        #expect(run.errors.contains("HTTP_1_1_REQUIRED"), "curl read the reset's reason: \(run.errors)")
        // A client that neither retries nor closes: SETTINGS and stream 1's reset at once, then
        // a GOAWAY with HTTP_1_1_REQUIRED and the reason as its debug data, then the close.
        let preface = Data("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Data([0, 0, 0, 4, 0, 0, 0, 0, 0])
        let raw = rawExchange(port: server.port, send: preface, shutdownWrite: false)
        let bytes = [UInt8](raw.received)
        #expect(Array(bytes.prefix(22)) == [0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 4, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0x0d], "\(bytes)")
        #expect(!raw.timedOut && bytes.count > 39 && bytes[25] == 7 && Array(bytes[35..<39]) == [0, 0, 0, 0x0d], "\(bytes)")
        #expect(String(decoding: bytes.dropFirst(39), as: UTF8.self).contains("HTTP/1.1 only"))
        // A preface pipelined behind an HTTP/1.1 request is no HTTP/2 client's: that answer goes out
        // whole, then an HTTP/1.1 505, no HTTP/2 frame.
        let behind = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: x\r\n\r\nPRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8))
        let text = String(decoding: behind.received, as: UTF8.self)
        #expect(behind.statusLine == "HTTP/1.1 200 OK" && text.contains("fine" + "HTTP/1.1 505 ") && !text.contains("\0"), "\(text)")
    }

    @Test("loopback means 127.0.0.0/8 as four decimal octets, ::1 or localhost", arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("::1", true),
        ("127.example.com", false), ("127.0.0.1.nip.io", false), ("0.0.0.0", false), ("10.0.0.1", false), ("127.0.0.256", false), ("127.+1.0.1", false),
    ])
    func loopback(_ host: String, _ isLoopback: Bool) {
        #expect(ServerOptions.isLoopback(host) == isLoopback)
    }

    @Test("a few thousand mutated requests: every one answered or closed, none hangs, and the server still serves")
    func fuzz() throws {
        let server = try server { $0.headerTimeout = .seconds(2) }
        defer { try? server.shutdown() }
        let seeds = [
            "GET /ok HTTP/1.1\r\nHost: api.test\r\n\r\n",
            "POST /ok HTTP/1.1\r\nHost: api.test\r\nContent-Length: 5\r\n\r\nhello",
            "POST /ok HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "GET /ok?x=1&y=%20 HTTP/1.0\r\n\r\n",
        ].map { Array($0.utf8) }
        var generator = FuzzGenerator(state: 0x5EED)
        var answered = 0, closed = 0
        for round in 0..<2_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + generator.next(8)) {
                let position = generator.next(bytes.count)
                switch generator.next(4) {
                case 0: bytes[position] = UInt8(generator.next(256))
                case 1: bytes.insert(UInt8(generator.next(256)), at: position)
                case 2: if bytes.count > 1 { bytes.remove(at: position) }
                default: bytes.insert(contentsOf: bytes[position...].prefix(generator.next(16)), at: position)
                }
            }
            let exchange = rawExchange(port: server.port, send: Data(bytes), timeout: 10)
            #expect(!exchange.timedOut, "round \(round) hung: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if exchange.received.isEmpty { closed += 1 } else { answered += 1 }
            if exchange.timedOut { break }
        }
        #expect(answered > 1_000, "most mutated requests get an HTTP answer (\(answered) answered, \(closed) closed)")
        // A CONNECT the cassette does not answer: the head, then the connection closes (an
        // answer to CONNECT carries no body), though the client did not half-close.
        let connect = rawExchange(port: server.port, send: Data("CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n".utf8),
                                  shutdownWrite: false, timeout: 5)
        #expect(connect.statusLine.hasPrefix("HTTP/1.1 404") && !connect.timedOut, "\(connect.statusLine)")
        let fine = rawExchange(port: server.port, send: Data("GET /ok HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n".utf8))
        #expect(fine.statusLine == "HTTP/1.1 200 OK")
    }
}

/// SplitMix64: reproducible mutations.
struct FuzzGenerator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
    }
}
