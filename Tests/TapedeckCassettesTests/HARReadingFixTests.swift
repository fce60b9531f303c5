import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// Defects an outside user found by feeding real HAR files (haralyzer, gatling, harviewer) to
/// Tapedeck: fragments in request URLs, text bodies a browser stored decoded from Latin-1, an old
/// Chrome certificate error's name, and the total time of an entry. Each file is imitated here in
/// the shape its tool wrote it, cut down to the fields that matter.
@Suite("Cassettes: HAR reading fixes (URL fragments, Latin-1 text by size, certificate error names, entry time)")
struct HARReadingFixTests {
    /// The file through both readers, which must agree.
    private func read(_ json: String, file: String = "fix.har") throws -> Cassette {
        let data = Data(json.utf8)
        let fast = try HARCodec.decode(data, file: file)
        let reference = try HARCodec.cassette(from: try HARCodec.decodeWithFoundation(data, file: file), file: file)
        #expect(fast == reference, "the fast reader and JSONDecoder read \(file) alike")
        return fast
    }

    // MARK: 1. fragments

    /// Firebug 1.12 (haralyzer's tests/data/cnn.har, entry 72): the fragment the page's script tag had.
    private let firebugFragment = #"""
    {"log":{"version":"1.1","creator":{"name":"Firebug","version":"1.12"},"pages":[],"entries":[
     {"pageref":"page_1","startedDateTime":"2015-02-21T20:15:40.316-05:00","time":15,
      "request":{"bodySize":-1,"headersSize":280,"headers":[{"value":"connect.facebook.net","name":"Host"},
        {"value":"*/*","name":"Accept"},{"value":"http://www.cnn.com/","name":"Referer"}],
       "cookies":[],"httpVersion":"HTTP/1.1","url":"http://connect.facebook.net/en_US/all.js#xfbml=1","method":"GET","queryString":[]},
      "connection":"80","timings":{"receive":10,"dns":0,"send":0,"wait":5,"blocked":0,"connect":0},
      "response":{"bodySize":52551,"headers":[{"value":"application/x-javascript; charset=utf-8","name":"Content-Type"}],
       "cookies":[],"status":200,"content":{"text":"try {window.FB || (function(window) {})(this)} catch (e) {}","size":58,
        "mimeType":"application/x-javascript; charset=utf-8"},"statusText":"OK","redirectURL":"","httpVersion":"HTTP/1.1","headersSize":462},
      "cache":{}}]}}
    """#

    @Test("a fragment another tool recorded in request.url is dropped, so the entry matches exactly what a client sends")
    func recordedFragmentIsDropped() throws {
        // Given Firebug's entry for all.js#xfbml=1
        let cassette = try read(firebugFragment, file: "cnn.har")
        let recorded = try #require(cassette.interactions.first).request
        // Then the interaction's URL is the one a client sends (no client sends a fragment)
        #expect(recorded.url.absoluteString == "http://connect.facebook.net/en_US/all.js")
        // and a live request for it matches under the exact URL rule
        let live = RecordedRequest(method: "GET", url: try #require(URL(string: "http://connect.facebook.net/en_US/all.js")))
        #expect(MatchRules(url: .exact).mismatches(live, recorded).isEmpty)
        #expect(cassette.notes.isEmpty && cassette.skipped.isEmpty)
    }

    @Test("Tapedeck's own file keeps the URL its in-process client gave, fragment included")
    func tapedeckFileKeepsItsFragment() throws {
        let own = #"""
        {"log":{"version":"1.2","creator":{"name":"tapedeck","version":"1"},"_tapedeck":{"formatVersion":1},"entries":[
         {"startedDateTime":"","time":0,"request":{"method":"GET","url":"http://a.example/page#top","headers":[],"queryString":[],
          "bodySize":0},"response":{"status":200,"headers":[],"content":{"size":2,"mimeType":"","text":"ok"}},
          "timings":{"send":0,"wait":0,"receive":0}}]}}
        """#
        let recorded = try #require(try read(own).interactions.first?.request)
        #expect(recorded.url.absoluteString == "http://a.example/page#top")
        // A fragment never decides a match, on either side, under the exact rule too.
        let live = RecordedRequest(method: "GET", url: try #require(URL(string: "http://a.example/page")))
        #expect(MatchRules(url: .exact).mismatches(live, recorded).isEmpty)
        let player = CassettePlayer(cassette: Cassette(interactions: [Interaction(index: 0, request: recorded, outcome: .response(RecordedResponse(status: 200)))]),
                                    rules: MatchRules(url: .exact))
        #expect(player.nextMatch(for: RequestSnapshot(method: .get, url: try #require(URL(string: "http://a.example/page")))) != nil)
    }

    @Test("dropping a fragment cuts at the first '#' and leaves a URL without one alone")
    func droppingFragment() {
        #expect(LenientURL.droppingFragment("http://a.example/all.js#xfbml=1") == "http://a.example/all.js")
        #expect(LenientURL.droppingFragment("http://a.example/p?q=1#a#b") == "http://a.example/p?q=1")
        #expect(LenientURL.droppingFragment("http://a.example#") == "http://a.example")
        #expect(LenientURL.droppingFragment("http://a.example/p?q=%23") == "http://a.example/p?q=%23")
    }

    // MARK: 2. text a browser decoded as Latin-1

    /// Firefox 56 (gatling har/firefox56/multipart.har, entry 1): a text/html answer without a
    /// charset echoing an uploaded GIF, stored one character per byte; `content.size` is the
    /// decoded length, Content-Length the gzip length.
    private func firefoxUploadResult(size: String, contentType: String = "text/html") -> String {
        #"""
        {"log":{"version":"1.2","creator":{"name":"Firefox","version":"56.0"},"browser":{"name":"Firefox","version":"56.0"},
         "pages":[{"startedDateTime":"2017-10-19T21:14:36.432+02:00","id":"page_2","title":"File Upload Results","pageTimings":{}}],
         "entries":[{"pageref":"page_2","startedDateTime":"2017-10-19T21:14:36.432+02:00","time":null,
          "request":{"bodySize":0,"method":"GET","url":"http://cgi-lib.berkeley.edu/ex/fup.cgi","httpVersion":"HTTP/1.1",
           "headers":[{"name":"Host","value":"cgi-lib.berkeley.edu"}],"cookies":[],"queryString":[],"headersSize":541},
          "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1",
           "headers":[{"name":"Content-Encoding","value":"gzip"},{"name":"Content-Length","value":"29"},
            {"name":"Content-Type","value":"\#(contentType)"}],
           "cookies":[],"content":{"mimeType":"\#(contentType)","size":\#(size),
            "text":"<pre>GIF89ad\u0000d\u0000\u00e6\u0000\u0000\u0000\u0018\u001e\u00a5\u00fa\u00f4=r]\u00f4#\u0014\u00a8</pre>\n"},
           "redirectURL":"","headersSize":237,"bodySize":29},
          "cache":{},"timings":{"blocked":192,"dns":0,"connect":192,"ssl":0,"send":0,"wait":209,"receive":0},
          "serverIPAddress":"128.32.236.14","connection":"80"}]}}
        """#
    }

    /// The bytes the server sent for that text: the GIF's bytes, one per character.
    private var uploadResultBytes: Data {
        var bytes = Array("<pre>GIF89ad".utf8)
        bytes += [0x00, 0x64, 0x00, 0xE6, 0x00, 0x00, 0x00, 0x18, 0x1E, 0xA5, 0xFA, 0xF4]   // d, æ, ¥, ú, ô
        bytes += Array("=r]".utf8)
        bytes += [0xF4, 0x23, 0x14, 0xA8]   // ô, #, ¨
        bytes += Array("</pre>\n".utf8)
        return Data(bytes)
    }

    @Test("Firefox's text/html without a charset whose content.size is its Latin-1 length is read as Latin-1, with a note naming the entry")
    func firefoxLatin1TextBySize() throws {
        // Given content.size 38 — the Latin-1 length (UTF-8 would be 44), Content-Length being the gzip size
        #expect(uploadResultBytes.count == 38)
        let cassette = try read(firefoxUploadResult(size: "38"), file: "multipart.har")
        // Then the body is the bytes that travelled, as content.size counts them
        let response = try #require(cassette.interactions.first?.response)
        #expect(response.body == uploadResultBytes)
        // and the load says which entry was read so, and why
        let note = try #require(cassette.notes.first)
        #expect(cassette.notes.count == 1 && note.position == 0 && note.field == "response.content.text", "\(cassette.notes)")
        #expect(note.description.contains("read as Latin-1") && note.text.contains("content.size records 38 bytes")
                && note.text.contains("44 bytes as UTF-8"), "\(note)")
    }

    @Test("Firebug's UTF-8 script stored as mojibake (C2 A0 read as 'Â' and a no-break space) gets its original bytes back")
    func firebugMojibakeBySize() throws {
        // Given harviewer's testLoad3.har entry 3 (Firebug 1.8): application/javascript, no charset,
        // Content-Length and content.size the wire length, the text one character per byte
        let script = #"i.test(\"\u00c2\u00a0\")&&(j=/^[\\s\\xA0]+/)"#   // as JSON text
        let wire = Data(#"i.test(""#.utf8) + Data([0xC2, 0xA0]) + Data(#"")&&(j=/^[\s\xA0]+/)"#.utf8)
        let json = #"""
        {"log":{"version":"1.1","creator":{"name":"Firebug","version":"1.8"},"browser":{"name":"Firefox","version":"5.0"},"pages":[],
         "entries":[{"pageref":"page_21034","startedDateTime":"2011-07-05T09:44:29.688+02:00","time":246,
          "request":{"method":"GET","url":"http://www.softwareishard.com/har/viewer/scripts/jquery.js","httpVersion":"HTTP/1.1",
           "cookies":[],"headers":[{"name":"Host","value":"www.softwareishard.com"},{"name":"Accept-Charset","value":"ISO-8859-1,utf-8;q=0.7,*;q=0.7"}],
           "queryString":[],"headersSize":571,"bodySize":-1},
          "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],
           "headers":[{"name":"Accept-Ranges","value":"bytes"},{"name":"Content-Length","value":"\#(wire.count)"},
            {"name":"Content-Type","value":"application/javascript"}],
           "content":{"mimeType":"application/javascript","size":\#(wire.count),"text":"\#(script)"},
           "redirectURL":"","headersSize":359,"bodySize":\#(wire.count)},
          "cache":{},"timings":{"dns":0,"connect":0,"blocked":1,"send":0,"wait":141,"receive":104},
          "serverIPAddress":"88.146.119.165","connection":"80"}]}}
        """#
        let cassette = try read(json, file: "testLoad3.har")
        let response = try #require(cassette.interactions.first?.response)
        // Then the body is the original bytes (C2 A0), not C3 82 C2 A0, and as long as Content-Length says
        #expect(response.body == wire)
        #expect(response.body.count == Int(response.headers.value(for: "Content-Length") ?? "") ?? -1)
        #expect(cassette.notes.count == 1 && cassette.notes.first?.text.contains("content.size") == true, "\(cassette.notes)")
    }

    @Test("an uncompressed body's Content-Length settles it too when content.size is absent")
    func contentLengthSettlesWithoutSize() throws {
        let json = #"""
        {"log":{"version":"1.2","creator":{"name":"Firefox","version":"56.0"},"entries":[
         {"startedDateTime":"2017-10-19T21:14:36.432+02:00","time":5,"request":{"method":"GET","url":"http://c.example/t","headers":[]},
          "response":{"status":200,"headers":[{"name":"Content-Length","value":"5"},{"name":"Content-Type","value":"text/plain"}],
           "content":{"mimeType":"text/plain","size":-1,"text":"caf\u00e9!"}}}]}}
        """#
        let cassette = try read(json)
        #expect(cassette.interactions.first?.response?.body == Data([0x63, 0x61, 0x66, 0xE9, 0x21]))
        #expect(cassette.notes.first?.text.contains("the Content-Length header records 5 bytes") == true, "\(cassette.notes)")
    }

    @Test("nothing changes when the sizes agree with UTF-8, are absent or -1, count compressed bytes, or a charset settles it")
    func sizesThatDoNotPointToLatin1() throws {
        let utf8 = Data(String(String.UnicodeScalarView(uploadResultBytes.map { Unicode.Scalar($0) })).utf8)
        #expect(utf8.count == 44)
        // The size agrees with UTF-8: UTF-8, as before, without a note.
        let agrees = try read(firefoxUploadResult(size: "44"))
        #expect(agrees.interactions.first?.response?.body == utf8 && agrees.notes.isEmpty, "\(agrees.notes)")
        // No size (-1, absent): UTF-8 for a text type, and the gzip Content-Length (29) is not a size of the text.
        for size in ["-1", "0", "null"] {
            let none = try read(firefoxUploadResult(size: size))
            #expect(none.interactions.first?.response?.body == utf8 && none.notes.isEmpty, "size \(size): \(none.notes)")
        }
        // A charset that settles it wins over the sizes.
        let declared = try read(firefoxUploadResult(size: "38", contentType: "text/html; charset=utf-8"))
        #expect(declared.interactions.first?.response?.body == utf8 && declared.notes.isEmpty)
        // A size matching neither length: the existing rules, unchanged.
        let neither = try read(firefoxUploadResult(size: "40"))
        #expect(neither.interactions.first?.response?.body == utf8 && neither.notes.isEmpty)
    }

    // MARK: 3. failure names

    @Test("Chrome 51's net::ERR_INSECURE_RESPONSE (a certificate error) replays as serverCertificateUntrusted")
    func insecureResponseIsACertificateError() throws {
        // Given harviewer's issue-49/chrome51.har: expired.badssl.com, status 0 with `_error`
        let json = #"""
        {"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":[
         {"startedDateTime":"2016-06-21T09:17:27.146Z","time":0,
          "request":{"method":"GET","url":"https://expired.badssl.com/style.css","httpVersion":"unknown","headers":[],"queryString":[],
           "cookies":[],"headersSize":-1,"bodySize":0},
          "response":{"status":0,"statusText":"","httpVersion":"unknown","headers":[],"cookies":[],
           "content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0,
           "_error":"net::ERR_INSECURE_RESPONSE"},
          "cache":{},"timings":{"blocked":-1,"dns":-1,"connect":-1,"send":0,"wait":0,"receive":0,"ssl":-1}}]}}
        """#
        let outcome = try #require(try read(json, file: "chrome51.har").interactions.first?.outcome)
        guard case let .failure(failure) = outcome else {
            Issue.record("a status 0 with _error is a recorded failure, not \(outcome)")
            return
        }
        #expect(failure.code == URLError.Code.serverCertificateUntrusted.rawValue && failure.message == "net::ERR_INSECURE_RESPONSE")
    }

    @Test("a request body's encoding Tapedeck does not read (another tool's own value) keeps the entry: the text as it stands, with a note")
    func unknownRequestEncoding() throws {
        let file = #"""
        {"log":{"version":"1.2","creator":{"name":"SomeTool","version":"3"},"entries":[
         {"startedDateTime":"2026-01-01T00:00:00.000Z","time":1,
          "request":{"method":"POST","url":"http://a.test/form","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],
           "postData":{"mimeType":"text/plain","text":"hello","encoding":"utf-16"},"headersSize":-1,"bodySize":5},
          "response":{"status":204,"statusText":"","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"content":{"size":0,"mimeType":""},
           "redirectURL":"","headersSize":-1,"bodySize":0},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}
        """#
        let cassette = try read(file)
        #expect(cassette.skipped.isEmpty)
        #expect(cassette.interactions.first?.request.body == Data("hello".utf8))
        #expect(cassette.notes.contains { $0.description.contains("'utf-16'") }, "\(cassette.notes)")
    }

    @Test("other Chrome and Firefox error names map to the URLError a URLSession client sees")
    func otherErrorNames() {
        let expected: [(String, URLError.Code)] = [
            ("net::ERR_CERT_AUTHORITY_INVALID", .serverCertificateUntrusted),
            ("net::ERR_SSL_PINNED_KEY_NOT_IN_CERT_CHAIN", .serverCertificateUntrusted),
            ("MOZILLA_PKIX_ERROR_SELF_SIGNED_CERT", .serverCertificateUntrusted),
            ("SSL_ERROR_BAD_CERT_DOMAIN", .serverCertificateUntrusted),
            ("SEC_ERROR_EXPIRED_CERTIFICATE", .serverCertificateUntrusted),
            ("net::ERR_SSL_PROTOCOL_ERROR", .secureConnectionFailed),
            ("net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH", .secureConnectionFailed),
            ("NS_ERROR_NET_INADEQUATE_SECURITY", .secureConnectionFailed),
            ("net::ERR_SSL_CLIENT_AUTH_CERT_NEEDED", .clientCertificateRequired),
            ("net::ERR_BAD_SSL_CLIENT_AUTH_CERT", .clientCertificateRejected),
            ("net::ERR_DNS_TIMED_OUT", .cannotFindHost),
            ("NS_ERROR_UNKNOWN_PROXY_HOST", .cannotFindHost),
            ("net::ERR_ADDRESS_UNREACHABLE", .cannotConnectToHost),
            ("net::ERR_PROXY_CONNECTION_FAILED", .cannotConnectToHost),
            ("net::ERR_TUNNEL_CONNECTION_FAILED", .cannotConnectToHost),
            ("NS_ERROR_PROXY_CONNECTION_REFUSED", .cannotConnectToHost),
            ("NS_ERROR_NET_EMPTY_RESPONSE", .networkConnectionLost),
            ("net::ERR_INVALID_CHUNKED_ENCODING", .badServerResponse),
            ("NS_ERROR_CORRUPTED_CONTENT", .badServerResponse),
            ("net::ERR_INTERNET_DISCONNECTED", .notConnectedToInternet),
            ("net::ERR_BLOCKED_BY_CLIENT", .unknown),
        ]
        for (text, code) in expected {
            #expect(ForeignFailure.code(for: text) == code, "\(text)")
        }
    }

    // MARK: 4. an entry's total time

    @Test("an entry's recorded total is its HAR time, blocked and dns included (Charles: 1047, not the 485 the replayed phases add up to)")
    func recordedTimeIsTheEntrysTime() throws {
        // Given Charles 4.2's charles42/form.har entry 0: 562 ms of DNS, which no replayed phase keeps
        let json = #"""
        {"log":{"version":"1.2","creator":{"name":"Charles Proxy","version":"4.2"},"entries":[
         {"startedDateTime":"2017-10-19T21:07:32.789+02:00","time":1047,
          "request":{"method":"GET","url":"http://cgi-lib.berkeley.edu/ex/simple-form.html","httpVersion":"HTTP/1.1","cookies":[],
           "headers":[{"name":"Host","value":"cgi-lib.berkeley.edu"}],"queryString":[],"headersSize":374,"bodySize":0},
          "response":{"_charlesStatus":"COMPLETE","status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],
           "headers":[{"name":"Server","value":"Apache/2.4.7 (Ubuntu)"}],
           "content":{"size":2,"compression":0,"mimeType":"text/html","text":"ok"},"redirectURL":null,"headersSize":208,"bodySize":2},
          "serverIPAddress":"128.32.236.14","cache":{},
          "timings":{"dns":562,"connect":292,"ssl":-1,"send":3,"wait":189,"receive":1}}]}}
        """#
        let cassette = try read(json, file: "form.har")
        // The interaction keeps only the phases a replay re-enacts: connect 292 + send 3 + wait 189 + receive 1
        let phases = try #require(cassette.interactions.first?.timings)
        #expect(((phases.connect ?? .zero) + phases.send + phases.wait + phases.receive) == .milliseconds(485))
        // Then the file's total is the entry's time, which inspect shows
        #expect(HARCodec.recordedTimes(of: cassette, json: Data(json.utf8)) == [1047])
        // A text that is not the cassette's gives nothing rather than wrong rows.
        #expect(HARCodec.recordedTimes(of: cassette, json: Data(#"{"log":{"entries":[]}}"#.utf8)).isEmpty)
        #expect(HARCodec.recordedTimes(of: cassette, json: Data(json.utf8) + Data("x".utf8)).isEmpty, "not JSON: not scanned")
    }

    @Test("without a time (Firefox 56 writes null) the total is the sum of the phases that apply; skipped entries keep the rows aligned")
    func recordedTimeWithoutATime() throws {
        // Given Firefox 56's gatling multipart.har: entry 0 with its time, a WebSocket upgrade (skipped), and
        // the upload's answer with "time": null
        let json = #"""
        {"log":{"version":"1.2","creator":{"name":"Firefox","version":"56.0"},"entries":[
         {"startedDateTime":"2017-10-19T21:14:28.107+02:00","time":576,
          "request":{"bodySize":0,"method":"GET","url":"http://cgi-lib.berkeley.edu/ex/fup.html","headers":[],"headersSize":374},
          "response":{"status":200,"statusText":"OK","headers":[],"content":{"mimeType":"text/html","size":2,"text":"ok"},"bodySize":2},
          "cache":{},"timings":{"blocked":193,"dns":1,"connect":192,"ssl":0,"send":0,"wait":190,"receive":0}},
         {"startedDateTime":"2017-10-19T21:14:30.000+02:00","time":20,
          "request":{"bodySize":0,"method":"GET","url":"http://cgi-lib.berkeley.edu/socket","headers":[],"headersSize":300},
          "response":{"status":101,"statusText":"Switching Protocols","headers":[],"content":{"mimeType":"","size":0},"bodySize":0},
          "cache":{},"timings":{"blocked":0,"dns":0,"connect":0,"ssl":0,"send":0,"wait":20,"receive":0}},
         {"startedDateTime":"2017-10-19T21:14:36.432+02:00","time":null,
          "request":{"bodySize":0,"method":"GET","url":"http://cgi-lib.berkeley.edu/ex/fup.cgi","headers":[],"headersSize":541},
          "response":{"status":200,"statusText":"OK","headers":[],"content":{"mimeType":"text/html","size":2,"text":"ok"},"bodySize":2},
          "cache":{},"timings":{"blocked":192,"dns":0,"connect":192,"ssl":0,"send":0,"wait":209,"receive":0}}]}}
        """#
        let cassette = try read(json, file: "multipart.har")
        #expect(cassette.skipped.map(\.position) == [1])
        // Then entry 0 shows its time, entry 2 blocked 192 + connect 192 + wait 209 (ssl is part of connect)
        #expect(HARCodec.recordedTimes(of: cassette, json: Data(json.utf8)) == [576, 593])
    }

    @Test("bodies the writer did not capture (content.size but no text) are one note for the file, counting them; HEAD, 204 and 304 are none")
    func uncapturedBodiesNoted() throws {
        func entry(_ method: String, _ path: String, status: Int, size: Int) -> String {
            #"{"startedDateTime":"2026-11-27T03:00:00Z","time":1,"request":{"method":"\#(method)","url":"http://site.test\#(path)","headers":[],"#
                + #""queryString":[],"bodySize":0},"response":{"status":\#(status),"headers":[],"content":{"size":\#(size),"mimeType":"image/png"}},"#
                + #""timings":{"send":0,"wait":1,"receive":0}}"#
        }
        let entries = [entry("GET", "/a.png", status: 200, size: 275), entry("GET", "/b.png", status: 200, size: 90),
                       entry("HEAD", "/c.png", status: 200, size: 90), entry("GET", "/d.png", status: 304, size: 90),
                       entry("GET", "/e.png", status: 200, size: 0), entry("GET", "/f.png", status: 200, size: 12)]
        let cassette = try read(#"{"log":{"version":"1.2","creator":{"name":"Playwright","version":"1.65"},"entries":["# + entries.joined(separator: ",") + "]}}")
        #expect(cassette.interactions.count == 6)
        #expect(cassette.notes.count == 1, "\(cassette.notes)")
        let note = try #require(cassette.notes.first)
        #expect(note.position == 0 && note.field == "response.content")
        #expect(note.text.contains("did not capture it") && note.text.contains("275 bytes") && note.text.hasSuffix("so do 2 more entries of this file"), "\(note)")
    }

    @Test("a request body the writer kept as empty text beside a bodySize (Playwright's embedded binary upload): a note says no body rule can match it")
    func uncapturedRequestBodyNoted() throws {
        let entry = #"{"startedDateTime":"2026-11-27T03:00:00Z","time":1,"request":{"method":"POST","url":"http://site.test/upload","headers":[],"#
            + #""queryString":[],"postData":{"mimeType":"application/octet-stream","text":""},"bodySize":2048},"response":{"status":201,"#
            + #""headers":[],"content":{"size":0,"mimeType":"text/plain"}},"timings":{"send":0,"wait":1,"receive":0}}"#
        let cassette = try read(#"{"log":{"version":"1.2","creator":{"name":"Playwright","version":"1.65"},"entries":["# + entry + "]}}")
        #expect(cassette.interactions.count == 1)
        #expect(cassette.notes.count == 1 && cassette.notes.first?.field == "request.postData", "\(cassette.notes)")
        #expect(cassette.notes.first?.text.contains("bodySize says 2048") == true && cassette.notes.first?.text.contains("--match-body") == true)
    }

    @Test("WebPageTest's announcement of a pushed resource (status -2, `_was_pushed`, no response) is left out: the request gets the pushed 200; an aborted request (-2, not pushed) stays a failure")
    func pushAnnouncementsLeftOut() throws {
        func entry(_ path: String, status: Int, pushed: String, headers: String = "[]", text: String = "") -> String {
            #"{"startedDateTime":"2026-11-28T10:00:00Z","time":0,"_was_pushed":\#(pushed),"_responseCode":\#(status),"#
                + #""request":{"method":"GET","url":"https://site.test\#(path)","headers":[],"queryString":[],"bodySize":0},"#
                + #""response":{"status":\#(status),"headers":\#(headers),"content":{"size":\#(text.utf8.count),"mimeType":"text/css","text":"\#(text)"}},"#
                + #""timings":{"send":0,"wait":0,"receive":0}}"#
        }
        let css = #"[{"name":"Content-Type","value":"text/css"}]"#
        let entries = [entry("/a.css", status: -2, pushed: "1"), entry("/b.css", status: -2, pushed: "\"1\""),
                       entry("/a.css", status: 200, pushed: "1", headers: css, text: "a{}"), entry("/b.css", status: 200, pushed: "true", headers: css, text: "b{}"),
                       entry("/c.css", status: -2, pushed: "0")]
        let cassette = try read(#"{"log":{"version":"1.2","creator":{"name":"WebPagetest","version":"3.0"},"entries":["# + entries.joined(separator: ",") + "]}}")
        #expect(cassette.skipped.map(\.position) == [0, 1], "\(cassette.skipped)")
        #expect(cassette.skipped.first?.description.contains("push") == true)
        let kept = cassette.interactions.map { ($0.request.url.path, $0.response?.status) }
        #expect(kept.map(\.0) == ["/a.css", "/b.css", "/c.css"] && kept.map(\.1) == [200, 200, nil], "\(kept)")
    }
}
