import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each socket fault of the scenario catalogue, seen by a real client (curl, URLSession) with the
/// error it reports.
@Suite("Server: socket faults seen by real clients", .serialized)
struct SocketFaultTests {
    private let body = Data((0..<4_000).map { UInt8($0 % 251) })

    /// A cassette answering GET http://api.test/PATH with `body` for each path, several times.
    private func cassette(in directory: TemporaryDirectory) throws -> URL {
        let file = directory.file("faults.har.gz")
        var interactions: [Interaction] = []
        for path in ["reset", "truncate", "lost", "stall", "status", "slow", "gzip", "plain", "coin"] {
            for _ in 0..<20 {
                interactions.append(Interaction(
                    index: interactions.count, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/\(path)")!),
                    outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/octet-stream")], body: body))))
            }
        }
        try CassetteFile.write(Cassette(interactions: interactions), to: file)
        return file
    }

    private func plan(in directory: TemporaryDirectory) throws -> URL {
        let file = directory.file("faults.yaml")
        try Data("""
        faults:
          - { kind: reset, afterBytes: 100, route: "GET /reset" }
          - { kind: truncate, afterBytes: 1000, route: "GET /truncate" }
          - { kind: connectionLost, route: "GET /lost" }
          - { kind: stall, route: "GET /stall" }
          - { kind: status, status: 503, retryAfter: 2s, headers: {content-type: text/html}, route: "GET /status" }
          - { kind: bandwidth, bytesPerSecond: 40000, route: "GET /slow" }
          - { kind: slowFirstByte, delay: 50ms, route: "GET /slow" }
          - { kind: corruptGzip, route: "GET /gzip" }
          - { name: coin, kind: connectionLost, probability: 500, route: "GET /coin" }
          - { kind: metrics, delivery: missing }
        """.utf8).write(to: file)
        return file
    }

    @Test("a miss gets no fault: its 404 explains itself even under a site that hits every exchange, and it still counts as one")
    func missesGetNoFaults() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let plan = directory.file("every.yaml")
        try Data("""
            faults:
              - {kind: status, status: 503, retryAfter: 1s, exchanges: 1-2}
              - {kind: reset, afterBytes: 1, route: "GET /nothing-here*", name: nowhere}
              - {kind: slowFirstByte, delay: 1ms, route: "GET /plain", name: plain}
            """.utf8).write(to: plan)
        let server = try ServerProcess(["serve", try cassette(in: directory).path, "--timing", "instant", "--faults", plan.path])
        // A route no entry answers is said at start: it could fire only on misses, which get none.
        #expect(server.errors.contains("fault nowhere: its route GET /nothing-here* matches no entry of"), "\(server.errors)")
        #expect(!server.errors.contains("fault plain:"), "\(server.errors)")
        let miss = try curl([server.base + "/nothing-here"])
        #expect(miss.code == 404 && miss.head.contains("X-Tapedeck-Miss: 1"), "\(miss.head)")
        #expect(try curl([server.base + "/plain"]).code == 503, "exchange 2 is still in the site's range")
        #expect(try curl([server.base + "/plain"]).code == 200, "exchange 3 is not: the miss was exchange 1")
    }

    @Test("the fault log names a request with its secret query items redacted; a HEAD route a GET entry answers is not warned about, and fires")
    func faultLogAndHead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // A recording keeps the token redacted; a replayed request with any token matches it.
        let cassette = directory.file("log.har.gz")
        try CassetteFile.write(Cassette(interactions: ["echo?access_token=REDACTED&page=1", "plain"].enumerated().map { index, path in
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/\(path)")!),
                        outcome: .response(RecordedResponse(status: 200, body: body)))
        }), to: cassette)
        let plan = directory.file("log.yaml")
        try Data("""
            faults:
              - {name: busy, kind: status, status: 503, route: "GET /echo*"}
              - {name: head-busy, kind: status, status: 503, route: "HEAD /plain"}
            """.utf8).write(to: plan)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--faults", plan.path])
        defer { server.stop() }
        #expect(!server.errors.contains("fault head-busy"), "a GET entry answers HEAD: \(server.errors)")
        #expect(try curl([server.base + "/echo?access_token=LEAKQ9&page=1"]).code == 503)
        #expect(try curl(["-I", server.base + "/plain"]).code == 503, "the HEAD route fires")
        let fired = String(decoding: try curl([server.base + "/__tapedeck/faults"]).body, as: UTF8.self)
        #expect(fired.contains("busy (status 503) on GET http://api.test/echo?access_token=REDACTED&page=1 #1, the 1st time that request came"), "\(fired)")
        #expect(fired.contains("head-busy (status 503) on HEAD http://api.test/plain"), "\(fired)")
        #expect(!fired.contains("LEAKQ9") && !server.errors.contains("LEAKQ9"), "\(fired) \(server.errors)")
    }

    @Test("reset, truncate, connection lost, stall, status + Retry-After, bandwidth, corrupt gzip: curl's errors")
    func curlSeesEachFault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let server = try ServerProcess(["serve", try cassette(in: directory).path, "--timing", "instant", "--faults", try plan(in: directory).path, "--seed", "3"])
        #expect(server.errors.contains("metrics-10 (metrics) is a client-side effect"), "\(server.errors)")
        let reset = try curl([server.base + "/reset"])
        #expect(reset.status == 56 || reset.status == 18, "reset after 100 bytes: \(reset.status) \(reset.errors)")
        #expect(reset.body.count <= 100)
        let truncated = try curl([server.base + "/truncate"])
        #expect(truncated.status == 18, "curl: transfer closed with bytes remaining: \(truncated.errors)")
        #expect(truncated.body == body.prefix(1_000))
        let lost = try curl([server.base + "/lost"])
        #expect(lost.status == 52 || lost.status == 56, "empty reply / reset: \(lost.status) \(lost.errors)")
        let stalled = try curl(["--max-time", "1", server.base + "/stall"])
        #expect(stalled.status == 28, "only the client's timeout ends a stall: \(stalled.errors)")
        let busy = try curl([server.base + "/status"])
        #expect(busy.code == 503 && busy.head.contains("Retry-After: 2"), "\(busy.head)")
        // The fault's field replaces the recorded one of its name, whatever its case.
        #expect(busy.head.lowercased().components(separatedBy: "content-type:").count == 2 && busy.head.contains("content-type: text/html"), "\(busy.head)")
        let slow = try curl([server.base + "/slow"])
        #expect(slow.status == 0 && slow.body == body, "bandwidth and a slow first byte only slow it down")
        let gzip = try curl(["--compressed", server.base + "/gzip"])
        #expect(gzip.status == 61, "bad content encoding: \(gzip.status) \(gzip.errors)")
        let plain = try curl([server.base + "/plain"])
        #expect(plain.status == 0 && plain.body == body, "no fault on other routes")
        let fired = String(decoding: try curl([server.base + "/__tapedeck/faults"]).body, as: UTF8.self)
        #expect(fired.contains("truncate-2 (truncate after 1000 bytes) on GET http://api.test/truncate #1, the 1st time that request came"), "\(fired)")
        server.stop()
    }

    @Test("several sites on one route, as in a scenario run: a latency adds to the first other site that fires, later ones wait; a status override gets its own reason phrase")
    func firstSiteActs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("stack.har.gz")
        try CassetteFile.write(Cassette(interactions: ["a", "b"].enumerated().map { index, path in
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/\(path)")!),
                        outcome: .response(RecordedResponse(status: 200, statusText: "Fine Thanks", body: body)))
        }), to: cassette)
        let plan = directory.file("stack.yaml")
        try Data("""
        faults:
          - { name: wait, kind: latency, delay: 1ms, route: "GET /a" }
          - { name: busy-a, kind: status, status: 503, retryAfter: 2s, route: "GET /a" }
          - { name: cut-a, kind: truncate, afterBytes: 5, route: "GET /a" }
          - { name: busy-b, kind: status, status: 429, retryAfter: 1s, route: "GET /b" }
          - { name: busy-b2, kind: status, status: 503, retryAfter: 9s, route: "GET /b" }
        """.utf8).write(to: plan)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--faults", plan.path])
        defer { server.stop() }
        // Given a latency, a 503 and a truncation on /a, When curl asks, Then it gets a slow 503, whole
        let first = try curl([server.base + "/a"])
        #expect(first.status == 0 && first.code == 503 && first.body == body, "the latency and the status act: \(first.head)")
        #expect(first.head.hasPrefix("HTTP/1.1 503 Service Unavailable") && first.head.contains("Retry-After: 2"), "\(first.head)")
        let second = try curl([server.base + "/b"])
        #expect(second.head.hasPrefix("HTTP/1.1 429 Too Many Requests"), "the override's phrase: \(second.head)")
        #expect(second.head.components(separatedBy: "Retry-After").count == 2 && second.head.contains("Retry-After: 1"), "\(second.head)")
        let fired = String(decoding: try curl([server.base + "/__tapedeck/faults"]).body, as: UTF8.self)
        #expect(fired.contains("wait (latency ") && fired.contains("busy-a (status ") && fired.contains("busy-b (status "), "\(fired)")
        #expect(!fired.contains("cut-a") && !fired.contains("busy-b2"), "\(fired)")
    }

    @Test("URLSession reports a reset, a truncation and a lost connection as URLErrors")
    func urlSessionSeesFaults() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let arguments = ["serve", try cassette(in: directory).path, "--timing", "instant", "--faults", try plan(in: directory).path]
        let server = try await blocking { try ServerProcess(arguments) }
        let session = URLSession(configuration: .ephemeral)
        for path in ["/reset", "/truncate", "/lost"] {
            do {
                let (data, _) = try await session.data(from: URL(string: server.base + path)!)
                Issue.record("\(path) completed with \(data.count) bytes")
            } catch let error as URLError {
                #expect([.networkConnectionLost, .cannotParseResponse, .badServerResponse, .unknown].contains(error.code), "\(path): \(error)")
            }
        }
        _ = try await blocking { server.stop() }
    }

    @Test("a plan and a seed reproduce which requests get which fault, whatever the timing")
    func seeded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try cassette(in: directory), plan = try plan(in: directory)
        func outcomes(seed: Int) throws -> [Int32] {
            let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--faults", plan.path, "--seed", String(seed)])
            defer { server.stop() }
            return try (0..<12).map { _ in try curl([server.base + "/coin"]).status }
        }
        let first = try outcomes(seed: 11)
        #expect(try outcomes(seed: 11) == first)
        #expect(first.contains(0) && first.contains { $0 != 0 }, "probability 500 fires on some, not all: \(first)")
        #expect(try outcomes(seed: 12) != first, "another seed, other requests")
    }

    @Test("admin requests are not exchanges: health polls between requests do not shift which one an `exchanges` site hits")
    func adminRequestsNotCounted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try cassette(in: directory)
        let plan = directory.file("second.yaml")
        try Data("faults: [{kind: connectionLost, exchanges: [2]}]".utf8).write(to: plan)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--faults", plan.path])
        defer { server.stop() }
        var statuses: [String] = []
        for _ in 0..<3 {
            statuses.append("health \(try curl([server.base + "/__tapedeck/health"]).code)")
            statuses.append("plain \(try curl([server.base + "/plain"]).status)")
        }
        // curl's 0 is success; the second plain request (exchange 2) has its connection dropped.
        #expect(statuses == ["health 200", "plain 0", "health 200", "plain 52", "health 200", "plain 0"]
                || statuses == ["health 200", "plain 0", "health 200", "plain 56", "health 200", "plain 0"], "\(statuses)")
    }

    @Test("a client that gives up on a stalled request is let go: its connection closes, so stalls never use up --max-connections")
    func stalledClientIsLetGo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let server = try ServerProcess(["serve", try cassette(in: directory).path, "--timing", "instant", "--faults", try plan(in: directory).path,
                                        "--max-connections", "2"])
        defer { server.stop() }
        for _ in 0..<4 {
            // The request stalls; the client stops waiting and closes its side
            let stalled = rawExchange(port: server.port, send: Data("GET /stall HTTP/1.1\r\nHost: api.test\r\n\r\n".utf8),
                                      shutdownWrite: true, timeout: 5)
            #expect(!stalled.timedOut && stalled.received.isEmpty, "the server closes the connection, answering nothing")
        }
        // Four abandoned stalls later, with room for two connections, a request is still answered
        let plain = try curl(["-H", "Host: api.test", server.base + "/plain"])
        #expect(plain.code == 200, "\(plain.head)")
    }

    @Test("a truncation at the body's end cuts nothing: not listed among the faults that fired, and the status site after it answers")
    func cutPastTheEndIsNoFiring() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let plan = directory.file("end.yaml")
        try Data("""
        faults:
          - { name: at-end, kind: truncate, afterBytes: 4000, route: "GET /plain" }
          - { name: broken, kind: status, status: 500, route: "GET /plain" }
        """.utf8).write(to: plan)
        let server = try ServerProcess(["serve", try cassette(in: directory).path, "--timing", "instant", "--faults", plan.path])
        defer { server.stop() }
        let answer = try curl(["-H", "Host: api.test", server.base + "/plain"])
        #expect(answer.code == 500, "\(answer.head)")
        let fired = String(decoding: try curl([server.base + "/__tapedeck/faults"]).body, as: UTF8.self)
        #expect(fired.contains("broken") && !fired.contains("at-end"), "\(fired)")
    }

    @Test("a corrupt gzip of an answer with no body (a 304, an answer to HEAD) changes nothing: no Content-Encoding added, not listed as fired; a GET with a body is corrupted")
    func corruptGzipNeedsABody() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("bodiless.har.gz")
        let interactions = [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/cached")!),
                        outcome: .response(RecordedResponse(status: 304, headers: [HeaderField("ETag", "\"v1\"")]))),
            Interaction(index: 1, request: RecordedRequest(method: "HEAD", url: URL(string: "http://api.test/plain")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Length", "4000")], body: body))),
            Interaction(index: 2, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/plain")!),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/octet-stream")], body: body))),
        ]
        try CassetteFile.write(Cassette(interactions: interactions), to: file)
        let plan = directory.file("corrupt.yaml")
        try Data("""
        faults:
          - { name: mangle, kind: corruptGzip }
        """.utf8).write(to: plan)
        let server = try ServerProcess(["serve", file.path, "--timing", "instant", "--faults", plan.path])
        defer { server.stop() }
        let notModified = try curl(["-H", "Host: api.test", "-H", "If-None-Match: \"v1\"", server.base + "/cached"])
        #expect(notModified.code == 304 && !notModified.head.lowercased().contains("content-encoding"), "\(notModified.head)")
        let head = try curl(["-I", "-H", "Host: api.test", server.base + "/plain"])
        #expect(head.code == 200 && !head.head.lowercased().contains("content-encoding"), "\(head.head)")
        let firedBefore = String(decoding: try curl([server.base + "/__tapedeck/faults"]).body, as: UTF8.self)
        #expect(!firedBefore.contains("mangle"), "\(firedBefore)")
        let get = try curl(["-H", "Host: api.test", server.base + "/plain"])
        #expect(get.head.lowercased().contains("content-encoding: gzip") && get.body != body, "\(get.head)")
        let firedAfter = String(decoding: try curl([server.base + "/__tapedeck/faults"]).body, as: UTF8.self)
        #expect(firedAfter.contains("mangle"), "\(firedAfter)")
    }
}
