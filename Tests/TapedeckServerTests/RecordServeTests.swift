import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTesting
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck record` and `tapedeck serve` as child processes, with curl and URLSession as clients.
@Suite("Server: record and serve over real sockets", .serialized)
struct RecordServeTests {
    /// The curl invocations both the recording and the replay run (paths relative to the server).
    private let requests: [[String]] = [
        ["/get?x=1"], ["/bytes/20000"], ["/redirect/2", "-L"], ["/status/503"], ["/echo", "--data-binary", "ping-pong"],
        ["/get?x=1"],
        // Raw brackets and `|` beside escapes, as Node's fetch, httpx and Chromium send them (curl -g).
        ["/get?filter[name]=%C3%A9&sel=a|b", "-g"],
    ]

    private func run(_ base: String) throws -> [CurlRun] {
        try requests.map { request in try curl([base + request[0]] + request.dropFirst()) }
    }

    @Test("record → stop upstream → serve: curl gets identical statuses and bytes; redirects are separate entries")
    func recordThenServe() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try recordThenServe(upstream) }
    }

    private func recordThenServe(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("curl.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--listen", "127.0.0.1:0"])
        let live = try run(proxy.base)
        #expect(proxy.stop(SIGTERM) == 0, "SIGTERM finalises and exits 0: \(proxy.errors)")
        upstream.stop()
        #expect(live.map(\.status) == Array(repeating: 0, count: requests.count), "\(live.map(\.errors))")
        #expect(live.map(\.code) == [200, 200, 200, 503, 200, 200, 200])
        #expect(live[1].body.count == 20_000)
        #expect(live[4].body == Data("ping-pong".utf8))
        // Only the characters a URL cannot hold are escaped on the way; the client's own escapes
        // reach the upstream as they were (not `%25C3%25A9`).
        #expect(String(decoding: live[6].body, as: UTF8.self).contains(#""query":"filter%5Bname%5D=%C3%A9&sel=a%7Cb""#),
                "\(String(decoding: live[6].body, as: UTF8.self))")

        let recorded = try CassetteFile.read(cassette)
        let paths = recorded.interactions.map { $0.request.url.path }
        #expect(paths == ["/get", "/bytes/20000", "/redirect/2", "/redirect/1", "/redirect/0", "/status/503", "/echo", "/get", "/get"], "\(paths)")
        #expect(recorded.interactions[2].response?.status == 302)

        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        let replayed = try run(server.base)
        #expect(replayed.map(\.code) == live.map(\.code))
        #expect(replayed.map(\.body) == live.map(\.body), "identical bytes")
        let misses = try curl([server.base + "/__tapedeck/misses"])
        #expect(misses.body.isEmpty, "\(String(decoding: misses.body, as: UTF8.self))")
        #expect(server.stop(SIGINT) == 0)
    }

    @Test("--listen localhost answers on both loopback addresses, one port: a client resolving localhost to ::1 (Node on macOS) reaches it too")
    func localhostIsBothLoopbacks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("one.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/items")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("items".utf8)))),
        ]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--listen", "localhost:0"])
        defer { server.stop() }
        #expect(try curl(["http://127.0.0.1:\(server.port)/items"]).body == Data("items".utf8))
        let six = try curl(["-g", "http://[::1]:\(server.port)/__tapedeck/health"])
        #expect(six.code == 200, "\(six.errors)")
    }

    @Test("a miss answers 404 naming the closest entry, is logged, and the admin reset replays from the start")
    func missAndReset() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("two.har")
        let url = URL(string: "http://api.test/items")!
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: url), outcome: .response(RecordedResponse(status: 200, body: Data("first".utf8)))),
            Interaction(index: 1, request: RecordedRequest(method: "GET", url: url), outcome: .response(RecordedResponse(status: 200, body: Data("second".utf8)))),
        ]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        #expect(try curl([server.base + "/items"]).body == Data("first".utf8))
        #expect(try curl([server.base + "/items"]).body == Data("second".utf8), "identical requests get the recorded answers in order")
        let miss = try curl([server.base + "/itemz"])
        #expect(miss.code == 404)
        let text = String(decoding: miss.body, as: UTF8.self)
        #expect(text.contains("no recorded interaction matches GET http://api.test/itemz") && text.contains("entry 0 (and 1, the same) GET http://api.test/items"), "\(text)")
        #expect(String(decoding: try curl([server.base + "/__tapedeck/misses"]).body, as: UTF8.self).contains("/itemz"))
        #expect(try curl(["-X", "POST", server.base + "/__tapedeck/reset"]).code == 200)
        #expect(try curl([server.base + "/items"]).body == Data("first".utf8), "reset: played from the start again")
        kill(server.process.processIdentifier, SIGHUP)
        // After SIGHUP the next answer is the first again; poll the admin endpoint until the miss log is empty.
        while try !curl([server.base + "/__tapedeck/misses"]).body.isEmpty {}
        #expect(try curl([server.base + "/items"]).body == Data("first".utf8))
        #expect(server.stop() == 0)
        // The stop line counts the server's whole life, and since the last reset.
        #expect(server.errors.contains("4 interactions played, 1 miss (2 resets; since the last: 1 played, 0 missed)"), "\(server.errors)")
        #expect(server.errors.contains("miss: "), "the miss log on stderr")
    }

    @Test("admin endpoints refuse a request a web page could make (Host a domain name: DNS rebinding; Origin a site: a form posting reset) and answer curl, localhost and addresses")
    func adminFromPagesRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("one.har")
        try CassetteFile.write(Cassette(interactions: [Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/a")!),
                                                                   outcome: .response(RecordedResponse(status: 200)))]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        defer { server.stop() }
        let reset = server.base + "/__tapedeck/reset"
        #expect(try curl(["-X", "POST", "-H", "Host: rebound.example:\(server.port)", reset]).code == 403)
        #expect(try curl(["-X", "POST", "-H", "Origin: https://evil.example", reset]).code == 403)
        #expect(try curl(["-X", "POST", "-H", "Origin: null", reset]).code == 403, "a sandboxed or data: page")
        #expect(try curl(["-X", "POST", "-H", "Origin: http://203.0.113.5", reset]).code == 403, "a page served by address")
        #expect(try curl(["-H", "Host: rebound.example", server.base + "/__tapedeck/misses"]).code == 403)
        #expect(try curl(["-X", "POST", reset]).code == 200)
        #expect(try curl(["-X", "POST", "-H", "Host: localhost:\(server.port)", "-H", "Origin: http://127.0.0.1:3000", reset]).code == 200)
        #expect(try curl(["-X", "POST", "-H", "Host: LocalHost:\(server.port)", reset]).code == 200, "host names are case-insensitive")
        #expect(try curl(["-H", "Host: [::1]:\(server.port)", server.base + "/__tapedeck/health"]).code == 200)
    }

    @Test("--match-body json and --match-header pick the entry by body and field, in any order; a bad rule is a usage error")
    func matchFlags() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("search.har")
        let url = URL(string: "http://api.test/search")!
        func entry(_ index: Int, tenant: String, query: String, answer: String) -> Interaction {
            Interaction(index: index, request: RecordedRequest(method: "POST", url: url,
                                                               headers: [HeaderField("X-Tenant", tenant), HeaderField("Content-Type", "application/json")],
                                                               body: Data(#"{"q":"\#(query)","page":1}"#.utf8)),
                        outcome: .response(RecordedResponse(status: 200, body: Data(answer.utf8))))
        }
        try CassetteFile.write(Cassette(interactions: [
            entry(0, tenant: "a", query: "kettle", answer: "a-kettle"), entry(1, tenant: "a", query: "teapot", answer: "a-teapot"),
            entry(2, tenant: "b", query: "kettle", answer: "b-kettle"),
        ]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant", "--match-body", "json", "--match-header", "X-Tenant"])
        defer { server.stop() }
        func search(_ tenant: String, _ body: String) throws -> String {
            String(decoding: try curl(["-X", "POST", "-H", "X-Tenant: \(tenant)", "-H", "Content-Type: application/json", "-d", body,
                                       server.base + "/search"]).body, as: UTF8.self)
        }
        #expect(try search("b", #"{"page": 1, "q": "kettle"}"#) == "b-kettle", "key order and spaces do not matter")
        #expect(try search("a", #"{"q":"teapot","page":1}"#) == "a-teapot")
        #expect(try search("a", #"{"q":"kettle","page":1}"#) == "a-kettle")
        #expect(try search("a", #"{"q":"spoon","page":1}"#).contains("JSON body differs"))
        let bad = try runTapedeck(["serve", cassette.path, "--match-body", "xml"])
        #expect(bad.status == 64 && bad.errors.contains("--match-body"), "\(bad.errors)")
    }

    @Test("a cassette recorded by tapedeck record replays in-process through a Tape; one recorded in-process is served to URLSession")
    func interoperates() async throws {
        let upstream = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Proxy-recorded → Tape.
        let proxied = directory.file("proxied.har.gz")
        let live = try await blocking {
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", proxied.path])
            defer { #expect(proxy.stop() == 0) }
            return try curl([proxy.base + "/api/items"])
        }
        let tape = try Tape(cassette: proxied, mode: .replayOnly)
        let replayed = try await tape.perform(upstream.url("/api/items"))
        #expect(replayed.response.statusCode == 200 && replayed.data == live.body)
        try tape.finish()
        // Tape-recorded → serve → URLSession.
        let inProcess = directory.file("in-process.har.gz")
        let recorder = try Tape(cassette: inProcess, mode: .once)
        let original = try await recorder.perform(upstream.url("/api/me"))
        try recorder.finish()
        upstream.stop()
        let server = try await blocking { try ServerProcess(["serve", inProcess.path, "--timing", "instant"]) }
        let session = URLSession(configuration: .ephemeral)
        let (data, response) = try await session.data(from: URL(string: server.base + "/api/me")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == original.data)
        #expect(try await blocking { server.stop() } == 0)
    }

    @Test("SIGKILL during recording loses no acknowledged interaction; an upstream failure is recorded as a failure entry")
    func sigkillAndFailures() async throws {
        let upstream = try await LoopbackServer.start()
        try await blocking { try sigkillAndFailures(upstream) }
    }

    private func sigkillAndFailures(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("killed.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path])
        var acknowledged: [String] = []
        for index in 0..<25 {
            let run = try curl([proxy.base + "/get?n=\(index)"])
            if run.code == 200 { acknowledged.append("n=\(index)") }
        }
        #expect(proxy.stop(SIGKILL) == SIGKILL)
        #expect(acknowledged.count == 25)
        let player = try CassettePlayer(contentsOf: cassette)   // recovers the journal
        #expect(player.cassette.interactions.compactMap { $0.request.url.query } == acknowledged)

        // An upstream that refuses: 502 to the client, a failure entry in the cassette.
        let port = upstream.port
        upstream.stop()
        let failed = directory.file("failed.har.gz")
        let down = try ServerProcess(["record", "--upstream", "http://127.0.0.1:\(port)", "--cassette", failed.path])
        let answer = try curl([down.base + "/get"])
        #expect(answer.code == 502)
        #expect(down.stop() == 0)
        let entries = try CassetteFile.read(failed).interactions
        #expect(entries.count == 1)
        if case let .failure(failure) = entries.first?.outcome {
            #expect(failure.code == URLError.cannotConnectToHost.rawValue, "\(failure)")
            // In the system's words, not NIO's error dump ("connection reset (error set): … (errno: 111))").
            #expect(failure.message.contains("the upstream refused the connection (127.0.0.1:\(port): Connection refused)")
                    && !failure.message.contains("errno"), "\(failure.message)")
        } else {
            Issue.record("expected a failure entry, got \(String(describing: entries.first?.outcome))")
        }
        let served = try ServerProcess(["serve", failed.path, "--timing", "instant"])
        #expect(try curl([served.base + "/get"]).code == 502, "the failure replays as the proxy answered it")
        served.stop()
    }
}
