import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HAR files in the shapes of writers the other interop suites do not cover — HTTP Toolkit,
/// Chrome/Edge DevTools' "Export HAR (sanitized)", Playwright's `mode: 'minimal'` with attached
/// bodies, Insomnia, newman-reporter-har, Burp Suite's Logger++, Proxyman, node-fetch-har, and a
/// BOM + CRLF + HAR 1.1 file with only the fields a replay needs (fixtures/interop/README.md, "More
/// tools"). Each loads through both readers alike and replays what a client of the recorded
/// server got.
@Suite("Cassettes: HAR files of HTTP Toolkit, DevTools (sanitized), Playwright minimal, Insomnia, Newman, Logger++, Proxyman, node-fetch-har")
struct MoreToolsInteropTests {
    /// One request to replay and what the client must get.
    struct Replay: Sendable {
        var method = "GET"
        var url: String
        var status: Int
        var body: Data
        var header: (name: String, value: String?)? = nil
    }

    /// A fixture, what loading it gives, and requests to replay.
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var interactions: Int
        /// Positions of skipped entries, each with a fragment of its reason.
        var skipped: [(Int, String)] = []
        /// Positions and fields of the load notes, each with a fragment of its text.
        var notes: [(Int, String, String)] = []
        var replays: [Replay]
        var testDescription: String { file }
    }

    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAAAAACMmsGiAAAAHElEQVR4nGNgUPXKZ+A2CK1iELNOaGVQdMueAAAl5ASBUj/tNQAAAABJRU5ErkJggg==")!
    static let blob = Data([0xA4, 0x26, 0x37, 0x13, 0x35, 0xE7, 0x50, 0x27, 0xFF, 0x00, 0x80, 0x41])

    static let cases: [Case] = [
        Case(file: "httptoolkit.har", interactions: 6,
             skipped: [(3, "the response body (734003 bytes) is not in the file: HTTP Toolkit left it out"),
                       (6, "a WebSocket connection ('wss:')")],
             notes: [(2, "request._requestBodyStatus", "left the request body (612480 bytes) out of the file ('discarded:too-large')")],
             replays: [
                Replay(url: "https://api.example.com/v2/profile", status: 200, body: Data(#"{"id":7,"name":"Grace","plan":"team"}"#.utf8),
                       header: ("Content-Type", "application/json")),
                Replay(method: "POST", url: "https://api.example.com/v2/attachments", status: 201, body: Data(#"{"id":"att_19","bytes":12}"#.utf8)),
                Replay(url: "https://api.example.com/v2/avatar.png", status: 200, body: png, header: ("Content-Type", "image/png")),
             ]),
        Case(file: "chrome-devtools-sanitized.har", interactions: 7,
             notes: [(5, "response.content", "the writer did not capture it")], replays: [
            Replay(url: "https://app.example.com/dashboard", status: 200,
                   body: Data("<!doctype html><title>Dashboard</title><main id=app></main>\n".utf8), header: ("Content-Type", "text/html; charset=utf-8")),
            Replay(method: "OPTIONS", url: "https://api.example.com/v1/widgets?limit=2", status: 204, body: Data(),
                   header: ("access-control-allow-headers", "authorization")),
            Replay(url: "https://api.example.com/v1/widgets?limit=2", status: 200,
                   // stored decoded; the field stays, as URLSession keeps it after decoding
                   body: Data(#"{"widgets":[{"id":1,"kind":"chart"},{"id":2,"kind":"table"}]}"#.utf8), header: ("Content-Encoding", "br")),
            // The network answer, then the memory cache's: the same image twice.
            Replay(url: "https://static.example.com/img/mark.png", status: 200, body: png, header: ("Content-Type", "image/png")),
            Replay(url: "https://static.example.com/img/mark.png", status: 200, body: png, header: ("Content-Type", "image/png")),
            // From the disk cache, the body not kept (`encoding` without `text`): an empty body.
            Replay(url: "https://static.example.com/fonts/inter.woff2", status: 200, body: Data(), header: ("Content-Type", "font/woff2")),
        ]),
        Case(file: "playwright-minimal/playwright-minimal.har", interactions: 4, replays: [
            Replay(url: "http://localhost:3000/api/todos/41", status: 200, body: Data(#"{"id":41,"title":"tapes","done":false}"#.utf8)),
            Replay(method: "POST", url: "http://localhost:3000/api/todos", status: 201, body: Data(#"{"id":42,"title":"reels","done":false}"#.utf8)),
            Replay(url: "http://localhost:3000/api/todos?done=false", status: 200, body: Data()),
            Replay(url: "http://localhost:3000/api/todos?done=true", status: 200, body: Data(#"[{"id":41,"title":"tapes","done":false}]"#.utf8)),
        ]),
        Case(file: "insomnia.har", interactions: 5,
             notes: [(1, "request.postData.text", "Insomnia writes a file sent as the body as base64"),
                     (2, "response.content.text", "stored as text with U+FFFD in place of bytes that are not UTF-8")],
             replays: [
                Replay(method: "POST", url: "https://auth.example.com/oauth/token", status: 200,
                       body: Data(#"{"access_token":"abc.def","expires_in":3600}"#.utf8), header: ("Content-Type", "application/json")),
                Replay(method: "PUT", url: "https://files.example.com/v1/logo", status: 204, body: Data()),
                Replay(method: "POST", url: "https://files.example.com/v1/imports", status: 202, body: Data(#"{"job":"j-981"}"#.utf8)),
             ]),
        Case(file: "newman-reporter.har", interactions: 3, replays: [
            Replay(url: "https://jsonapi.example.com/posts?userId=1", status: 200, body: Data(#"[{"userId":1,"id":1,"title":"tape"}]"#.utf8),
                   header: ("Content-Type", "application/json; charset=utf-8")),
            Replay(method: "POST", url: "https://jsonapi.example.com/posts", status: 201, body: Data(#"{"id":101,"title":"reel"}"#.utf8),
                   header: ("Location", "https://jsonapi.example.com/posts/101")),
            // Labelled JSON in the HAR, sent as text/html: the header wins.
            Replay(url: "https://jsonapi.example.com/about", status: 200, body: Data("<h1>About</h1>".utf8),
                   header: ("Content-Type", "text/html; charset=utf-8")),
        ]),
        Case(file: "logger-plus-plus.har", interactions: 3, replays: [
            Replay(method: "POST", url: "https://portal.example.com:443/login", status: 200, body: Data("<html><body>Welcome back</body></html>".utf8),
                   header: ("Set-Cookie", "sess=7f3a; Path=/")),
            Replay(url: "https://portal.example.com:443/robots.txt", status: 404, body: Data(), header: ("Content-Type", nil)),
        ]),
        Case(file: "proxyman.har", interactions: 1,
             skipped: [(1, "the entry records no response, so there is nothing to replay: a request still in flight"),
                       (2, "the entry's response is null, so there is nothing to replay")],
             replays: [Replay(url: "https://status.example.com/api/health", status: 200, body: Data(#"{"status":"ok"}"#.utf8))]),
        Case(file: "node-fetch-har.har", interactions: 2, replays: [
            Replay(url: "http://registry.example.com/v1/list", status: 301, body: Data(),
                   header: ("Location", "http://registry.example.com/v2/list")),
            Replay(url: "http://registry.example.com/v2/list", status: 200, body: Data(#"{"id":"v2","items":[]}"#.utf8),
                   header: ("Content-Encoding", "gzip")),
        ]),
        Case(file: "bom-crlf-minimal.har", interactions: 3, replays: [
            Replay(url: "https://min.example.com/a", status: 200, body: Data("alpha\r\nbeta\r\n".utf8), header: ("Content-Type", "text/plain")),
            Replay(url: "https://min.example.com/b", status: 200, body: Data("{}".utf8), header: (":method", nil)),
        ]),
    ]

    private func url(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/\(name)")
    }

    @Test("each file loads through the fast reader, equal to what JSONDecoder reads, with exactly the expected entries skipped and notes made",
          arguments: cases)
    func loads(_ test: Case) throws {
        // Given the file's bytes, When both readers read them, Then they agree, and the cassette
        // holds what the file can replay and says what it left out or assumed
        let cassette = try expectBothReadersLoad(url(test.file), interactions: test.interactions, skipped: test.skipped)
        #expect(cassette.notes.map(\.position) == test.notes.map(\.0), "\(cassette.notes)")
        for (note, expected) in zip(cassette.notes, test.notes) {
            #expect(note.field == expected.1 && note.text.contains(expected.2), "\(note)")
        }
    }

    @Test("the chosen requests of each file replay through a real URLSession: status, body bytes and a header", arguments: cases)
    func replays(_ test: Case) throws {
        // Given the cassette, replayed one request at a time in recorded order
        let cassette = try CassetteFile.read(url(test.file))
        let replay = SequentialReplay(cassette)
        for expected in test.replays {
            // When the client sends the recorded request
            let recorded = try #require(cassette.interactions.first {
                $0.request.method == expected.method && $0.request.url.absoluteString == expected.url
            }, "\(test.file): no \(expected.method) \(expected.url)")
            let result = try replay.send(recorded.request)
            // Then it gets the recorded answer
            let response = try #require(result.response, "\(test.file) \(expected.url): \(String(describing: result.error))")
            #expect(response.statusCode == expected.status, "\(test.file) \(expected.url)")
            #expect(result.body == expected.body, "\(test.file) \(expected.url): \(String(decoding: result.body, as: UTF8.self))")
            if let header = expected.header {
                #expect(response.value(forHTTPHeaderField: header.name) == header.value, "\(test.file) \(expected.url): \(response.allHeaderFields)")
            }
        }
    }

    @Test("requests these writers recorded without an answer fail as the URLError a client would have seen")
    func failures() throws {
        let checks: [(String, String, URLError.Code)] = [
            ("httptoolkit.har", "https://api.example.com/v2/slow", .unknown),               // aborted: status 0, no reason
            ("httptoolkit.har", "https://api.example.com/v2/events?since=42", .unknown),    // still waiting when exported, time -1
            ("chrome-devtools-sanitized.har", "https://metrics.example.invalid/collect.js", .cannotFindHost),
            ("insomnia.har", "https://auth.example.com/v1/account", .unknown),              // never sent: status 0
            ("logger-plus-plus.har", "https://portal.example.com:443/admin", .unknown),         // dropped in Burp: status 0, text "null"
            ("bom-crlf-minimal.har", "https://ads.min.example.com/pixel", .unknown),        // status 0, `content: {}`
        ]
        for (file, address, code) in checks {
            let cassette = try CassetteFile.read(url(file))
            let interaction = try #require(cassette.interactions.first { $0.request.url.absoluteString == address }, "\(file) \(address)")
            let result = try SequentialReplay(cassette).send(interaction.request)
            #expect(result.response == nil && result.error?.code == code, "\(file) \(address): \(String(describing: result.error))")
        }
    }

    @Test("request bodies kept outside postData are read: HTTP Toolkit's base64 _content, Playwright's attached _file, Insomnia's unmarked base64 file")
    func requestBodiesOutsidePostData() throws {
        // Given the three writers' files
        let toolkit = try CassetteFile.read(url("httptoolkit.har"))
        let playwright = try CassetteFile.read(url("playwright-minimal/playwright-minimal.har"))
        let insomnia = try CassetteFile.read(url("insomnia.har"))
        func body(_ cassette: Cassette, _ method: String, _ address: String) -> Data? {
            cassette.interactions.first { $0.request.method == method && $0.request.url.absoluteString == address }?.request.body
        }
        // Then each request carries the bytes that were sent
        #expect(body(toolkit, "POST", "https://api.example.com/v2/attachments") == Self.blob)
        #expect(body(playwright, "POST", "http://localhost:3000/api/todos") == Data(#"{"title":"reels"}"#.utf8))
        #expect(body(insomnia, "PUT", "https://files.example.com/v1/logo") == Self.png)
        // A body HTTP Toolkit left out is no body (and a note), not an empty one
        #expect(body(toolkit, "POST", "https://logs.example.com/ingest") == nil)

        // And so a body rule matches the upload as sent, byte for byte
        let upload = try #require(toolkit.interactions.first { $0.request.url.path == "/v2/attachments" })
        let rules = MatchRules(body: .raw)
        #expect(rules.mismatches(RecordedRequest(method: "POST", url: upload.request.url, body: Self.blob), upload.request).isEmpty)
        #expect(!rules.mismatches(RecordedRequest(method: "POST", url: upload.request.url, body: Data(Self.blob.base64EncodedString().utf8)),
                                  upload.request).isEmpty)

        // A JSON body another writer labelled text stays text: only Insomnia's file bodies are read as base64
        let posted = try #require(insomnia.interactions.first { $0.request.url.path == "/oauth/token" })
        #expect(posted.request.body == Data("grant_type=client_credentials&scope=read+write".utf8))
    }

    @Test("Playwright's attached request body: skipped with the file name it looked for when the file is not beside the HAR")
    func attachedRequestBodyMissing() throws {
        // Given the minimal HAR copied alone to another directory
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let copy = directory.file("minimal.har")
        try Data(contentsOf: url("playwright-minimal/playwright-minimal.har")).write(to: copy)
        // When it is read
        let cassette = try CassetteFile.read(copy)
        // Then every entry whose body is attached is skipped, the POST for its request body's file
        #expect(cassette.skipped.map(\.position) == [0, 1, 3], "\(cassette.skipped)")
        let post = try #require(cassette.skipped.first { $0.position == 1 })
        #expect(post.description.contains("entry 1 (request.postData._file)") && post.description.contains("f15ef9d83f030fa9ab6210f757bff5f9193ff97b.json"),
                "\(post)")
        #expect(throws: CassetteError.self) { try CassetteFile.read(copy, strict: true) }
    }

    @Test("a response body the writer left out is a miss that names the skipped entry and why, through a Tape as through the player")
    func discardedResponseIsAnExplainedMiss() throws {
        // Given HTTP Toolkit's file, whose catalog response was over its export limit
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let copy = directory.file("toolkit.har")
        try Data(contentsOf: url("httptoolkit.har")).write(to: copy)
        let tape = try Tape(cassette: copy, mode: .replayOnly, timing: .instant)
        // When the app asks for it
        #expect(throws: URLError.self) { try tape.perform(URL(string: "https://cdn.example.com/catalog/full.json")!) }
        // Then no empty 200 is made up: the request had no answer, and the explanation names the entry and the reason
        do {
            _ = try tape.finish()
            Issue.record("a replay-only tape with a miss must throw")
        } catch let error as TapeError {
            let text = "\(error)"
            #expect(text.contains("entry 3 GET https://cdn.example.com/catalog/full.json: skipped when the cassette was read"), "\(text)")
            #expect(text.contains("734003 bytes") && text.contains("larger body limit"), "\(text)")
        }
        // While the rest of the file replays
        let other = try Tape(cassette: copy, mode: .replayOnly, timing: .instant)
        let answer = try other.perform(URL(string: "https://api.example.com/v2/avatar.png")!)
        #expect(answer.response.statusCode == 200 && answer.data == Self.png)
        #expect(try other.finish().replayed == 1)
    }

    @Test("a miss names only skipped entries of the same method, host and path, not every skipped entry")
    func skippedCandidatesAreTheSameResource() throws {
        let cassette = try CassetteFile.read(url("httptoolkit.har"))
        let player = CassettePlayer(cassette: cassette)
        let other = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: "https://cdn.example.com/catalog/other.json")!))
        #expect(!other.contains("skipped when the cassette was read"), "\(other)")
        let post = player.explainMiss(RecordedRequest(method: "POST", url: URL(string: "https://cdn.example.com/catalog/full.json")!))
        #expect(!post.contains("skipped when the cassette was read"), "\(post)")
        // The host's case, a port, the scheme (serve speaks plain HTTP) and a query do not hide it
        for address in ["https://CDN.example.com:443/catalog/full.json?v=2", "http://cdn.example.com/catalog/full.json"] {
            let same = player.explainMiss(RecordedRequest(method: "GET", url: URL(string: address)!))
            #expect(same.contains("entry 3 GET https://cdn.example.com/catalog/full.json: skipped"), "\(same)")
        }
    }

    @Test("log.version as a JSON number (newman-reporter-har) reads as that version; a number that is not 1.x is still refused")
    func numericVersion() throws {
        let data = try Data(contentsOf: url("newman-reporter.har"))
        #expect(HARCodec.decodeFast(data)?.log.version == "1.2")
        var text = try #require(String(data: data, encoding: .utf8))
        text = text.replacingOccurrences(of: #""version": 1.2"#, with: #""version": 2"#)
        #expect(throws: CassetteError.self) { try HARCodec.decode(Data(text.utf8), file: "two.har") }
        do {
            _ = try HARCodec.decode(Data(text.utf8), file: "two.har")
        } catch {
            #expect(error.place == "log.version" && error.reason.contains("2.0"), "\(error)")
        }
    }

    @Test("a huge base64 body (6 MiB, wrapped at 76 columns as MIME writes it) loads byte for byte through both readers")
    func hugeBase64Body() throws {
        // Given a HAR whose one response is 6 MiB of bytes no text can hold
        var bytes = [UInt8](repeating: 0, count: 6 << 20)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let body = Data(bytes)
        let wrapped = body.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
            .replacingOccurrences(of: "\r\n", with: "\\r\\n")
        let json = #"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":"","time":1,"#
            + #""request":{"method":"GET","url":"https://big.example.com/blob","headers":[]},"#
            + #""response":{"status":200,"headers":[{"name":"Content-Type","value":"application/octet-stream"}],"#
            + #""content":{"size":\#(body.count),"mimeType":"application/octet-stream","encoding":"base64","text":"\#(wrapped)"}}}]}}"#
        let data = Data(json.utf8)
        // When both readers read it
        let fast = try #require(HARCodec.decodeFast(data))
        #expect(fast == (try HARCodec.decodeWithFoundation(data, file: "big.har")))
        // Then the body is the bytes
        let cassette = try HARCodec.decode(data, file: "big.har")
        #expect(cassette.interactions.first?.response?.body == body)
    }
}
