// The Swift snippets of TapedeckCassettes' documentation: its DocC article
// (TapedeckCassettes.docc/TapedeckCassettes.md) and the `///` examples of its declarations. One
// function per snippet, as written plus the least scaffolding; lines added for a test are marked
// `// (test)`. Paths the snippets give relative to the working directory are resolved against the
// repository (or a scratch directory, for files they write), so the tests do not depend on where
// they run from.

import Foundation
import Testing
import TapedeckBridge
import TapedeckCassettes
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling

// MARK: - Snippets

/// TapedeckCassettes.docc/TapedeckCassettes.md, "Overview".
private func cassettesArticle_overview() throws -> Reply {
    let player = try CassettePlayer(contentsOf: URL(fileURLWithPath: "fixtures/cassettes/shop.har.gz", relativeTo: repositoryRoot))   // (test: relativeTo)
    let reply = player.reply(to: RequestSnapshot(method: .get, url: URL(string: "http://api.shop.test/gzip")!),
                             context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
    // Usually the player is a simulated network's fallback: network.setFallback(player)
    return reply
}

/// `CassettePlayer`.
private func cassettePlayer(url: URL, network: SimulatedNetwork) throws {
    let player = try CassettePlayer(contentsOf: url)
    network.add(Route(.any, responder: player, options: RouteOptions(latency: .recorded(scale: 1))))
}

/// `CassetteRecorder`. `... run the simulation ...` is the reader's.
private func cassetteRecorder(url: URL, network: SimulatedNetwork, runTheSimulation: () throws -> Void) throws -> CassetteRecorder.Summary {
    let recorder = try CassetteRecorder(cassette: url, options: .init(mode: .once))
    network.setFallback(recorder, options: RouteOptions(latency: .recorded(scale: 1)))
    try runTheSimulation()   // ... run the simulation ...
    let summary = try recorder.finish()     // summary.misses: requests nothing answered
    return summary
}

/// `Cassette`.
private func cassette(in directory: URL) throws {
    var cassette = try CassetteFile.read(URL(fileURLWithPath: "fixtures/cassettes/shop.har.gz", relativeTo: repositoryRoot))   // (test: relativeTo)
    cassette.interactions.removeAll { $0.response?.status == 404 }
    try CassetteFile.write(cassette, to: URL(fileURLWithPath: "shop-without-404.har.gz", relativeTo: directory))   // (test: relativeTo)
}

/// `LenientURL` (a package declaration).
private func lenientURL() -> String? {
    LenientURL.parse("http://ads.example/p?x=[1]&next=%2Fhome")?.absoluteString
    // "http://ads.example/p?x=%5B1%5D&next=%2Fhome"
}

/// `LiveTransport`.
private func liveTransport(url: URL) throws -> CassetteRecorder {
    var options = CassetteRecorder.Options(mode: .once)
    options.transport = LiveForwarder(options: options.live)   // the default when nil
    let recorder = try CassetteRecorder(cassette: url, options: options)
    return recorder
}

/// `MatchRules`.
private func matchRules(cassetteURL: URL) throws -> CassettePlayer {
    // GraphQL: every request is POST /graphql, so the JSON body tells them apart.
    let rules = MatchRules(headers: ["X-Tenant"], body: .json)
    let player = try CassettePlayer(contentsOf: cassetteURL, rules: rules)
    return player
}

/// `Redactor`.
private func redactor(interaction: Interaction) -> (Interaction, CassetteRecorder.Options) {
    let redactor = Redactor(extraHeaders: ["X-Session"], extraJSONFields: ["pin"])
    let clean = redactor.redact(interaction)        // "X-Session: REDACTED", "pin": "REDACTED"
    let options = CassetteRecorder.Options(mode: .once, redactor: redactor)
    return (clean, options)
}

// MARK: - Tests

@Suite("TapedeckCassettes' DocC and /// snippets compile and do what they say")
struct TapedeckCassettesSnippetTests {
    @Test("The article's player answers GET /gzip with the recorded 200")
    func overview() throws {
        guard case let .response(plan) = try cassettesArticle_overview() else {
            Issue.record("expected the recorded response")
            return
        }
        #expect(plan.head.status == 200)
    }

    @Test("CassettePlayer and CassetteRecorder plug a cassette into the network; the recorder's summary lists what nothing answered")
    func playerAndRecorder() throws {
        // Given a copy of the shop cassette
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("shop.har.gz")
        try FileManager.default.copyItem(at: repositoryFile("fixtures/cassettes/shop.har.gz"), to: url)

        // When CassettePlayer's example serves a request, Then the recorded answer comes, at the recorded pace
        let scheduler = SimulatedScheduler(seed: 1)
        let network = SimulatedNetwork(scheduler: scheduler)
        try cassettePlayer(url: url, network: network)
        let client = Session(provider: Harness(network: network), scheduler: scheduler)
        let statuses = Box<[Int?]>([])
        client.request("http://api.shop.test/status/404").responseData { response in statuses.withLock { $0.append(response.response?.statusCode) } }
        try scheduler.runUntilIdle()
        #expect(statuses.value == [404])
        #expect(scheduler.now > .zero)

        // When CassetteRecorder's example (once, over an existing cassette: replay only) meets an unknown
        // request, Then its summary lists it
        let recording = SimulatedNetwork(scheduler: scheduler)
        let other = Session(provider: Harness(network: recording), scheduler: scheduler)
        let summary = try cassetteRecorder(url: url, network: recording) {
            other.request("http://api.shop.test/nowhere").responseData { _ in }
            try scheduler.runUntilIdle()
        }
        #expect(summary.misses.count == 1)
        #expect(summary.misses.first?.contains("GET http://api.shop.test/nowhere") == true, "\(summary.misses)")
        #expect(summary.recorded == 0)
    }

    @Test("Cassette: the written copy has every interaction but the 404")
    func withoutNotFound() throws {
        // When Cassette's example writes the shop cassette without its 404, Then the copy has one interaction less, no 404
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        try cassette(in: directory.url)
        let original = try CassetteFile.read(repositoryFile("fixtures/cassettes/shop.har.gz"))
        let copy = try CassetteFile.read(directory.file("shop-without-404.har.gz"))
        #expect(copy.interactions.count == original.interactions.count - 1)
        #expect(!copy.interactions.contains { $0.response?.status == 404 })
    }

    @Test("LenientURL escapes the brackets and leaves %2F alone")
    func lenient() {
        #expect(lenientURL() == "http://ads.example/p?x=%5B1%5D&next=%2Fhome")
    }

    @Test("LiveTransport: a recorder takes the forwarder as its transport")
    func transport() throws {
        // When LiveTransport's example makes a recorder for a new cassette, Then it records through the forwarder
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let recorder = try liveTransport(url: directory.file("new.har.gz"))
        #expect(recorder.options.transport is LiveForwarder)
        #expect(recorder.isRecording)
        _ = try recorder.finish()
    }

    @Test("MatchRules: with the body compared as JSON and X-Tenant required, two POST /graphql requests get their own answers")
    func graphQL() throws {
        // Given a cassette of two POST /graphql entries that differ only in their JSON bodies
        let directory = try ScratchDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("graphql.har")
        func interaction(_ index: Int, _ body: String, _ answer: String) -> Interaction {
            Interaction(index: index,
                        request: RecordedRequest(method: "POST", url: URL(string: "https://api.example/graphql")!,
                                                 headers: [HeaderField("Content-Type", "application/json"), HeaderField("X-Tenant", "t1")],
                                                 body: Data(body.utf8)),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")], body: Data(answer.utf8))))
        }
        try CassetteFile.write(Cassette(interactions: [interaction(0, #"{"query":"users","page":1}"#, "users"),
                                                       interaction(1, #"{"query":"repos","page":1}"#, "repos")]), to: url)
        // When MatchRules' example plays it
        let player = try matchRules(cassetteURL: url)

        func ask(_ body: String, tenant: String) -> String? {
            var fields = HTTPFieldsBuilder()
            fields.append("Content-Type", "application/json")
            fields.append("X-Tenant", tenant)
            let reply = player.reply(to: RequestSnapshot(method: .post, url: URL(string: "https://api.example/graphql")!,
                                                         headerFields: fields.fields, body: Data(body.utf8)),
                                     context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
            guard case let .response(plan) = reply else { return nil }
            return String(decoding: plan.body, as: UTF8.self)
        }
        // Then each body (key order and spaces aside) gets its own answer, and another tenant none
        #expect(ask(#"{ "page": 1, "query": "repos" }"#, tenant: "t1") == "repos")
        #expect(ask(#"{"query":"users","page":1}"#, tenant: "t1") == "users")
        #expect(ask(#"{"query":"users","page":1}"#, tenant: "t2") == nil)
    }

    @Test("Redactor: the extra header and JSON field are replaced")
    func redaction() throws {
        // Given an interaction with a session header and a pin in its JSON body
        let interaction = Interaction(
            index: 0,
            request: RecordedRequest(method: "POST", url: URL(string: "https://api.example/unlock")!,
                                     headers: [HeaderField("X-Session", "s3cr3t"), HeaderField("Content-Type", "application/json")],
                                     body: Data(#"{"pin":"1234","name":"ada"}"#.utf8)),
            outcome: .response(RecordedResponse(status: 204)))
        // When Redactor's example redacts it, Then both are REDACTED and the rest is kept
        let (clean, options) = redactor(interaction: interaction)
        #expect(clean.request.headers.value(for: "X-Session") == "REDACTED")
        let body = try JSONSerialization.jsonObject(with: clean.request.body ?? Data()) as? [String: String]
        #expect(body == ["pin": "REDACTED", "name": "ada"])
        #expect(options.redactor.jsonFields.contains("pin"))
    }
}
