// The Swift snippets of TapedeckServer's documentation: its DocC article
// (TapedeckServer.docc/TapedeckServer.md) and the `///` examples of its public declarations. One
// function per snippet, as written plus the least scaffolding (`url`, `myService`, `answer` come in
// as parameters); lines added for a test are marked `// (test)`. The servers bind 127.0.0.1 on a
// free port; the one request a test sends goes to that server over loopback, nowhere else.

import Foundation
import Testing
import TapedeckCassettes
import TapedeckScenarios
import TapedeckServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Snippets

/// TapedeckServer.docc/TapedeckServer.md, "Overview" (`shop.har.gz` is a copy of the fixture in a
/// scratch directory).
private func serverArticle_overview(directory: URL) throws -> TapedeckHTTPServer {
    let service = try ReplayService(contentsOf: URL(fileURLWithPath: "shop.har.gz", relativeTo: directory),   // (test: relativeTo)
                                    options: .init(timing: .instant))
    let server = try TapedeckHTTPServer(service: service, options: ServerOptions())
    print("http://127.0.0.1:\(server.port)")
    return server
}

/// `RecentLog`.
private func recentLog() -> RecentLog<String> {
    var log = RecentLog<String>(capacity: 2)
    for miss in ["a", "b", "c"] { log.append(miss) }
    // log.entries == ["b", "c"], log.total == 3, log.dropped == 1
    return log
}

/// `RecordService` (`url` is the cassette; the upstream is never contacted: nothing is sent).
private func recordService(url: URL) throws -> CassetteRecorder.Summary {
    let service = try RecordService(upstream: URL(string: "http://127.0.0.1:8080")!, cassette: url)
    let server = try TapedeckHTTPServer(service: service, options: ServerOptions())
    // … on SIGTERM:
    server.stopAccepting()
    let summary = try service.finish()
    try server.shutdown()
    return summary
}

/// `ReplayService`.
private func replayService(url: URL) throws -> TapedeckHTTPServer {
    let service = try ReplayService(contentsOf: url, options: .init(timing: .instant))
    let server = try TapedeckHTTPServer(service: service, options: ServerOptions())
    return server
}

/// `ServerAnswer`.
private func serverAnswer() -> ServerAnswer {
    let answer = ServerAnswer(status: 404, headers: [HeaderField("Content-Type", "text/plain")], body: Data("no\n".utf8))
    return answer
}

/// `ServerOptions`.
private func serverOptions() -> ServerOptions {
    var options = ServerOptions()
    options.port = 0                    // any free port; `TapedeckHTTPServer.port` says which
    options.maxBodyBytes = 1 << 20
    return options
}

/// `SocketFaults`.
private func socketFaults(url: URL) throws -> ([SocketFaults.Fired], ServerAnswer) {
    let faults = SocketFaults(plan: try FaultPlan.load(url), seed: 7)
    var answer = ServerAnswer.text(200, "ok")
    let fired = faults.apply(method: "GET", url: URL(string: "http://api.test/items")!, exchange: 1, to: &answer)
    return (fired, answer)   // (test)
}

/// `TapedeckHTTPServer`.
private func tapedeckHTTPServer(myService: any ExchangeService) throws -> Int {
    let server = try TapedeckHTTPServer(service: myService, options: ServerOptions())
    print("listening on \(server.port)")
    try server.shutdown()
    return server.port   // (test)
}

/// `UpstreamClient`.
private func upstreamClient() -> CassetteRecorder.Options {
    let client = UpstreamClient(upstream: URL(string: "http://127.0.0.1:8080")!)
    var options = CassetteRecorder.Options(mode: .once)
    options.transport = client
    // … when done:
    client.shutdown()
    return options   // (test)
}

// MARK: - Tests

@Suite("TapedeckServer's DocC and /// snippets compile and do what they say")
struct TapedeckServerSnippetTests {
    @Test("The article's replay server answers a recorded request over loopback")
    func replay() async throws {
        // Given the article's server over a copy of the shop cassette
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.copyItem(at: repositoryFile("fixtures/cassettes/shop.har.gz"), to: directory.file("shop.har.gz"))
        let server = try serverArticle_overview(directory: directory.url)
        defer { try? server.shutdown() }
        // When a client asks it for a recorded request, Then it gets the recorded answer
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: URL(string: "http://127.0.0.1:\(server.port)/get?page=1")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains(#""query":"page=1""#))
    }

    @Test("ReplayService's example serves a cassette file")
    func replayFromCassette() throws {
        let server = try replayService(url: repositoryFile("fixtures/cassettes/shop.har.gz"))
        #expect(server.port > 0)
        try server.shutdown()
    }

    @Test("RecentLog keeps the last two of three")
    func log() {
        let log = recentLog()
        #expect(log.entries == ["b", "c"])
        #expect(log.total == 3)
        #expect(log.dropped == 1)
    }

    @Test("RecordService: started and stopped with no traffic, it records nothing and contacts nobody")
    func record() throws {
        // When RecordService's example starts and stops with no traffic, Then its summary records nothing
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let summary = try recordService(url: directory.file("new.har.gz"))
        #expect(summary.recorded == 0)
    }

    @Test("ServerAnswer, ServerOptions, TapedeckHTTPServer and UpstreamClient build as shown")
    func parts() throws {
        let answer = serverAnswer()
        #expect(answer.status == 404 && answer.body == Data("no\n".utf8))
        let options = serverOptions()
        #expect(options.port == 0 && options.maxBodyBytes == 1_048_576)
        #expect(try tapedeckHTTPServer(myService: NotFoundService()) > 0)
        #expect(upstreamClient().transport is UpstreamClient)
    }

    @Test("SocketFaults: a status fault from a plan file rewrites the answer and says what fired")
    func faults() throws {
        // Given a plan with one status fault, When SocketFaults' example applies it to a 200, Then it is a 503 and the site is named
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("faults.yaml")
        try "faults:\n  - name: busy\n    kind: status\n    status: 503\n".write(to: url, atomically: true, encoding: .utf8)
        let (fired, answer) = try socketFaults(url: url)
        #expect(fired.map(\.site) == ["busy"])
        #expect(answer.status == 503)
    }
}

/// `myService`: answers every request 404.
private struct NotFoundService: ExchangeService {
    func dropsConnection(_ connection: Int) -> Bool { false }
    func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        answer(.text(404, "no\n"))
    }
    func serverWillStop() {}
}
