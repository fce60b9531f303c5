import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTestSupport
@testable import TapedeckServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What `tapedeck record` keeps of an upstream exchange: compressed bodies as they travelled,
/// header order and case, big bodies, concurrent exchanges, and failures with URLSession's codes.
@Suite("Server: what the recording proxy keeps", .serialized)
struct UpstreamRecordingTests {
    /// The header field names of a curl `-D` dump, in order (the last response's).
    private func names(_ head: String) -> [String] {
        let block = head.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        return block.split(separator: "\r\n").dropFirst().compactMap { line in line.split(separator: ":").first.map(String.init) }
    }

    @Test("a client using record as its HTTP proxy (curl -x, an absolute-form target) is forwarded and recorded at the path it asked for, whatever host it names, and serve replays it proxy-style")
    func absoluteFormTarget() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("proxy.har.gz")
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
            let viaProxy = try curl(["-x", proxy.base, upstream.baseURL.absoluteString + "/bytes/10?id=1"])
            // A client that names another host (its own name for the API) goes to the one upstream too.
            let named = try curl(["-x", proxy.base, "http://shop.test/bytes/12"])
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(viaProxy.code == 200 && viaProxy.body == Data(LoopbackServer.bytes(10)))
            #expect(named.code == 200 && named.body == Data(LoopbackServer.bytes(12)))
            let recorded = try CassetteFile.read(cassette).interactions
            #expect(recorded.map { $0.request.url.absoluteString }
                    == [upstream.baseURL.absoluteString + "/bytes/10?id=1", upstream.baseURL.absoluteString + "/bytes/12"])

            // Served back to the same clients, proxy-style: the named host is matched by its path
            // against the recorded origin (it was a miss: the cassette has no shop.test).
            let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
            defer { server.stop() }
            let replayedNamed = try curl(["-x", server.base, "http://shop.test/bytes/12"])
            #expect(replayedNamed.code == 200 && replayedNamed.body == named.body, "\(String(decoding: replayedNamed.body, as: UTF8.self))")
            let replayed = try curl(["-x", server.base, upstream.baseURL.absoluteString + "/bytes/10?id=1"])
            #expect(replayed.code == 200 && replayed.body == viaProxy.body)
        }
        #expect(RecordService.originForm("http://api.test:8080/items?id=1") == "/items?id=1")
        #expect(RecordService.originForm("HTTPS://api.test?q=1") == "/?q=1")
        #expect(RecordService.originForm("http://api.test") == "/")
        #expect(RecordService.originForm("/a/http://b") == "/a/http://b")
        #expect(RecordService.originForm("items") == "/items")
    }

    @Test("a Location naming the upstream by another loopback name (localhost for 127.0.0.1) points back at the proxy too")
    func loopbackAliasLocation() {
        #expect(ReplayService.loopbackAliases(of: "http://127.0.0.1:8080") == ["http://localhost:8080", "http://[::1]:8080"])
        #expect(ReplayService.loopbackAliases(of: "http://api.test:8080").isEmpty)
        let origin = "http://127.0.0.1:8080"
        for location in ["http://localhost:8080/next?a=1", "http://127.0.0.1:8080/next?a=1", "http://[::1]:8080/next?a=1"] {
            let plan = ResponsePlan(status: 302, headers: [("Location", location)])
            let answer = ReplayService.answer(plan, timing: .instant, origin: origin, aliases: ReplayService.loopbackAliases(of: origin),
                                              served: "127.0.0.1:9999")
            #expect(answer.headers.value(for: "Location") == "http://127.0.0.1:9999/next?a=1", "\(location)")
        }
        // Another port is another origin: left as it is.
        let other = ReplayService.answer(ResponsePlan(status: 302, headers: [("Location", "http://localhost:8081/x")]), timing: .instant,
                                         origin: origin, aliases: ReplayService.loopbackAliases(of: origin), served: "127.0.0.1:9999")
        #expect(other.headers.value(for: "Location") == "http://localhost:8081/x")
        // A default port spelt out is the same origin (record --upstream http://127.0.0.1:80).
        let spelt = ReplayService.answer(ResponsePlan(status: 302, headers: [("Location", "http://127.0.0.1/next")]), timing: .instant,
                                         origin: "http://127.0.0.1:80", served: "127.0.0.1:9999")
        #expect(spelt.headers.value(for: "Location") == "http://127.0.0.1:9999/next")
    }

    @Test("a gzip body reaches the client and the cassette as the upstream sent it; header order and case are kept; 24 MB pass whole")
    func wireBytes() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try wireBytes(upstream) }
    }

    private func wireBytes(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("wire.har.gz")
        let direct = try curl([upstream.baseURL.absoluteString + "/bytes/10"])
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        let gzip = try curl([proxy.base + "/gzip", "-H", "Accept-Encoding: gzip"])
        let small = try curl([proxy.base + "/bytes/10"])
        let large = try curl([proxy.base + "/large/24"])
        #expect(proxy.stop() == 0, "\(proxy.errors)")

        #expect(gzip.code == 200 && gzip.body.prefix(2) == Data([0x1F, 0x8B]), "the client gets the compressed bytes")
        let decoded = try Zlib.decompress(gzip.body, format: .gzip)
        #expect(String(decoding: decoded, as: UTF8.self).contains("/gzip"))
        #expect(small.body == Data(LoopbackServer.bytes(10)))
        #expect(large.code == 200 && large.body.count >= 24 * 1_048_576)

        let recorded = try CassetteFile.read(cassette).interactions
        #expect(recorded.map(\.request.url.path) == ["/gzip", "/bytes/10", "/large/24"])
        let gzipResponse = try #require(recorded.first?.response)
        #expect(gzipResponse.bodyForm == .wire && gzipResponse.body == gzip.body, "stored as it travelled")
        #expect(gzipResponse.headers.value(for: "Content-Encoding") == "gzip")
        #expect(recorded[1].response?.headers.map(\.name) == names(direct.head), "the upstream's field order and case")
        #expect(recorded[2].response?.body == large.body)

        // Replayed to curl: the same compressed bytes.
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        let replayed = try curl([server.base + "/gzip", "-H", "Accept-Encoding: gzip"])
        #expect(replayed.body == gzip.body)
        #expect(try curl([server.base + "/large/24"]).body == large.body)
        // And the replayed head has the upstream's fields in its order, Content-Length in its place
        // (and, at the end, the server's own Keep-Alive hint, which is about this connection).
        let replayedSmall = try curl([server.base + "/bytes/10"])
        #expect(names(replayedSmall.head) == names(direct.head) + ["Keep-Alive"], "\(replayedSmall.head)")
        #expect(server.stop() == 0)
    }

    @Test("an answer whose head is past llhttp's default 80 KiB (120 fields of 1,000 bytes) is passed on and recorded, not turned into a 502")
    func largeAnswerHead() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try largeAnswerHead(upstream) }
    }

    private func largeAnswerHead(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("big-head.har")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        let run = try curl([proxy.base + "/big-head/120"])
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        #expect(run.code == 200 && run.body == Data("big head".utf8), "\(run.code) \(String(decoding: run.body.prefix(300), as: UTF8.self))")
        #expect(run.head.lowercased().components(separatedBy: "x-filler-").count - 1 == 120)
        let recorded = try #require(try CassetteFile.read(cassette).interactions.first?.response)
        #expect(recorded.status == 200 && recorded.headers.filter { $0.name.lowercased().hasPrefix("x-filler-") }.count == 120)
    }

    @Test("48 concurrent URLSession requests through the proxy: every one answered and recorded, fewer fsyncs than records is allowed")
    func concurrentRecording() async throws {
        let upstream = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("many.har.gz")
        let proxy = try await blocking { try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path]) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<48 {
                group.addTask {
                    let (_, response) = try await session.data(from: URL(string: proxy.base + "/get?n=\(index)")!)
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 48))
        #expect(try await blocking { proxy.stop() } == 0)
        let queries = Set(try CassetteFile.read(cassette).interactions.compactMap(\.request.url.query))
        #expect(queries == Set((0..<48).map { "n=\($0)" }))
        let line = proxy.errors.split(separator: "\n").first { $0.contains("48 recorded in") }
        let fsyncs = line.flatMap { Int($0.components(separatedBy: "48 recorded in ").last?.prefix { $0.isNumber } ?? "") }
        #expect(fsyncs.map { (1...48).contains($0) } == true, "\(proxy.errors)")
    }

    @Test("a body is passed on as it arrives: the client has its first bytes while the upstream still holds the rest, and all of it is recorded")
    func streamsBodies() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try streamsBodies(upstream) }
    }

    private func streamsBodies(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("streamed.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        defer { proxy.stop() }
        let key = "stream-\(UUID().uuidString)", half = 65_536
        defer { LoopbackGates.open(key) }   // never leave the upstream's handler waiting
        // Given an upstream that sends half its body, then waits for the gate.
        let client = try RawClient(port: proxy.port)
        try client.send("GET /gated/\(key)/\(half) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        // When the client reads before the gate opens: body bytes arrive (a buffering proxy would
        // send nothing until the upstream finished, and this read would time out).
        let early = try client.readBody(atLeast: 1)
        #expect(early > 0 && early < 2 * half, "bytes before the upstream finished: \(early)")
        // Then, once the upstream finishes, the client gets all of it and the cassette holds it whole.
        LoopbackGates.open(key)
        let body = try client.readToEnd()
        let expected = Data(LoopbackServer.bytes(half) + LoopbackServer.bytes(half))
        #expect(body == expected)
        // A HEAD and a 204 pass through streaming too: the length without a body, no body at all.
        let head = rawExchange(port: proxy.port, send: Data("HEAD /bytes/10 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
                               shutdownWrite: false)
        let text = String(decoding: head.received, as: UTF8.self)
        #expect(head.statusLine == "HTTP/1.1 200 OK" && text.lowercased().contains("content-length: 10") && text.hasSuffix("\r\n\r\n"), "\(text)")
        #expect(try curl([proxy.base + "/status/204"]).code == 204)
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        #expect(try CassetteFile.read(cassette).interactions.first?.response?.body == expected)
    }

    @Test("a client that reads nothing holds the upstream back: the proxy does not queue a 32 MB body for it (only what arrived is held, once); read, it all arrives and is recorded",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads the proxy's memory from /proc"))
    func slowReaderBackpressure() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try slowReaderBackpressure(upstream) }
    }

    /// The resident memory of process `pid`, in bytes.
    private func residentBytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
    }

    private func slowReaderBackpressure(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("slow.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        defer { proxy.stop() }
        let pid = proxy.process.processIdentifier
        #expect(try curl([proxy.base + "/bytes/10"]).code == 200)   // the upstream client and its pool exist
        let baseline = residentBytes(pid)
        try #require(baseline > 0, "the proxy's resident memory could not be read")
        let client = try RawClient(port: proxy.port)
        try client.send("GET /large/32 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        // Without backpressure the upstream sends all 32 MB at loopback speed (well within this
        // watch), and the proxy holds it twice: for the journal and queued for the client.
        var peak = baseline
        for _ in 0..<60 {
            peak = max(peak, residentBytes(pid))
            if peak - baseline > 16 * 1_048_576 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(peak - baseline < 16 * 1_048_576, "the proxy grew by \((peak - baseline) / 1_048_576) MB for a client that read nothing")
        let body = try client.readToEnd()
        #expect(body.count >= 32 * 1_048_576 && body.suffix(1) == Data("\n".utf8))
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        #expect(try CassetteFile.read(cassette).interactions.last?.response?.body == body)
    }

    @Test("a client that stops reading for longer than --upstream-timeout still gets the whole answer: the pause is the client's, not the upstream's")
    func pausedReaderIsNoUpstreamTimeout() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("paused.har.gz")
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path,
                                           "--upstream-timeout", "1"])
            let client = try RawClient(port: proxy.port)
            try client.send("GET /large/8 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(try client.readBody(atLeast: 1) > 0)
            Thread.sleep(forTimeInterval: 2.5)   // the client, not the upstream, is slow
            let body = try client.readToEnd()
            #expect(body.count >= 8 * 1_048_576 && body.suffix(1) == Data("\n".utf8), "\(body.count) bytes")
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            let recorded = try #require(CassetteFile.read(cassette).interactions.last)
            #expect(recorded.response?.body == body, "recorded whole, not as a timeout")
        }
    }

    @Test("a client that goes away mid-stream stops the upstream exchange: nothing is left under way, nothing half-recorded")
    func clientGoneMidStream() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try clientGoneMidStream(upstream) }
    }

    private func clientGoneMidStream(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("gone.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        let key = "gone-\(UUID().uuidString)"
        defer { LoopbackGates.open(key) }
        // Given a client that reads the first part of a body the upstream has not finished.
        do {
            let client = try RawClient(port: proxy.port)
            try client.send("GET /gated/\(key)/4096 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            _ = try client.readBody(atLeast: 1)
        }   // When it closes its connection (RawClient's deinit).
        let other = try curl([proxy.base + "/get"])
        // Then the proxy stops at once on SIGTERM with nothing under way (without the cancel it
        // would wait out the upstream timeout and report a request cut off), and only the other
        // request is recorded.
        #expect(other.code == 200)
        #expect(proxy.stop() == 0, "\(proxy.errors)")
        #expect(!proxy.errors.contains("still under way"), "\(proxy.errors)")
        #expect(proxy.errors.contains("not recorded, the client went before its answer: GET /gated/\(key)/4096"), "said, with why: \(proxy.errors)")
        #expect(try CassetteFile.read(cassette).interactions.map(\.request.url.path) == ["/get"])
    }

    @Test("a cassette that cannot be journalled: refused at start (exit 2, nothing listens); lost after start: the client gets a failure, never the answer")
    func unwritableJournal() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try unwritableJournal(upstream) }
    }

    private func unwritableJournal(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given a --cassette whose directory is a file: refused before it listens.
        let blocker = directory.file("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let refused = try? ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", blocker.path + "/x.har.gz"])
        #expect(refused == nil, "it listened")
        // Given a recording whose directory is replaced by a file after it started.
        let sub = directory.file("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", sub.appendingPathComponent("x.har.gz").path])
        try FileManager.default.removeItem(at: sub)
        try Data("x".utf8).write(to: sub)   // a file in the directory's place (as root, permissions would not stop it)
        // When a client asks: then it does not get the whole answer the journal could not keep —
        // a 502 (nothing sent yet) or a reset connection (the head was streamed already).
        for path in ["/get", "/bytes/100"] {
            let run = try curl([proxy.base + path])
            let whole = run.status == 0 && run.code == 200
            #expect(!whole, "\(path): \(run.code) \(run.body.count) bytes, curl \(run.status)")
        }
        #expect(proxy.stop() != 0, "the lost interactions are reported: \(proxy.errors)")
        #expect(proxy.errors.contains("journal"), "\(proxy.errors)")
        // and each was said as it happened, not only at the stop
        #expect(proxy.errors.components(separatedBy: "tapedeck record: not recorded, ").count == 3, "\(proxy.errors)")
    }
}
