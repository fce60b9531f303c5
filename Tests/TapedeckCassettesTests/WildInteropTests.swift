import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HAR files shaped like those of writers Tapedeck has no capture from (Chrome DevTools, Safari,
/// Fiddler, Charles, Polly.JS, Firebug, BrowserMob Proxy, chrome-har-capturer, k6's har-to-k6
/// input, Playwright's `content: 'attach'`, a hand-edited file): written for Tapedeck, each
/// reproducing its writer's quirks (fixtures/interop/README.md, "Imitations").
@Suite("Cassettes: HAR shapes of more writers (DevTools, Safari, Fiddler, Charles, Polly, ...) load and replay")
struct WildInteropTests {
    /// A fixture, what loading it must give, and one entry to replay.
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var interactions: Int
        /// Positions of skipped entries, each with a fragment of its reason.
        var skipped: [(Int, String)] = []
        var url: String
        var status: Int
        var body: Data
        var header: (name: String, value: String?)
        var testDescription: String { file }
    }

    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAAAAACMmsGiAAAAHElEQVR4nGNgUPXKZ+A2CK1iELNOaGVQdMueAAAl5ASBUj/tNQAAAABJRU5ErkJggg==")!

    static let cases: [Case] = [
        Case(file: "chrome-devtools.har", interactions: 6, skipped: [(3, "a WebSocket connection ('wss:')")],
             url: "https://img.example.com/logo.png", status: 200, body: png, header: ("content-type", "image/png")),
        Case(file: "safari-webinspector.har", interactions: 4, url: "https://shop.example.com/api/cart", status: 200,
             body: Data(#"{"items":[{"sku":"tea","qty":2}]}"#.utf8), header: ("Vary", "Accept-Encoding")),
        Case(file: "fiddler.har", interactions: 2, url: "http://intranet.example.com/api/items?page=1", status: 200,
             body: Data("[{\"id\":1},{\"id\":2},{\"id\":3}]\r\n".utf8), header: ("Content-Type", "application/json; charset=utf-8")),
        Case(file: "charles.har", interactions: 2, url: "https://mobile.example.com/v2/feed?since=0", status: 200,
             body: Data(#"{"posts":[],"cursor":"3"}"#.utf8), header: ("ETag", "\"feed-3\"")),
        Case(file: "polly.har", interactions: 3, url: "http://api.example.org/avatar.png", status: 200, body: png,
             header: ("content-type", "image/png")),
        Case(file: "firebug.har", interactions: 2, url: "http://www.example.com/", status: 200,
             body: Data("<!DOCTYPE HTML>\n<html><body>hello</body></html>\n".utf8), header: ("Content-Type", "text/html; charset=UTF-8")),
        Case(file: "browsermob.har", interactions: 3, url: "http://www.example.com/search?q=tapes", status: 200,
             // No header captured: the HAR mimeType stands in for the Content-Type the server sent.
             body: Data("<ul><li>tape</li></ul>".utf8), header: ("Content-Type", "text/html; charset=utf-8")),
        Case(file: "chrome-har-capturer.har", interactions: 2, url: "http://example.com/", status: 301, body: Data(),
             header: ("Set-Cookie", "region=eu; Domain=.example.com; Path=/, ab=b; Path=/")),
        Case(file: "hand-edited.har", interactions: 4, url: "https://api.example.com/v1/orders?status=open", status: 200,
             body: Data(#"[{"id":1},{"id":2,"n":null}]"#.utf8), header: ("X-Total", "2")),
        Case(file: "playwright-attach/playwright-attach.har", interactions: 2, url: "http://localhost:8080/pixel.png", status: 200,
             body: png, header: ("Content-Type", "image/png")),
    ]

    private func url(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/\(name)")
    }

    @Test("each file loads through the fast reader, equal to what JSONDecoder reads, with exactly the expected entries skipped",
          arguments: cases)
    func loads(_ test: Case) throws {
        _ = try expectBothReadersLoad(url(test.file), interactions: test.interactions, skipped: test.skipped)
    }

    @Test("a chosen entry of each file replays through a real URLSession: status, body bytes and a header", arguments: cases)
    func replays(_ test: Case) throws {
        let cassette = try CassetteFile.read(url(test.file))
        let interaction = try #require(cassette.interactions.first { $0.request.url.absoluteString == test.url })
        let result = try SequentialReplay(cassette).send(interaction.request)
        let response = try #require(result.response, "\(test.file): \(String(describing: result.error))")
        #expect(response.statusCode == test.status)
        #expect(result.body == test.body, "\(test.file): \(String(decoding: result.body, as: UTF8.self))")
        #expect(response.value(forHTTPHeaderField: test.header.name) == test.header.value, "\(test.file): \(response.allHeaderFields)")
    }

    @Test("failures recorded by DevTools, Safari and a hand-made file replay as the mapped URLError")
    func failures() throws {
        let checks: [(String, String, URLError.Code)] = [
            ("chrome-devtools.har", "https://down.example.com/v1/health", .cannotConnectToHost),
            ("chrome-devtools.har", "https://ads.example.net/tracker.js", .unknown),
            ("safari-webinspector.har", "https://cdn.example.net/fonts/serif.woff2", .networkConnectionLost),
            ("hand-edited.har", "https://blocked.example.com/pixel.gif", .unknown),
        ]
        for (file, address, code) in checks {
            let cassette = try CassetteFile.read(url(file))
            let interaction = try #require(cassette.interactions.first { $0.request.url.absoluteString == address })
            let result = try SequentialReplay(cassette).send(interaction.request)
            #expect(result.error?.code == code, "\(file) \(address): \(String(describing: result.error))")
        }
    }

    @Test("quoted numbers (time, status, sizes, timings) read as numbers; a quoted non-number is the entry's error, named")
    func quotedNumbers() throws {
        #expect(HARNumberText.double("17.25") == 17.25 && HARNumberText.double(" -1 ") == -1 && HARNumberText.double("1e3") == 1000)
        for text in ["", "NaN", "inf", "0x10", "1.", ".5", "abc", "1 2", "+1"] {
            #expect(HARNumberText.double(text) == nil, "\(text)")
        }
        #expect(HARNumberText.integer("62.0") == 62 && HARNumberText.integer("1.5") == nil)

        let cassette = try CassetteFile.read(url("hand-edited.har"))
        let orders = try #require(cassette.interactions.first)
        #expect(orders.response?.status == 200 && orders.request.method == "GET")
        #expect(orders.timings?.wait == .microseconds(15_750) && orders.timings?.send == .microseconds(500))

        var text = try String(contentsOf: url("hand-edited.har"), encoding: .utf8)
        text = text.replacingOccurrences(of: #""status": "200""#, with: #""status": "two hundred""#)
        let odd = Data(text.utf8)
        #expect(HARCodec.decodeFast(odd) == nil, "the fast reader declines what it cannot read as a number")
        let lenient = try HARCodec.decode(odd, file: "odd.har")
        #expect(lenient.skipped.map(\.position) == [0])
        #expect(lenient.skipped.first?.description.contains("expected an integer, found the string 'two hundred'") == true, "\(lenient.skipped)")
        #expect(throws: CassetteError.self) { try HARCodec.decode(odd, file: "odd.har", strict: true) }
    }

    @Test("Playwright's attached text body sent as iso-8859-1 (the file holds it as UTF-8): replayed as the 12 bytes sent, as its embedded HAR does")
    func attachedLatin1Text() throws {
        // Given Playwright 1.65's attach HAR of `text/plain; charset=iso-8859-1` "café naïve £"
        // (gunicorn sent 12 bytes; the file beside the HAR holds 15, the text as UTF-8)
        let cassette = try CassetteFile.read(url("playwright-attach-latin1/playwright-attach-latin1.har"))
        // When its body is read
        let body = try #require(cassette.interactions.first { $0.request.url.path == "/latin1" }?.response?.body)
        // Then it is the Latin-1 bytes, and a note says the file's text was encoded back
        #expect(body == Data("café naïve £".data(using: .isoLatin1)!), "\(Array(body))")
        #expect(body.count == 12)
        #expect(cassette.notes.contains { $0.field == "response.content._file" && $0.text.contains("encoded back") }, "\(cassette.notes)")

        // A file's bytes stay the body when its charset is UTF-8, when the Content-Length agrees
        // with the file, or when they are not UTF-8 (Latin-1 bytes as sent)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func attached(_ bytes: [UInt8], type: String, length: Int?) throws -> [UInt8] {
            try Data(bytes).write(to: directory.file("body.txt"))
            let lengthField = length.map { #",{"name":"Content-Length","value":"\#($0)"}"# } ?? ""
            let har = #"{"log":{"version":"1.2","creator":{"name":"Playwright","version":"1.65.1"},"entries":[{"startedDateTime":"2026-11-27T03:00:00Z","#
                + #""time":1,"request":{"method":"GET","url":"http://site.test/t","headers":[],"queryString":[],"bodySize":0},"response":{"status":200,"#
                + #""headers":[{"name":"Content-Type","value":"\#(type)"}\#(lengthField)],"content":{"size":\#(bytes.count),"mimeType":"\#(type)","#
                + #""_file":"body.txt"}},"timings":{"send":0,"wait":1,"receive":0}}]}}"#
            try Data(har.utf8).write(to: directory.file("t.har"))
            return Array(try #require(try CassetteFile.read(directory.file("t.har")).interactions.first?.response?.body))
        }
        let cafe = Array("café".utf8)
        #expect(try attached(cafe, type: "text/plain; charset=utf-8", length: nil) == cafe)
        #expect(try attached(cafe, type: "text/plain; charset=iso-8859-1", length: 5) == cafe)
        #expect(try attached(cafe, type: "text/plain; charset=iso-8859-1", length: 4) == [0x63, 0x61, 0x66, 0xE9])
        #expect(try attached(cafe, type: "text/plain; charset=iso-8859-1", length: nil) == [0x63, 0x61, 0x66, 0xE9])
        #expect(try attached([0x63, 0xE9], type: "text/plain; charset=iso-8859-1", length: nil) == [0x63, 0xE9])
    }

    @Test("requests-har's empty text for a 1 KiB binary body (content.size 1024): replays empty, with the note on uncaptured bodies")
    func emptyTextWithSize() throws {
        let cassette = try CassetteFile.read(url("requests-har-binary.har"))
        #expect(cassette.interactions.first?.response?.body.isEmpty == true)
        #expect(cassette.notes.contains { $0.field == "response.content" && $0.text.contains("did not capture it") && $0.text.contains("1024 bytes") },
                "\(cassette.notes)")
    }

    @Test("mitmproxy's body streamed past stream_large_bodies (text \"\", size 0, its Content-Length kept): replays empty, with the note naming the length")
    func streamedPastLimit() throws {
        func read(length: String) throws -> Cassette {
            let document: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "mitmproxy", "version": "11.0.2"], "entries": [[
                "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1, "timings": ["send": 0, "wait": 1, "receive": 0],
                "request": ["method": "GET", "url": "http://a.test/big.bin", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                            "cookies": [], "headersSize": -1, "bodySize": 0],
                "response": ["status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "redirectURL": "",
                             "headers": [["name": "Content-Length", "value": length], ["name": "Content-Type", "value": "application/octet-stream"]],
                             "headersSize": -1, "bodySize": 0, "content": ["size": 0, "mimeType": "application/octet-stream", "text": ""]],
            ]]]]
            return try HARCodec.decode(try JSONSerialization.data(withJSONObject: document), file: "mitm.har")
        }
        let streamed = try read(length: "1120000")
        #expect(streamed.interactions.first?.response?.body.isEmpty == true)
        #expect(streamed.notes.contains { $0.field == "response.content" && $0.text.contains("did not capture it") && $0.text.contains("1120000 bytes")
            && $0.text.contains("stream_large_bodies") }, "\(streamed.notes)")
        // An empty body the head says is empty needs no note
        #expect(try read(length: "0").notes.isEmpty)
        // Nor does a browser's redirect, kept with no text and size -1 beside its Content-Length
        for browser in ["playwright-chromium.har", "firefox.har"] {
            let notes = try CassetteFile.read(url(browser)).notes
            #expect(!notes.contains { $0.text.contains("Content-Length says") }, "\(browser): \(notes)")
        }
    }

    @Test("Playwright's attached bodies: read beside the HAR; skipped with the reason when not there or not a plain name")
    func attachedBodies() throws {
        let data = try Data(contentsOf: url("playwright-attach/playwright-attach.har"))
        let inMemory = try HARCodec.decode(data, file: "pw.har")
        #expect(inMemory.interactions.isEmpty && inMemory.skipped.count == 2)
        #expect(inMemory.skipped.first?.description.contains("attached file 'ecd0f27f005bcb3770b6bb86f84b6fb64fb189ec.json'") == true,
                "\(inMemory.skipped)")

        let fromFile = try CassetteFile.read(url("playwright-attach/playwright-attach.har"))
        #expect(fromFile.interactions.first?.response?.body == Data(#"{"id":3,"title":"Attached bodies"}"#.utf8))

        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let escaping = String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "ecd0f27f005bcb3770b6bb86f84b6fb64fb189ec.json", with: "../ecd0f27f005bcb3770b6bb86f84b6fb64fb189ec.json")
        let file = directory.file("pw.har")
        try Data(escaping.utf8).write(to: file)
        let cassette = try CassetteFile.read(file)
        #expect(cassette.skipped.map(\.position) == [0, 1])
        #expect(cassette.skipped[0].description.contains("is not a plain file name"), "\(cassette.skipped[0])")
        #expect(cassette.skipped[1].description.contains("cannot be read"), "\(cassette.skipped[1])")

        // A symbolic link beside the HAR is not followed (a HAR bundle from elsewhere could point it anywhere).
        let linked = try TemporaryDirectory()
        defer { linked.cleanUp() }
        try data.write(to: linked.file("pw.har"))
        let secret = directory.file("outside.txt")
        try Data("not for the cassette".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: linked.file("ecd0f27f005bcb3770b6bb86f84b6fb64fb189ec.json"), withDestinationURL: secret)
        let viaLink = try CassetteFile.read(linked.file("pw.har"))
        #expect(viaLink.skipped.first?.description.contains("is a symbolic link") == true, "\(viaLink.skipped)")
        #expect(!viaLink.interactions.contains { $0.response?.body == Data("not for the cassette".utf8) })
    }

    @Test("request-only HARs (k6's har-to-k6 input) and Latin-1 text are skipped with a reason that says so")
    func unreplayableFiles() throws {
        let k6 = try CassetteFile.read(url("k6-har-input.har"))
        #expect(k6.interactions.isEmpty && k6.skipped.map(\.position) == [0, 1])
        #expect(k6.skipped.allSatisfy { $0.description.contains("request-only HAR") }, "\(k6.skipped)")

        var latin1 = Data(#"{"log":{"version":"1.2","creator":{"name":"HttpWatch","version":"15"},"entries":[{"request":{"method":"GET","url":"http://example.com/"},"response":{"status":200,"content":{"size":4,"mimeType":"text/plain","text":"caf"#.utf8)
        latin1.append(0xE9)
        latin1.append(contentsOf: Data(#""}}}]}}"#.utf8))
        let cassette = try HARCodec.decode(latin1, file: "latin1.har")
        #expect(cassette.skipped.count == 1)
        #expect(cassette.skipped.first?.description.contains("not UTF-8") == true, "\(cassette.skipped)")
    }
}

/// Reads the HAR at `url` with the fast reader and with JSONDecoder, expects the same document,
/// then reads it as a cassette and expects `interactions` entries and exactly the `skipped` ones
/// (position, a part of the reason). Returns the cassette.
func expectBothReadersLoad(_ url: URL, interactions: Int, skipped: [(Int, String)]) throws -> Cassette {
    let data = try Data(contentsOf: url)
    let fast = try #require(HARCodec.decodeFast(data), "the fast reader declined \(url.lastPathComponent)")
    #expect(fast == (try HARCodec.decodeWithFoundation(data, file: url.lastPathComponent)))
    let cassette = try CassetteFile.read(url)
    #expect(cassette.interactions.count == interactions)
    #expect(cassette.skipped.map(\.position) == skipped.map(\.0), "\(cassette.skipped)")
    for (entry, expected) in zip(cassette.skipped, skipped) {
        #expect(entry.description.contains(expected.1), "\(entry)")
    }
    return cassette
}
