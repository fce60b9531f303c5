import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Quirks of real HAR writers that an audit of 90 files from 17 tools found read wrongly, each
/// imitated by a small file in fixtures/interop/ (its README names the writer): bodies in codings
/// Tapedeck cannot decode, other tools' `_index`, text bodies and their charset, Polly.JS hex,
/// URLs `URL(string:)` rejects, failures after a status, array-valued headers, object-valued
/// params, URLs without a path.
@Suite("Cassettes: writers' quirks (br/zstd, _index, charsets, Polly hex, raw brackets, cut bodies, arrays, params)")
struct WriterQuirkTests {
    private func url(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/\(name)")
    }

    private func load(_ name: String) throws -> Cassette {
        try CassetteFile.read(url(name))
    }

    /// The file through both readers: the fast one takes it and agrees with JSONDecoder.
    private func bothReadersAgree(_ name: String) throws {
        let data = try Data(contentsOf: url(name))
        let fast = try #require(HARCodec.decodeFast(data), "the fast reader declined \(name)")
        #expect(fast == (try HARCodec.decodeWithFoundation(data, file: name)), "\(name)")
    }

    private func response(_ cassette: Cassette, _ address: String) throws -> RecordedResponse {
        let interaction = try #require(cassette.interactions.first { $0.request.url.absoluteString == address }, "\(address)")
        return try #require(interaction.response, "\(address) is not a response")
    }

    @Test("br and zstd bodies stored decoded are read as decoded (no writer stores them as wire text), and replay as the text in process")
    func undecodableCodingsAreDecoded() throws {
        // Given a Playwright-shaped file whose br and zstd bodies hold the decoded text
        let cassette = try load("br-zstd-decoded.har")
        // When it is read, then both bodies are the decoded form (serve drops the coding's label)
        let items = try response(cassette, "https://shop.example.com/api/items")
        let script = try response(cassette, "https://shop.example.com/static/app.js")
        #expect(items.bodyForm == .decoded && script.bodyForm == .decoded)
        // and in process the client gets the text, as URLSession would hand it over after decoding
        let interaction = try #require(cassette.interactions.first)
        let result = try SequentialReplay(cassette).send(interaction.request)
        #expect(result.body == Data(#"{"items":[{"id":1,"name":"kettle"},{"id":2,"name":"teapot"}]}"#.utf8))

        // The inference itself: a body is wire only when it starts like the last coding's stream.
        let zstdFrame = try Zstd.compress(Data("plain".utf8))
        #expect(HARCodec.inferredForm(zstdFrame, contentEncoding: "zstd") == .wire)
        #expect(HARCodec.inferredForm(Data([0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05]), contentEncoding: "zstd") == .decoded, "its magic, but no frame")
        // Text that starts like a zlib header is not taken for one; a gzip file sent gzipped and
        // stored decoded once is told by the Content-Length the wire had
        #expect(HARCodec.inferredForm(Data("x^2 + y^2 = z^2".utf8), contentEncoding: "deflate") == .decoded)
        let gzipFile = try Zlib.compress(Data(#"{"a":1}"#.utf8), format: .gzip)
        #expect(HARCodec.inferredForm(gzipFile, contentEncoding: "gzip", announced: gzipFile.count + 18) == .decoded)
        #expect(HARCodec.inferredForm(gzipFile, contentEncoding: "gzip", announced: gzipFile.count) == .wire)
        #expect(HARCodec.inferredForm(gzipFile, contentEncoding: "gzip") == .wire)
        // A body that broke off is judged by its start alone: cut short, it neither decodes whole nor has its length
        let cut = Data(try Zstd.compress(Data(String(repeating: "zstd frame ", count: 50).utf8)).prefix(12))
        #expect(HARCodec.inferredForm(cut, contentEncoding: "zstd", announced: 400, complete: false) == .wire)
        #expect(HARCodec.inferredForm(cut, contentEncoding: "zstd", announced: 400) == .decoded)
        #expect(HARCodec.inferredForm(Data("plain".utf8), contentEncoding: "zstd") == .decoded)
        #expect(HARCodec.inferredForm(Data("plain".utf8), contentEncoding: "br") == .decoded)
        #expect(HARCodec.inferredForm(Data("plain".utf8), contentEncoding: "x-custom") == .decoded)
        #expect(HARCodec.inferredForm(Data("plain".utf8), contentEncoding: "identity") == .wire)
        #expect(HARCodec.inferredForm(try Zlib.compress(Data("z".utf8), format: .gzip), contentEncoding: "br, gzip") == .wire)
        #expect(HARCodec.inferredForm(Data("plain".utf8), contentEncoding: "gzip, br") == .decoded)
    }

    @Test("WebPageTest's _index (per page and run, repeating) is not the replay order: file order is; unique or Tapedeck _index still is")
    func foreignIndexIsNotTheOrder() throws {
        // Given WebPageTest's numbering: the repeat view's /app.js (304) has a smaller _index than the first view's (200)
        let cassette = try load("webpagetest-index.har")
        // Then entries keep their file positions as their order
        #expect(cassette.interactions.map(\.index) == [0, 1, 2, 3, 4])
        // and the first view's /app.js answers first; the repeat view's 304 answers only a
        // revalidating request (WebPageTest left its If-None-Match out), a plain one the 200 again
        let script = try #require(cassette.interactions.first { $0.request.url.path == "/app.js" })
        let replay = SequentialReplay(cassette)
        let first = try replay.send(script.request)
        #expect(first.response?.statusCode == 200 && first.body == Data("start()".utf8))
        #expect(try replay.send(script.request, headers: ["If-None-Match": "\"v1\""]).response?.statusCode == 304)
        #expect(try replay.send(script.request).response == nil, "no answer left a plain request can take (afterLast: .noMatch)")

        // Unique `_index` values from another writer are still the order (listed in reverse here).
        let reversed = """
        {"log":{"version":"1.2","creator":{"name":"other","version":"1"},"entries":[
         {"_index":1,"request":{"method":"GET","url":"http://a.example/x"},"response":{"status":200,"content":{"text":"second"}}},
         {"_index":0,"request":{"method":"GET","url":"http://a.example/x"},"response":{"status":200,"content":{"text":"first"}}}]}}
        """
        let ordered = try HARCodec.decode(Data(reversed.utf8), file: "r.har")
        #expect(ordered.interactions.map(\.index) == [1, 0])
        let again = SequentialReplay(ordered)
        #expect(try again.send(ordered.interactions[0].request).body == Data("first".utf8))
        // A repeated `_index` in a Tapedeck file (`_tapedeck`) is trusted as written.
        let tapedeck = reversed.replacingOccurrences(of: #""_index":1"#, with: #""_index":0"#)
            .replacingOccurrences(of: #""entries""#, with: #""_tapedeck":{"formatVersion":1},"entries""#)
        #expect(try HARCodec.decode(Data(tapedeck.utf8), file: "t.har").interactions.map(\.index) == [0, 0])
    }

    @Test("mitmproxy text bodies become the bytes that travelled: Latin-1 binary, a declared charset, its Latin-1 fallback, JSON as UTF-8")
    func mitmproxyCharsets() throws {
        // Given mitmproxy 11.0.2 bodies it decoded to text by its own rule
        let cassette = try load("mitmproxy-charsets.har")
        let binary = Data([0x0A, 0xF0, 0x66, 0x5A, 0x3A, 0x00, 0x81, 0xFF, 0x10, 0x41, 0x42, 0x43, 0xE9, 0x8D, 0x20, 0x7E])
        // Then each body is byte for byte what the server sent
        #expect(try response(cassette, "http://files.example.net/blob.bin").body == binary)
        #expect(try response(cassette, "http://files.example.net/menu.txt").body == Data([0x43, 0x61, 0x66, 0xE9, 0x20, 0x63, 0x72, 0xE8, 0x6D, 0x65]))
        #expect(try response(cassette, "http://files.example.net/check.js").body == Data("check(\"\u{2713}\");\n".utf8))
        #expect(try response(cassette, "http://files.example.net/city.json").body == Data(#"{"city":"Z\#u{FC}rich"}"#.utf8))
        // and the request body (application/octet-stream, Latin-1 text) too
        let upload = try #require(cassette.interactions.first { $0.request.method == "POST" })
        #expect(upload.request.body == binary)
        // mitmproxy's rule is known, so nothing is a guess
        #expect(cassette.notes.isEmpty, "\(cassette.notes)")
        // In process the client gets those bytes.
        let menu = try #require(cassette.interactions.first { $0.request.url.path == "/menu.txt" })
        #expect(try SequentialReplay(cassette).send(menu.request).body.count == 10)
    }

    @Test("a browser's Latin-1 text and Firefox's binary-string upload: windows-1252 for iso-8859-1, Latin-1 with a note for multipart")
    func browserCharsets() throws {
        let cassette = try load("firefox-binary-post.har")
        // Given an iso-8859-1 body holding "€" (browsers decode that label as windows-1252)
        #expect(try response(cassette, "http://upload.example.com/price").body == Data("Price: 5 ".utf8) + Data([0x80]) + Data(", caf".utf8) + Data([0xE9]))
        // Given a multipart upload Firefox wrote as a binary string: the GIF's bytes come back
        let upload = try #require(cassette.interactions.first { $0.request.method == "POST" })
        let body = try #require(upload.request.body)
        let gif = Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF])
        #expect(body.range(of: gif) != nil, "the GIF's bytes, not their UTF-8 expansion")
        #expect(body.count == Int(upload.request.headers.value(for: "Content-Length") ?? "") ?? -1)
        // and the guess is reported where the loader reports warnings
        let note = try #require(cassette.notes.first)
        #expect(cassette.notes.count == 1 && note.position == 0 && note.field == "request.postData", "\(cassette.notes)")
        #expect(note.description.contains("read as Latin-1"), "\(note)")
    }

    @Test("the charset rules one by one: other charsets, unknown ones, ambiguous text by type, and Tapedeck's own text always UTF-8")
    func charsetRules() throws {
        func read(_ text: String, _ type: String, writer: String = "Chrome", tapedeck: Bool = false) throws -> (Data, [LoadNote]) {
            let document: [String: Any] = ["log": [
                "version": "1.2", "creator": ["name": writer, "version": "1"],
                "entries": [["request": ["method": "GET", "url": "http://c.example/"],
                             "response": ["status": 200, "headers": [["name": "Content-Type", "value": type]],
                                          "content": ["mimeType": type, "text": text]]]],
            ].merging(tapedeck ? ["_tapedeck": ["formatVersion": 1]] : [:]) { $1 }]
            let cassette = try HARCodec.decode(try JSONSerialization.data(withJSONObject: document), file: "c.har")
            return (try #require(cassette.interactions.first?.response?.body), cassette.notes)
        }
        #expect(try read("\u{65E5}\u{672C}", "text/plain; charset=Shift_JIS").0 == Data([0x93, 0xFA, 0x96, 0x7B]))
        #expect(try read("\u{BF}", "text/plain; charset=\"ISO-8859-1\"").0 == Data([0xBF]))
        #expect(try read("\u{E9}", "text/html").0 == Data("\u{E9}".utf8), "a text type without charset: browsers default to UTF-8")
        #expect(try read("\u{E9}", "text/html").1.isEmpty)
        let octets = try read("\u{E9}\u{00}", "image/x-icon")
        #expect(octets.0 == Data([0xE9, 0x00]) && octets.1.count == 1, "non-text type: one byte per character, with a note")
        let unknown = try read("\u{44F}", "text/plain; charset=koi8-r")
        #expect(unknown.0 == Data("\u{44F}".utf8) && unknown.1.first?.text.contains("koi8-r") == true, "\(unknown.1)")
        #expect(try read("\u{E9}", "text/plain; charset=iso-8859-1", tapedeck: true).0 == Data("\u{E9}".utf8),
                "Tapedeck writes text only for UTF-8 bodies, so its text is never re-encoded")
        #expect(try read("\u{E9}", "text/html", writer: "mitmproxy").0 == Data([0xE9]), "mitmproxy before 12.2.1: Latin-1 for HTML")
        #expect(try read("<meta charset=\"utf-8\">\u{E9}", "text/html", writer: "mitmproxy").0 == Data("<meta charset=\"utf-8\">\u{E9}".utf8))
        #expect(try read("\u{E9}", "application/xml", writer: "mitmproxy").0 == Data([0xE9]))
        let modern = try HARCodec.decode(Data(#"{"log":{"version":"1.2","creator":{"name":"mitmproxy","version":"12.2.1"},"entries":[{"request":{"method":"GET","url":"http://c.example/"},"response":{"status":200,"content":{"mimeType":"application/javascript","text":"\u00e9"}}}]}}"#.utf8), file: "m.har")
        #expect(modern.interactions.first?.response?.body == Data("\u{E9}".utf8), "mitmproxy 12.2.1 falls back to UTF-8 for JavaScript")
    }

    @Test("Polly.JS _isBinary bodies (hex chunks, a hex string) are decoded to bytes; gzip among them is wire and reaches the client decoded")
    func pollyBinary() throws {
        try bothReadersAgree("polly-binary.har")
        let cassette = try load("polly-binary.har")
        let user = try response(cassette, "https://api.example.org/users/example")
        #expect(user.body.prefix(2) == Data([0x1F, 0x8B]) && user.bodyForm == .wire)
        let expected = Data(#"{"login": "example", "id": 42, "note": "binary in hex"}"#.utf8)
        #expect(try ContentCoding.decode(user.body, contentEncoding: "gzip") == expected)
        let interaction = try #require(cassette.interactions.first)
        #expect(try SequentialReplay(cassette).send(interaction.request).body == expected)
        #expect(try response(cassette, "https://api.example.org/avatar.png").body == WildInteropTests.png)

        let broken = try String(contentsOf: url("polly-binary.har"), encoding: .utf8).replacingOccurrences(of: "\"text\": \"89504e47", with: "\"text\": \"zz504e47")
        let skipped = try HARCodec.decode(Data(broken.utf8), file: "p.har")
        #expect(skipped.skipped.map(\.position) == [1] && skipped.skipped.first?.description.contains("_isBinary") == true, "\(skipped.skipped)")
    }

    @Test("Polly.JS 1.x hex with no _isBinary: decoded when its size says so; hex-looking text of another writer, or of a text type, stays text")
    func pollyOneHex() throws {
        func har(writer: String, type: String, text: String, size: Int) -> Data {
            Data(#"""
            {"log": {"version": "1.2", "creator": {"name": "\#(writer)", "version": "1.4.2"}, "entries": [{
              "startedDateTime": "2019-01-29T05:34:17.000Z", "time": 1, "timings": {"send": 0, "wait": 1, "receive": 0},
              "request": {"method": "GET", "url": "http://img.test/a", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                          "cookies": [], "headersSize": -1, "bodySize": 0},
              "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "redirectURL": "",
                           "headers": [{"name": "content-type", "value": "\#(type)"}], "headersSize": -1, "bodySize": -1,
                           "content": {"mimeType": "\#(type)", "size": \#(size), "text": "\#(text)"}}}]}}
            """#.utf8)
        }
        let png = "89504e470d0a1a0a"
        let polly = try HARCodec.decode(har(writer: "Polly.JS", type: "image/png", text: png, size: 8), file: "p.har")
        #expect(polly.interactions.first?.response?.body == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        for (writer, type, size) in [("Polly.JS", "text/plain", 8), ("Polly.JS", "image/png", 16), ("Charles", "image/png", 8)] {
            let kept = try HARCodec.decode(har(writer: writer, type: type, text: png, size: size), file: "p.har")
            #expect(kept.interactions.first?.response?.body == Data(png.utf8), "\(writer) \(type) \(size)")
        }
    }

    @Test("a URL with raw [ ] | and spaces keeps its %XX escapes; a Swift client sending the escaped form matches it")
    func bracketsInURLs() throws {
        let cassette = try load("chrome-har-capturer-brackets.har")
        let recorded = try #require(cassette.interactions.first).request.url
        #expect(recorded.absoluteString == "http://ads.example.com/beacon?p=%2Fnews%2Ftoday&x=%5B6b4b959b%5D&vars%5Bvisible%5D=1&sel=a%7Cb"
                + "&q=two%20words&dl=http%3A%2F%2Fwww.example.com%2F")
        // When a Swift client builds the URL from its parts (URLComponents escapes the brackets)
        var components = URLComponents(string: "http://ads.example.com/beacon")!
        components.queryItems = [URLQueryItem(name: "p", value: "/news/today"), URLQueryItem(name: "x", value: "[6b4b959b]"),
                                 URLQueryItem(name: "vars[visible]", value: "1"), URLQueryItem(name: "sel", value: "a|b"),
                                 URLQueryItem(name: "q", value: "two words"), URLQueryItem(name: "dl", value: "http://www.example.com/")]
        let request = RecordedRequest(method: "GET", url: try #require(components.url))
        #expect(request.url.absoluteString.contains("x=%5B6b4b959b%5D"), "\(request.url)")
        // Then it matches, and gets the recorded answer
        #expect(MatchRules().mismatches(request, cassette.interactions[0].request).isEmpty,
                "\(MatchRules().mismatches(request, cassette.interactions[0].request))")
        #expect(try SequentialReplay(cassette).send(request).response?.statusCode == 204)

        #expect(LenientURL.escapingInvalidCharacters("http://[::1]:8080/a b?c=%2f&d=50%&e=é#f#g")
                == "http://[::1]:8080/a%20b?c=%2f&d=50%25&e=%C3%A9#f%23g")
        #expect(LenientURL.escapingInvalidCharacters("https://h.example/plain?ok=1") == "https://h.example/plain?ok=1")
    }

    @Test("a failure text on an entry with a status (Chromium's cut bodies) replays the head, then the connection lost — not an empty success")
    func failureAfterStatus() throws {
        let cassette = try load("playwright-cut-body.har")
        let lost = URLError.networkConnectionLost.rawValue
        #expect(cassette.interactions.map { $0.response?.interruption?.code } == [lost, lost, lost, nil])
        #expect(cassette.interactions.map { $0.response?.status } == [200, 200, 200, 200])
        let cut = try #require(cassette.interactions.first)
        let result = try SequentialReplay(cassette).send(cut.request)
        #expect(result.error?.code == .networkConnectionLost && result.body.isEmpty)
        #expect(result.error?.localizedDescription.contains("net::ERR_CONTENT_LENGTH_MISMATCH") == true, "\(String(describing: result.error))")
    }

    @Test("Polly.JS 1.x array-valued header values are repeated fields, through both readers")
    func arrayValuedHeaders() throws {
        try bothReadersAgree("polly1-array-headers.har")
        let cassette = try load("polly1-array-headers.har")
        #expect(cassette.skipped.isEmpty, "\(cassette.skipped)")
        let interaction = try #require(cassette.interactions.first)
        #expect(interaction.request.headers.value(for: "accept") == "*/*")
        let response = try #require(interaction.response)
        #expect(response.headers.filter { $0.name == "set-cookie" }.map(\.value) == ["a=1; Path=/", "b=2; Path=/"])
        #expect(response.headers.value(for: "content-type") == "application/json; charset=utf-8")
        #expect(try SequentialReplay(cassette).send(interaction.request).body == Data(#"{"id":1,"title":"first"}"#.utf8))
    }

    @Test("chrome-har params with object values do not skip the entry: no body is rebuilt, with a note; both readers agree")
    func objectValuedParams() throws {
        try bothReadersAgree("chrome-har-object-params.har")
        let cassette = try load("chrome-har-object-params.har")
        #expect(cassette.skipped.isEmpty && cassette.interactions.count == 2, "\(cassette.skipped)")
        let post = try #require(cassette.interactions.first)
        #expect(post.request.body == nil && post.response?.status == 204)
        #expect(cassette.notes.count == 1 && cassette.notes.first?.description.contains("postData.params[1]") == true, "\(cassette.notes)")
        #expect(try SequentialReplay(cassette).send(post.request).response?.statusCode == 204)
    }

    @Test("a recorded URL without a path matches '/', a default port and %xx case do not matter; BrowserMob's failure text maps")
    func emptyPathsAndNormalisation() throws {
        let cassette = try load("browsermob-no-path.har")
        let page = try #require(cassette.interactions.first { $0.request.method == "GET" })
        let asked = RecordedRequest(method: "GET", url: URL(string: "http://www.example.com/")!)
        #expect(MatchRules().mismatches(asked, page.request).isEmpty)
        #expect(try SequentialReplay(cassette).send(asked).body == Data("home page".utf8))
        let connect = try #require(cassette.interactions.first { $0.request.method == "CONNECT" })
        #expect(connect.outcome == .failure(RecordedFailure(code: URLError.cannotConnectToHost.rawValue, message: "Unable to connect to host")))

        let recorded = RecordedRequest(method: "GET", url: URL(string: "HTTPS://Api.Example.com:443/a%2fb?x=1")!)
        #expect(MatchRules().mismatches(RecordedRequest(method: "GET", url: URL(string: "https://api.example.com/a%2Fb?x=1")!), recorded).isEmpty)
        #expect(!MatchRules().mismatches(RecordedRequest(method: "GET", url: URL(string: "https://api.example.com:8443/a%2Fb?x=1")!), recorded).isEmpty)
    }
}
