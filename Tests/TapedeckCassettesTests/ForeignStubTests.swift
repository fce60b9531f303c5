import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// WireMock mappings and Hoverfly simulations of the foreign fixtures' traffic script
/// (fixtures/interop/foreign/README.md), read as cassettes and replayed through a real URLSession:
/// the answers each stub gives, identical requests in the order their scenario states go, bodies
/// from files, faults and delays, and stubs that match by pattern left out saying so.
@Suite("Cassettes: WireMock mappings and Hoverfly simulations read and replayed")
struct ForeignStubTests {
    private func foreign(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/foreign/\(name)")
    }

    private func bodyText(_ interaction: Interaction?) -> String {
        String(decoding: interaction?.response?.body ?? Data(), as: UTF8.self)
    }

    @Test("a WireMock folder: one cassette in recording order, the body file from __files, the fault and the delay kept; a pattern stub left out")
    func wireMockFolder() throws {
        let reading = try ForeignCassette.loadWireMock(folder: foreign("wiremock"), origin: "https://api.example.com")
        let cassette = reading.cassette
        #expect(reading.format == .wiremock)
        #expect(cassette.interactions.map(\.request.url.path) == ["/users/1", "/counter", "/counter", "/image.png", "/login", "/missing",
                                                                  "/latin1", "/redirect", "/form", "/flaky", "/slow"])
        #expect(cassette.interactions.allSatisfy { $0.request.url.absoluteString.hasPrefix("https://api.example.com/") })
        #expect(cassette.skipped.count == 1 && cassette.skipped[0].error.reason.contains("pattern ('urlPathPattern')"), "\(cassette.skipped)")
        let login = try #require(cassette.interactions.first { $0.request.url.path == "/login" })
        #expect(login.request.method == "POST" && login.request.body == Data(#"{"username":"ada","password":"lovelace"}"#.utf8))
        let users = try #require(cassette.interactions.first)
        #expect(users.request.headers.value(for: "Authorization") == "Bearer secret-token")
        let flaky = try #require(cassette.interactions.first { $0.request.url.path == "/flaky" })
        guard case let .failure(failure) = flaky.outcome else { Issue.record("the fault is no failure"); return }
        #expect(failure.code == URLError.networkConnectionLost.rawValue)
        let slow = try #require(cassette.interactions.last)
        #expect(slow.request.method == "GET" && slow.request.url.query == "page=2" && slow.timings?.wait == .milliseconds(1500))
        #expect(cassette.notes.contains { $0.text.contains("ANY (any method)") })
        #expect(reading.remarks.contains { $0.contains("origin https://api.example.com") })
        // The same through CassetteFile, as serve and a Tape read the folder: the pattern stub kept, as a pattern,
        // and the stubs with header or body matchers answering by them (each still naming its request).
        let read = try CassetteFile.read(foreign("wiremock"), foreign: .convert)
        #expect(read.foreignFormat == .wiremock && read.interactions.count == 12)
        #expect(read.interactions.filter(\.answersByPatternOnly).compactMap(\.pattern).map(\.shown) == ["GET urlPathPattern /search/.*"])
        #expect(read.interactions.compactMap(\.pattern).filter(\.namesItsRequest).map(\.shown)
                == ["GET /users/1 matching Accept, Authorization", "POST /login and a body", "POST /form and a body"])
        #expect(read.interactions[0].request.url.absoluteString == "http://localhost:8080/users/1", "the default origin")
    }

    @Test("WireMock mappings replay through a real URLSession: statuses, bodies (JSON, file, base64), the counter's answers in order, the reset")
    func wireMockReplays() throws {
        let cassette = try ForeignCassette.loadWireMock(folder: foreign("wiremock/mappings")).cassette
        let replay = SequentialReplay(cassette)
        var bodies: [String: [Data]] = [:]
        for interaction in cassette.interactions {
            let result = try replay.send(interaction.request)
            let path = interaction.request.url.path
            if path == "/flaky" {
                #expect(result.error?.code == .networkConnectionLost, "\(String(describing: result.error))")
                continue
            }
            #expect(result.error == nil, "\(path): \(String(describing: result.error))")
            #expect(result.response?.statusCode == interaction.response?.status)
            bodies[path, default: []].append(result.body)
        }
        #expect(bodies["/counter"] == [Data(#"{"count": 1}"#.utf8), Data(#"{"count": 2}"#.utf8)])
        #expect(bodies["/image.png"]?.first?.count == 209 && bodies["/image.png"]?.first?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
        #expect(bodies["/login"]?.first == Data(#"{"token":"abc123"}"#.utf8))
        #expect(bodies["/latin1"]?.first == Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0x63, 0x72, 0xE8, 0x6D, 0x65, 0x0A]))
        #expect(bodies["/missing"]?.first == Data("Not Found\n".utf8))
    }

    @Test("a file of mappings without insertion indexes: the scenario's states, not the list, give identical requests their order")
    func scenarioOrder() throws {
        let cassette = try CassetteFile.read(foreign("wiremock-mappings.json"), foreign: .convert)
        #expect(cassette.foreignFormat == .wiremock)
        let counters = cassette.interactions.filter { $0.request.url.path == "/counter" }
        #expect(counters.map(bodyText) == [#"{"count": 1}"#, #"{"count": 2}"#])
    }

    @Test("a Hoverfly simulation: exact matchers become the request (destination, v5 query, body), encoded bodies decode, a glob pair is left out")
    func hoverfly() throws {
        let url = foreign("hoverfly.json")
        let reading = try ForeignCassette.load(CassetteFile.jsonText(of: url), file: url.path)
        let cassette = reading.cassette
        #expect(reading.format == .hoverfly && cassette.interactions.count == 9)
        #expect(cassette.skipped.count == 1 && cassette.skipped[0].error.reason.contains("glob"), "\(cassette.skipped)")
        #expect(cassette.interactions[0].request.url.absoluteString == "http://127.0.0.1:8500/users/1")
        #expect(cassette.interactions.contains { $0.request.url.absoluteString == "http://127.0.0.1:8500/items?page=2&sort=name" })
        let login = try #require(cassette.interactions.first { $0.request.url.path == "/login" })
        #expect(login.request.body == Data(#"{"username":"ada","password":"lovelace"}"#.utf8))
        #expect(cassette.interactions.first { $0.request.url.path == "/users/1" }?.request.body == nil, "an empty exact body is no body")
        let replay = SequentialReplay(cassette)
        var answers: [String: [Data]] = [:]
        for interaction in cassette.interactions {
            let result = try replay.send(interaction.request)
            #expect(result.error == nil && result.response?.statusCode == interaction.response?.status)
            answers[interaction.request.url.path, default: []].append(result.body)
        }
        #expect(answers["/counter"] == [Data(#"{"count": 1}"#.utf8), Data(#"{"count": 2}"#.utf8)])
        #expect(answers["/gzip"]?.first == Data(#"{"compressed": true, "message": "hello gzip"}"#.utf8), "URLSession decodes the gzip bytes")
        #expect(answers["/image.png"]?.first?.count == 209)
    }

    @Test("each WireMock fault replays as the URLSession failure it stands for", arguments: [
        ("CONNECTION_RESET_BY_PEER", URLError.Code.networkConnectionLost), ("EMPTY_RESPONSE", .networkConnectionLost),
        ("MALFORMED_RESPONSE_CHUNK", .networkConnectionLost), ("RANDOM_DATA_THEN_CLOSE", .badServerResponse),
    ])
    func faults(_ fault: String, _ code: URLError.Code) throws {
        let text = Data(#"{"request": {"url": "/f", "method": "GET"}, "response": {"fault": "\#(fault)"}}"#.utf8)
        let cassette = try ForeignCassette.read(text, file: "/tmp/f.json")
        guard case let .failure(failure) = try #require(cassette.interactions.first).outcome else {
            Issue.record("\(fault) is no failure")
            return
        }
        #expect(failure.code == code.rawValue, "\(fault): \(failure.message)")
        let result = try SequentialReplay(cassette).send(cassette.interactions[0].request)
        #expect(result.error?.code == code)
    }

    @Test("a body file outside the stubs' files folder is never read: an absolute path, '..', or a link out of it")
    func bodyFilesStayInTheirFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let root = directory.url.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        let secret = directory.file("credentials")
        try Data("aws_secret_access_key=hunter2".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("__files/link.txt"), withDestinationURL: secret)
        try Data("inside".utf8).write(to: root.appendingPathComponent("__files/ok.txt"))
        let mappings = [("abs", secret.path), ("up", "../../credentials"), ("link", "link.txt"), ("ok", "ok.txt")].map { name, file in
            #"{"request": {"url": "/\#(name)", "method": "GET"}, "response": {"status": 200, "bodyFileName": "\#(file)"}}"#
        }
        try Data(#"{"mappings": [\#(mappings.joined(separator: ","))]}"#.utf8).write(to: root.appendingPathComponent("mappings/all.json"))
        let cassette = try ForeignCassette.loadWireMock(folder: root).cassette
        #expect(cassette.interactions.map(\.request.url.path) == ["/ok"])
        #expect(cassette.interactions.first?.response?.body == Data("inside".utf8))
        #expect(cassette.skipped.count == 3 && cassette.skipped.allSatisfy { $0.error.reason.contains("outside the stubs' files folder") }, "\(cassette.skipped)")
        #expect(!cassette.interactions.contains { $0.response?.body.contains(Data("hunter2".utf8)) == true })
    }

    @Test("Hoverfly's older shapes: v1 strings and v2 exactMatch read; a v2 glob on the query is a pattern, not a query item")
    func hoverflyOlderSchemas() throws {
        let text = Data("""
        {"data": {"pairs": [
          {"request": {"path": "/v1", "method": "GET", "destination": "api.test", "scheme": "https", "query": "a=1", "body": ""},
           "response": {"status": 200, "body": "one", "encodedBody": false, "headers": {"Content-Type": ["text/plain"]}}},
          {"request": {"path": {"exactMatch": "/v2"}, "method": {"exactMatch": "POST"}, "destination": {"exactMatch": "api.test"},
                       "body": {"exactMatch": "x=1"}},
           "response": {"status": 201, "body": "two", "encodedBody": false, "headers": {}}},
          {"request": {"path": {"exactMatch": "/v2q"}, "destination": {"exactMatch": "api.test"}, "query": {"globMatch": "page=*"}},
           "response": {"status": 200, "body": "three", "encodedBody": false, "headers": {}}}
        ]}, "meta": {"schemaVersion": "v2"}}
        """.utf8)
        let cassette = try ForeignCassette.read(text, file: "/tmp/sim.json")
        #expect(cassette.interactions.map(\.request.url.absoluteString) == ["https://api.test/v1?a=1", "http://api.test/v2"])
        #expect(cassette.interactions[1].request.method == "POST" && cassette.interactions[1].request.body == Data("x=1".utf8))
        #expect(cassette.skipped.count == 1 && cassette.skipped[0].error.reason.contains("pattern"), "\(cassette.skipped)")
    }

    @Test("stubs that name no one request are left out with the reason; a mapping with nothing to replay is said")
    func refusals() throws {
        let text = Data("""
        {"mappings": [
          {"request": {"urlPattern": "/api/.*"}, "response": {"status": 200}},
          {"request": {"url": "/proxied"}, "response": {"proxyBaseUrl": "https://upstream.example.com"}},
          {"request": {"url": "/missing-file"}, "response": {"status": 200, "bodyFileName": "nowhere.json"}},
          {"request": {"url": "/ok", "method": "GET"}, "response": {"status": 200, "body": "ok"}}
        ]}
        """.utf8)
        let cassette = try ForeignCassette.read(text, file: "/tmp/mappings.json")
        #expect(cassette.interactions.map(\.request.url.path) == ["/ok"])
        let reasons = cassette.skipped.map(\.error.reason)
        #expect(reasons.count == 3)
        #expect(reasons[0].contains("pattern ('urlPattern')"))
        #expect(reasons[1].contains("forwards to https://upstream.example.com"))
        #expect(reasons[2].contains("body file is not there"))
    }
}
