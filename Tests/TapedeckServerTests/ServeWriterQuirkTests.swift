import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
@testable import TapedeckServer
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck serve` with HAR files of other writers (fixtures/interop/), as real HTTP clients see
/// them: decoded br bodies sent without their coding's label, URLs with raw brackets, one host
/// recorded under http and https, proxy-style and CONNECT targets, cut bodies.
@Suite("Server: serving other writers' HARs (br, brackets, http and https on one host, proxy targets)", .serialized)
struct ServeWriterQuirkTests {
    private func fixture(_ name: String) -> String {
        fixturesDirectory.appendingPathComponent("interop/\(name)").path
    }

    /// The value of `name` in a response head (the last response's), nil when absent.
    private func header(_ name: String, in head: String) -> String? {
        let block = head.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? head
        for line in block.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    @Test("a br body stored decoded goes out as the text without Content-Encoding, its Content-Length the text's; curl --compressed reads it")
    func decodedBrotliIsServedDecoded() throws {
        // Given Chromium's br response stored as its decoded text
        let server = try ServerProcess(["serve", fixture("br-zstd-decoded.har"), "--timing", "instant"])
        defer { server.stop() }
        // When a client that accepts br asks for it
        let run = try curl(["--compressed", "-H", "Host: shop.example.com", server.base + "/api/items"])
        // Then it is not told the text is br, and the length is the text's
        let text = #"{"items":[{"id":1,"name":"kettle"},{"id":2,"name":"teapot"}]}"#
        #expect(run.status == 0, "curl: \(run.errors)")
        #expect(run.code == 200 && run.body == Data(text.utf8))
        #expect(header("Content-Encoding", in: run.head) == nil, "\(run.head)")
        #expect(header("Content-Length", in: run.head) == String(text.utf8.count), "\(run.head)")
    }

    @Test("an answer its server negotiated (Vary: Accept-Encoding) goes decoded to a client that does not accept its coding, compressed to one that does; one without Vary goes as recorded")
    func negotiatedEncoding() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = Data(String(repeating: "body { background: #eef } ", count: 40).utf8)
        let gzip = try Zlib.compress(text, format: .gzip)
        func entry(_ index: Int, _ path: String, vary: Bool, coding: String = "gzip") -> Interaction {
            var headers = [HeaderField("Content-Type", "text/css"), HeaderField("Content-Encoding", coding)]
            if vary { headers.append(HeaderField("Vary", "Accept-Encoding")) }
            return Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test\(path)")!),
                               outcome: .response(RecordedResponse(status: 200, headers: headers, body: gzip, bodyForm: .wire)))
        }
        let cassette = directory.file("css.har.gz")
        try CassetteFile.write(Cassette(interactions: [entry(0, "/site.css", vary: true), entry(1, "/fixed.css", vary: false),
                                                       entry(2, "/dict.css", vary: true, coding: "dcb")]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        defer { server.stop() }
        for (arguments, decoded) in [([], true), (["-H", "Accept-Encoding: identity"], true), (["-H", "Accept-Encoding: br, gzip;q=0"], true),
                                     (["-H", "Accept-Encoding: gzip"], false), (["-H", "Accept-Encoding: *"], false)] {
            let run = try curl([server.base + "/site.css"] + arguments)
            #expect(run.body == (decoded ? text : gzip), "\(arguments)")
            #expect(header("Content-Encoding", in: run.head) == (decoded ? nil : "gzip"), "\(arguments)")
            #expect(header("Content-Length", in: run.head) == String(decoded ? text.count : gzip.count), "\(arguments)")
        }
        // Without Vary the server sent gzip to everyone: so does the replay.
        #expect(try curl([server.base + "/fixed.css"]).body == gzip)
        // A coding the server cannot undo goes as recorded, labelled (not encoded bytes called plain).
        let dictionary = try curl([server.base + "/dict.css"])
        #expect(dictionary.body == gzip && header("Content-Encoding", in: dictionary.head) == "dcb")
        // HEAD has no body to decode: it says what was recorded (the coding and its length).
        let head = try curl([server.base + "/site.css", "-I"])
        #expect(header("Content-Encoding", in: head.head) == "gzip" && header("Content-Length", in: head.head) == String(gzip.count), "\(head.head)")
        #expect(ReplayService.accepts("gzip", acceptEncoding: "x-gzip;q=0.5"))
        #expect(!ReplayService.accepts("br", acceptEncoding: "gzip, deflate"))
    }

    @Test("record replaying its cassette answers as serve does: the negotiated coding fitted to Accept-Encoding, a loopback page's Origin reflected, a recorded failure labelled recorded")
    func recordReplaysAsServeDoes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = Data(String(repeating: "body { background: #eef } ", count: 40).utf8)
        let gzip = try Zlib.compress(text, format: .gzip)
        let css = Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/site.css")!),
                              outcome: .response(RecordedResponse(status: 200, headers: [
                                  HeaderField("Content-Type", "text/css"), HeaderField("Content-Encoding", "gzip"), HeaderField("Vary", "Accept-Encoding"),
                              ], body: gzip, bodyForm: .wire)))
        let api = Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/api")!),
                              outcome: .response(RecordedResponse(status: 200, headers: [
                                  HeaderField("Content-Type", "application/json"), HeaderField("Access-Control-Allow-Origin", "http://localhost:3000"),
                              ], body: Data("{}".utf8))))
        let hang = Interaction(index: 2, request: RecordedRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/hang")!),
                               outcome: .failure(RecordedFailure(code: URLError.timedOut.rawValue, message: "timed out")))
        let cassette = directory.file("replayed.har.gz")
        try CassetteFile.write(Cassette(interactions: [css, api, hang]), to: cassette)
        // `--mode once` over a cassette that exists: every answer comes from it (the upstream is down).
        let proxy = try ServerProcess(["record", "--upstream", "http://127.0.0.1:9", "--cassette", cassette.path, "--mode", "once"])
        defer { proxy.stop() }
        for (arguments, decoded) in [(["-H", "Accept-Encoding: identity"], true), (["-H", "Accept-Encoding: gzip"], false), ([], true)] {
            let run = try curl([proxy.base + "/site.css"] + arguments)
            #expect(run.body == (decoded ? text : gzip), "\(arguments)")
            #expect(header("Content-Encoding", in: run.head) == (decoded ? nil : "gzip"), "\(arguments) \(run.head)")
        }
        let page = try curl([proxy.base + "/api", "-H", "Origin: http://localhost:4000"])
        #expect(header("Access-Control-Allow-Origin", in: page.head) == "http://localhost:4000", "\(page.head)")
        let failure = try curl([proxy.base + "/hang"])
        #expect(failure.code == 502 && header("X-Tapedeck-Failure", in: failure.head) == "recorded", "\(failure.head)")
        #expect(String(decoding: failure.body, as: UTF8.self).contains("the recording has a transport failure here"))
    }

    @Test("the status line carries the recorded reason phrase (Firefox's HAR of gunicorn and http.server: 'NOT FOUND', 'FOUND', 'File not found')")
    func recordedReasonPhrases() throws {
        let server = try ServerProcess(["serve", fixture("firefox.har"), "--timing", "instant"])
        defer { server.stop() }
        func statusLine(_ host: String, _ path: String) throws -> String {
            let run = try curl(["-H", "Host: \(host)", server.base + path])
            return run.head.split(separator: "\r\n").first { $0.hasPrefix("HTTP/") }.map(String.init) ?? run.head
        }
        #expect(try statusLine("127.0.0.1:18091", "/status/404") == "HTTP/1.1 404 NOT FOUND")
        #expect(try statusLine("127.0.0.1:18091", "/status/500") == "HTTP/1.1 500 INTERNAL SERVER ERROR")
        #expect(try statusLine("127.0.0.1:18090", "/favicon.ico") == "HTTP/1.1 404 File not found")
        #expect(try statusLine("127.0.0.1:18091", "/redirect-to?url=%2Fget%3Fmanual%3D1") == "HTTP/1.1 302 FOUND")
        #expect(try statusLine("127.0.0.1:18091", "/json") == "HTTP/1.1 200 OK")
    }

    @Test("a URL recorded with raw brackets matches a client sending them raw (curl -g) and one sending them escaped")
    func bracketsServe() throws {
        let server = try ServerProcess(["serve", fixture("chrome-har-capturer-brackets.har"), "--timing", "instant"])
        defer { server.stop() }
        let query = "p=%2Fnews%2Ftoday&x=[6b4b959b]&vars[visible]=1&sel=a|b&q=two%20words&dl=http%3A%2F%2Fwww.example.com%2F"
        let raw = try curl(["-g", "-H", "Host: ads.example.com", server.base + "/beacon?" + query])
        let escaped = try curl(["-H", "Host: ads.example.com", server.base + "/beacon?" + query
            .replacingOccurrences(of: "[", with: "%5B").replacingOccurrences(of: "]", with: "%5D").replacingOccurrences(of: "|", with: "%7C")])
        #expect(raw.code == 204, "\(String(decoding: raw.body, as: UTF8.self))")
        #expect(escaped.code == 204, "\(String(decoding: escaped.body, as: UTF8.self))")
        #expect(try curl([server.base + "/__tapedeck/misses"]).body.isEmpty)
    }

    @Test("one host under http and https: hop by hop in recorded order, X-Forwarded-Proto or --scheme chooses, a path only one has decides")
    func bothSchemes() throws {
        let server = try ServerProcess(["serve", fixture("playwright-both-schemes.har"), "--timing", "instant"])
        defer { server.stop() }
        let host = ["-H", "Host: www.example.com"]
        // Given http://www.example.com/ (301 to https) and https://www.example.com/ (200) were recorded in that order
        let first = try curl(host + [server.base + "/"])
        let second = try curl(host + [server.base + "/"])
        // (the Location names another recorded origin, so it points back at this server, by the Host the client sent;
        // naming the URL it answers, the permanent redirect goes as its temporary twin, or a browser would loop)
        #expect(first.code == 302 && header("Location", in: first.head) == "http://www.example.com/", "\(first.head)")
        #expect(second.code == 200 && second.body == Data("<html>secure home</html>".utf8), "the https page is reachable")
        // X-Forwarded-Proto picks the scheme outright
        #expect(try curl(["-X", "POST", server.base + "/__tapedeck/reset"]).code == 200)
        #expect(try curl(host + ["-H", "X-Forwarded-Proto: https", server.base + "/"]).code == 200)
        #expect(try curl(host + ["-H", "X-Forwarded-Proto: http", server.base + "/"]).code == 302)
        // /new was recorded only under https
        #expect(try curl(host + [server.base + "/new"]).code == 200)

        let preferring = try ServerProcess(["serve", fixture("playwright-both-schemes.har"), "--timing", "instant", "--scheme", "https"])
        defer { preferring.stop() }
        #expect(try curl(host + [preferring.base + "/"]).code == 200, "--scheme https")
    }

    @Test("an absolute-form target (a client using serve as its proxy) is matched as it stands, its Location left as recorded")
    func proxyStyleTargets() throws {
        let server = try ServerProcess(["serve", fixture("playwright-both-schemes.har"), "--timing", "instant"])
        defer { server.stop() }
        let old = try curl(["-x", server.base, "http://www.example.com/old"])
        #expect(old.code == 301 && header("Location", in: old.head) == "https://www.example.com/new", "\(old.head)")
        let secure = rawExchange(port: server.port, send: Data("GET https://www.example.com/ HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n".utf8))
        #expect(secure.statusLine == "HTTP/1.1 200 OK", "\(String(decoding: secure.received, as: UTF8.self))")
    }

    @Test("a URL recorded without a path is served at '/'; BrowserMob's failed CONNECT answers CONNECT as the recorded failure")
    func emptyPathsAndConnect() throws {
        let server = try ServerProcess(["serve", fixture("browsermob-no-path.har"), "--timing", "instant"])
        defer { server.stop() }
        let page = try curl(["-H", "Host: www.example.com", server.base + "/"])
        #expect(page.code == 200 && page.body == Data("home page".utf8), "\(String(decoding: page.body, as: UTF8.self))")
        let tunnel = rawExchange(port: server.port, send: Data("CONNECT secure.example.com:443 HTTP/1.1\r\nHost: secure.example.com:443\r\n\r\n".utf8))
        let text = String(decoding: tunnel.received, as: UTF8.self)
        #expect(tunnel.statusLine.hasPrefix("HTTP/1.1 502") && text.contains("X-Tapedeck-Failure: recorded"), "\(text)")
    }

    @Test("a body cut after its status (Chromium's ERR_CONTENT_LENGTH_MISMATCH) is served as it went: the head, then the connection drops short of the body")
    func cutBodies() throws {
        let server = try ServerProcess(["serve", fixture("playwright-cut-body.har"), "--timing", "instant"])
        defer { server.stop() }
        // The recorded length is announced and not met; without one, the chunks never end.
        let cut = try curl(["-H", "Host: cdn.example.com", server.base + "/cut"])
        #expect(cut.head.hasPrefix("HTTP/1.1 200") && header("Content-Length", in: cut.head) == "100", "\(cut.head)")
        #expect(cut.body.isEmpty && cut.status != 0, "curl \(cut.status): \(cut.errors)")
        let chunks = try curl(["-H", "Host: cdn.example.com", server.base + "/chunks"])
        #expect(chunks.head.hasPrefix("HTTP/1.1 200") && header("Transfer-Encoding", in: chunks.head) == "chunked", "\(chunks.head)")
        #expect(chunks.status != 0, "curl \(chunks.status): \(chunks.errors)")
        let whole = try curl(["-H", "Host: cdn.example.com", server.base + "/whole"])
        #expect(whole.body == Data("whole".utf8) && whole.status == 0)
    }

    @Test("serve prints a cassette's skipped entries and notes as warnings at start; --quiet does not")
    func warningsAtStart() throws {
        let server = try ServerProcess(["serve", fixture("firefox-binary-post.har"), "--timing", "instant"])
        #expect(server.stop() == 0)
        #expect(server.errors.contains("warning:") && server.errors.contains("note entry 0 (request.postData)"), "\(server.errors)")
        let quiet = try ServerProcess(["serve", fixture("firefox-binary-post.har"), "--timing", "instant", "--quiet"])
        #expect(quiet.stop() == 0)
        #expect(!quiet.errors.contains("warning:"), "\(quiet.errors)")
    }
}

/// SIGTERM and SIGINT reach `serve` and `record` whenever they are sent, also the instant after
/// the readiness line.
@Suite("Server: a signal right after the readiness line stops the server (exit 0)", .serialized)
struct TerminationSignalTests {
    /// A server started from a thread whose signal mask is empty, so the child begins with no
    /// signal blocked, as when started from a shell: the test runner's threads block signals, and
    /// a child process inherits the mask of the thread that starts it.
    private func unmaskedServer(_ arguments: [String]) throws -> ServerProcess {
        let result = Mutex<Result<ServerProcess, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            result.withLock { $0 = Result { try ServerProcess(arguments) } }
            done.signal()
        }.start()
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Waits at most `seconds` for `process` to exit; false (and the process killed) when it did not.
    private func exits(_ process: Process, within seconds: Int) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread { process.waitUntilExit(); done.signal() }.start()
        if done.wait(timeout: .now() + .seconds(seconds)) == .success { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    @Test("SIGTERM or SIGINT sent the moment 'listening' is printed: serve and record exit 0, every time")
    func signalRightAfterReadiness() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = fixturesDirectory.appendingPathComponent("interop/mitmproxy.har").path
        let upstream = "http://127.0.0.1:\(try closedPort())"
        for round in 0..<24 {
            let arguments = round % 4 == 3
                ? ["record", "--upstream", upstream, "--cassette", directory.file("r\(round).har").path]
                : ["serve", cassette, "--timing", "instant", "--quiet"]
            let server = try unmaskedServer(arguments)
            // Given the readiness line was read, when a signal follows at once
            kill(server.process.processIdentifier, round % 2 == 0 ? SIGTERM : SIGINT)
            // Then the server stops by itself, with status 0
            let exited = exits(server.process, within: 20)
            #expect(exited, "round \(round) (\(arguments[0])): no exit after the signal; \(server.errors)")
            guard exited else { continue }
            #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0,
                    "round \(round) (\(arguments[0])): \(server.process.terminationReason) \(server.process.terminationStatus); \(server.errors)")
        }
    }

    #if os(Linux)
    @Test("by the readiness line every thread of serve and record blocks SIGINT, SIGTERM and SIGHUP, so none can be lost")
    func everyThreadBlocksTheSignals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = fixturesDirectory.appendingPathComponent("interop/mitmproxy.har").path
        let commands = [["serve", cassette, "--timing", "instant"],
                        ["record", "--upstream", "http://127.0.0.1:\(try closedPort())", "--cassette", directory.file("r.har").path]]
        for arguments in commands {
            let server = try unmaskedServer(arguments)
            defer { server.stop() }
            // The main thread is left out: waiting in sigwait, it has the three unblocked while it waits.
            let pid = server.process.processIdentifier
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").filter { $0 != String(pid) }
            #expect(!tasks.isEmpty, "the event loops are running")
            let wanted = UInt64(1) << (UInt64(SIGHUP) - 1) | UInt64(1) << (UInt64(SIGINT) - 1) | UInt64(1) << (UInt64(SIGTERM) - 1)
            for task in tasks {
                let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/task/\(task)/status", encoding: .utf8)
                let line = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") } ?? ""
                let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
                #expect(mask & wanted == wanted, "\(arguments[0]) thread \(task): \(line)")
            }
        }
    }
    #endif
}
