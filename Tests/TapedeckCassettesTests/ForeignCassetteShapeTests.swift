import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// The shapes other tools' cassettes take that a reader must not trip over, each written inline
/// in that tool's form: YAML tags from Python and Ruby, the legacy layouts of vcrpy, VCR and
/// Betamax, DVR's bodies keyed on an exact `Content-Type`, go-vcr's durations, and files that are
/// not cassettes at all (fixtures/interop/foreign/README.md has the real tools' recordings).
@Suite("Cassettes: reading other tools' cassette shapes")
struct ForeignCassetteShapeTests {
    private func read(_ text: String, format: ForeignCassette.Format? = nil) throws -> (cassette: Cassette, format: ForeignCassette.Format) {
        try ForeignCassette.readDetecting(Data(text.utf8), file: "test.yaml", format: format)
    }

    private func only(_ text: String) throws -> Interaction {
        let (cassette, _) = try read(text)
        #expect(cassette.skipped.isEmpty, "\(cassette.skipped)")
        return try #require(cassette.interactions.first)
    }

    @Test("Ruby's !binary and YAML's !!binary are base64 bytes; Python 2's !!python/unicode is text")
    func binaryTags() throws {
        let ruby = try only("""
        http_interactions:
        - request: {method: get, uri: 'http://h.test/a', body: {encoding: UTF-8, string: ''}, headers: {}}
          response:
            status: {code: 200, message: OK}
            headers: {Content-Type: [application/octet-stream]}
            body:
              encoding: ASCII-8BIT
              string: !binary |-
                3q2+7w==
          recorded_at: Tue, 01 Nov 2011 04:58:44 GMT
        recorded_with: VCR 2.0.0
        """)
        #expect(ruby.response?.body == Data([0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(ruby.request.method == "GET", "VCR writes methods in lower case")
        #expect(ruby.startedDateTime == "2011-11-01T04:58:44.000Z")

        let python = try only("""
        interactions:
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/b'}
          response:
            body: {string: !!python/unicode "caf\\xE9"}
            headers: {}
            status: {code: 200, message: OK}
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/c'}
          response:
            body: {string: !!binary "AAEC"}
            headers: {}
            status: {code: 200, message: OK}
        version: 1
        """)
        #expect(python.response?.body == Data("café".utf8))
        let (both, format) = try read("""
        interactions:
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/c'}
          response: {body: {string: !!binary "AAEC"}, headers: {}, status: {code: 200, message: OK}}
        version: 1
        """)
        #expect(format == .vcrpy)
        #expect(both.interactions.first?.response?.body == Data([0, 1, 2]))
    }

    @Test("vcrpy's streamed request body (a BytesIO's state) and the tornado stub's header tuples are read")
    func vcrpyPythonObjects() throws {
        let interaction = try only("""
        interactions:
        - request:
            body: !!python/object/new:_io.BytesIO
              state: !!python/tuple
              - !!binary |
                eyJhIjogMX0=
              - 0
              - null
            headers:
            - !!python/tuple [Content-Type, [application/json]]
            - !!python/tuple [X-Trace, [one, two]]
            method: POST
            uri: http://h.test/upload
          response:
            body: {string: ok}
            headers: [!!python/tuple [Content-Type, [text/plain]]]
            status: {code: 201, message: Created}
        version: 1
        """)
        #expect(interaction.request.body == Data(#"{"a": 1}"#.utf8))
        #expect(interaction.request.headers == [HeaderField("Content-Type", "application/json"), HeaderField("X-Trace", "one"), HeaderField("X-Trace", "two")])
        #expect(interaction.response?.status == 201 && interaction.response?.statusText == "Created")
        #expect(interaction.response?.headers.value(for: "content-type") == "text/plain")
    }

    @Test("vcrpy before 1.0: a bare list, the URL in pieces, headers as 'name: value' lines")
    func vcrpyLegacy() throws {
        let (cassette, format) = try read("""
        - request:
            body: null
            headers: {accept: '*/*'}
            host: api.test
            method: GET
            path: /ip?x=1
            port: 8080
            protocol: https
          response:
            body: {string: "{}"}
            headers: ["content-type: application/json\\r\\n", "x-one: 1\\r\\n"]
            status: {code: 200, message: OK}
        """)
        #expect(format == .vcrpy)
        let interaction = try #require(cassette.interactions.first)
        #expect(interaction.request.url.absoluteString == "https://api.test:8080/ip?x=1")
        #expect(interaction.response?.headers == [HeaderField("content-type", "application/json"), HeaderField("x-one", "1")])
    }

    @Test("VCR 1.x (a bare list of Ruby structs, methods as symbols) and Betamax's status_code are read")
    func legacyVCRAndBetamax() throws {
        let (old, format) = try read("""
        ---
        - !ruby/struct:VCR::HTTPInteraction
          request: !ruby/struct:VCR::Request
            method: :post
            uri: http://example.test:80/form
            body: a=1
            headers:
          response: !ruby/struct:VCR::Response
            status: !ruby/struct:VCR::ResponseStatus
              code: 200
              message: OK
            headers:
              content-type:
              - text/html
            body: <p>hi</p>
            http_version: "1.1"
        """)
        #expect(format == .vcr)
        let interaction = try #require(old.interactions.first)
        #expect(interaction.request.method == "POST" && interaction.request.body == Data("a=1".utf8))
        #expect(interaction.response?.body == Data("<p>hi</p>".utf8))

        let betamax = try only("""
        {"http_interactions": [{"request": {"body": "", "headers": {"Accept": "*/*"}, "method": "GET", "uri": "https://api.test/emojis"},
          "response": {"body": {"string": "{}", "encoding": "utf-8"}, "headers": {"content-type": "application/json", "status": "200 OK"},
                       "url": "https://api.test/emojis", "status_code": 200},
          "recorded_at": "2013-12-31T01:05:54"}], "recorded_with": "betamax/{version}"}
        """)
        #expect(betamax.response?.status == 200)
        #expect(betamax.startedDateTime == "2013-12-31T01:05:54.000Z", "Betamax's zone-less time is UTC")
    }

    @Test("VCR/Betamax bodies: base64_string wins for a response, a request's non-empty string wins; ISO-8859-1 text goes back to its bytes; a hand-edited base64 is noted")
    func vcrBodies() throws {
        let (cassette, _) = try read("""
        {"http_interactions": [
          {"request": {"method": "post", "uri": "http://h.test/1", "headers": {},
                       "body": {"encoding": "utf-8", "string": "name=ada", "base64_string": "bmFtZT1hZGE="}},
           "response": {"status": {"code": 200, "message": "OK"}, "headers": {"Content-Type": ["text/plain; charset=iso-8859-1"]},
                        "body": {"encoding": "ISO-8859-1", "string": "café"}}},
          {"request": {"method": "get", "uri": "http://h.test/2", "headers": {}, "body": {"encoding": "utf-8", "string": ""}},
           "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
                        "body": {"encoding": "ASCII-8BIT", "string": "ignored", "base64_string": "AP8=\\n"}}},
          {"request": {"method": "get", "uri": "http://h.test/3", "headers": {}, "body": {"encoding": "utf-8", "string": ""}},
           "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"encoding": null, "base64_string": "image content!"}}}
        ], "recorded_with": "VCR 6.2.0"}
        """)
        let bodies = cassette.interactions.map { $0.response?.body }
        #expect(cassette.interactions[0].request.body == Data("name=ada".utf8))
        #expect(bodies == [Data([0x63, 0x61, 0x66, 0xE9]), Data([0x00, 0xFF]), Data("image content!".utf8)])
        #expect(cassette.interactions[1].request.body == nil, "an empty request body is none")
        #expect(cassette.notes.map(\.position) == [2] && cassette.notes.first?.field == "response.body.base64_string", "\(cassette.notes)")
    }

    @Test("DVR: a JSON body stored as its value comes back as JSON text, keys in order; other bodies are base64 unless the exact Content-Type says text/")
    func dvrBodies() throws {
        let (cassette, format) = try read("""
        {"name": "example", "interactions": [
          {"recorded_at": 1438048018.5,
           "request": {"method": "GET", "url": "https://api.test/json", "headers": {"Accept": "application/json"}},
           "response": {"status": 200, "url": "https://api.test/json", "headers": {"Content-Type": "application/json"},
                        "body": {"b": [1, 2.5, true, null], "a": "x\\"y"}}},
          {"recorded_at": 1438048019,
           "request": {"method": "GET", "url": "https://api.test/text", "headers": {}},
           "response": {"status": 200, "url": "https://api.test/text", "headers": {"Content-Type": "text/plain"}, "body": "aGVsbG8="}},
          {"recorded_at": 1438048020,
           "request": {"method": "GET", "url": "https://api.test/lower", "headers": {}},
           "response": {"status": 200, "url": "https://api.test/lower", "headers": {"content-type": "text/plain"}, "body": "aGVsbG8="}},
          {"recorded_at": 1438048021,
           "request": {"method": "POST", "url": "https://api.test/img", "headers": {"Content-Type": "image/png"}, "body": "iVBORw=="},
           "response": {"status": 204, "url": "https://api.test/img", "headers": {}}}
        ]}
        """)
        #expect(format == .dvr)
        let bodies = cassette.interactions.map { $0.response?.body }
        #expect(bodies[0] == Data(#"{"b":[1,2.5,true,null],"a":"x\"y"}"#.utf8))
        #expect(bodies[1] == Data("aGVsbG8=".utf8), "text/* is stored as the text itself")
        #expect(bodies[2] == Data("hello".utf8), "DVR did not see 'content-type', so it wrote base64")
        #expect(cassette.interactions[3].request.body == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(cassette.interactions[0].startedDateTime == "2015-07-28T01:46:58.500Z")
    }

    @Test("go-vcr: code over status text, the reason phrase kept, durations as Go text or nanoseconds, and form fields when the body is empty")
    func goVCR() throws {
        let (cassette, format) = try read("""
        ---
        version: 2
        interactions:
            - id: 0
              request: {body: "", form: {q: [tape, deck], n: ["1"]}, headers: {Content-Type: [application/x-www-form-urlencoded]}, url: "https://api.test/search", method: POST}
              response: {body: "[]", headers: {}, status: 200 OK, code: 200, duration: 1m2.5s}
            - id: 1
              request: {body: "", form: {}, headers: {}, url: "https://api.test/slow", method: GET}
              response: {body: "", headers: {}, status: 418 I'm a teapot, code: 418, duration: 250000000}
            - id: 2
              request: {body: "", form: {}, headers: {}, url: "https://api.test/old", method: GET}
              response: {body: "", headers: {}, status: 204 No Content, code: 204, duration: ""}
        """)
        #expect(format == .goVCR)
        #expect(cassette.interactions[0].request.body == Data("q=tape&q=deck&n=1".utf8))
        #expect(cassette.interactions[0].timings?.wait == .milliseconds(62_500))
        #expect(cassette.interactions[1].response?.statusText == "I'm a teapot")
        #expect(cassette.interactions[1].timings?.wait == .milliseconds(250))
        #expect(cassette.interactions[2].timings == nil)
    }

    @Test("a gzip body kept as bytes stays the wire form; one stored decoded under the same header is marked decoded")
    func compressedBodies() throws {
        let json = Data(#"{"gzipped": true}"#.utf8)
        let gzip = try Zlib.compress(json, format: .gzip)
        let (cassette, _) = try read("""
        interactions:
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/raw'}
          response:
            body: {string: !!binary "\(gzip.base64EncodedString())"}
            headers: {Content-Encoding: [gzip], Content-Length: ['\(gzip.count)']}
            status: {code: 200, message: OK}
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/decoded'}
          response:
            body: {string: '{"gzipped": true}'}
            headers: {Content-Encoding: [gzip], Content-Length: ['\(gzip.count)']}
            status: {code: 200, message: OK}
        version: 1
        """)
        #expect(cassette.interactions[0].response?.bodyForm == .wire && cassette.interactions[0].response?.body == gzip)
        #expect(cassette.interactions[1].response?.bodyForm == .decoded && cassette.interactions[1].response?.body == json)
    }

    @Test("entries that cannot replay are skipped with the reason and the line; the rest are read in order")
    func skippedEntries() throws {
        let (cassette, _) = try read("""
        interactions:
        - request: {body: null, headers: {}, method: GET, uri: 'not a url'}
          response: {body: {string: ''}, headers: {}, status: {code: 200, message: OK}}
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/continue'}
          response: {body: {string: ''}, headers: {}, status: {code: 100, message: Continue}}
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/fine'}
          response: {body: {string: 'ok'}, headers: {}, status: {code: 200, message: OK}}
        - request: {body: null, headers: {}, method: GET, uri: 'http://h.test/no-status'}
          response: {body: {string: ''}, headers: {}}
        version: 1
        """)
        #expect(cassette.interactions.map(\.request.url.path) == ["/fine"])
        #expect(cassette.interactions.map(\.index) == [0])
        #expect(cassette.skipped.map(\.position) == [0, 1, 3])
        #expect(cassette.skipped[0].error.place == "entry 0 (request.uri), line 2", "\(cassette.skipped[0].error)")
        #expect(cassette.skipped[1].error.reason.contains("interim"))
        #expect(cassette.skipped[2].error.reason.contains("no status code"))
    }

    @Test("bad files: YAML that does not parse names its line; a file of no known format says what was looked for; a HAR file is pointed at convert; an empty file is an empty cassette")
    func badFiles() throws {
        #expect {
            try read("interactions:\n- request: {method: GET\n  response: [\n")
        } throws: { error in
            let error = error as? CassetteError
            return error?.kind == .json && error?.place.hasPrefix("line ") == true && error?.reason.contains("not valid JSON or YAML") == true
        }
        #expect {
            try read(#"{"stubs": []}"#)
        } throws: { error in
            (error as? CassetteError)?.reason.contains("'interactions', 'http_interactions'") == true
        }
        #expect {
            try read(#"{"log": {"version": "1.2", "entries": []}}"#)
        } throws: { error in
            (error as? CassetteError)?.hint.contains("HAR file already") == true
        }
        #expect(ForeignCassette.detect(Data(#"{"log": {"entries": []}}"#.utf8)) == nil)
        // A billion laughs: eleven levels of ten aliases each stand for 10¹¹ strings.
        var laughs = #"l0: &l0 ["x","x","x","x","x","x","x","x","x","x"]"# + "\n"
        for level in 1...11 {
            laughs += "l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ",") + "]\n"
        }
        laughs += "interactions: *l11\n"
        #expect {
            try read(laughs)
        } throws: { error in
            (error as? CassetteError)?.reason.contains("aliases") == true
        }
        let (empty, format) = try read("\n")
        #expect(empty.interactions.isEmpty && format == .vcr)
    }

    @Test("hostile and odd values: an instant past year 9999, a method that is no token, a URL's secrets kept out of the reason, a bare empty list")
    func oddValues() throws {
        let (cassette, _) = try read("""
        {"interactions": [
          {"recorded_at": 1e300, "request": {"method": "GET", "url": "https://api.test/a", "headers": {}},
           "response": {"status": 200, "url": "https://api.test/a", "headers": {"Content-Type": "text/plain"}, "body": "ok"}},
          {"recorded_at": 1, "request": {"method": "GE(T", "url": "https://api.test/b", "headers": {}},
           "response": {"status": 200, "url": "https://api.test/b", "headers": {}}},
          {"recorded_at": 1, "request": {"method": "GET", "url": "api.test/c?api_key=SUPERSECRET", "headers": {}},
           "response": {"status": 200, "url": "api.test/c", "headers": {}}}
        ]}
        """)
        #expect(cassette.interactions.count == 1 && cassette.interactions[0].startedDateTime == "1970-01-01T00:00:00.000Z")
        #expect(cassette.skipped.map(\.position) == [1, 2])
        #expect(!cassette.skipped[1].description.contains("SUPERSECRET") && !cassette.skipped[1].error.reason.contains("SUPERSECRET"),
                "\(cassette.skipped[1])")
        let (empty, _) = try read("[]")
        #expect(empty.interactions.isEmpty)
    }

    @Test("a format named that the file is not in is an error saying which it looks like, not an empty cassette")
    func wrongFormatNamed() throws {
        let vcrpy = "interactions:\n- request: {body: null, headers: {}, method: GET, uri: 'http://h.test/'}\n  response: {body: {string: ''}, headers: {}, status: {code: 200, message: OK}}\nversion: 1\n"
        #expect {
            try read(vcrpy, format: .vcr)
        } throws: { error in
            let error = error as? CassetteError
            return error?.reason.contains("no 'http_interactions' list") == true && error?.hint.contains("--from vcrpy") == true
        }
        #expect {
            try read(#"{"log": {"version": "1.2", "entries": []}}"#, format: .vcrpy)
        } throws: { error in
            (error as? CassetteError)?.hint.contains("HAR file already") == true
        }
    }

    @Test("a body kept as text in the charset it was decoded with goes back to that charset's bytes; one Tapedeck cannot encode is noted")
    func declaredCharsets() throws {
        let (cassette, _) = try read("""
        {"http_interactions": [
          {"request": {"method": "get", "uri": "http://h.test/1", "headers": {}, "body": {"encoding": "utf-8", "string": ""}},
           "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"encoding": "windows-1252", "string": "€5 café"}}},
          {"request": {"method": "get", "uri": "http://h.test/2", "headers": {}, "body": {"encoding": "utf-8", "string": ""}},
           "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"encoding": "x-mac-klingon", "string": "qapla’"}}},
          {"request": {"method": "get", "uri": "http://h.test/3", "headers": {}, "body": {"encoding": "utf-8", "string": ""}},
           "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"encoding": "ASCII-8BIT", "string": "né"}}}
        ], "recorded_with": "betamax/0.9.0"}
        """)
        #expect(cassette.interactions[0].response?.body == Data([0x80, 0x35, 0x20, 0x63, 0x61, 0x66, 0xE9]))
        #expect(cassette.interactions[1].response?.body == Data("qapla’".utf8))
        #expect(cassette.interactions[2].response?.body == Data("né".utf8), "Ruby's binary strings are their bytes")
        #expect(cassette.notes.map(\.position) == [1] && cassette.notes.first?.text.contains("x-mac-klingon") == true, "\(cassette.notes)")
    }

    @Test("YAML merge keys bring their pairs in (a hand-written cassette sharing headers); Betamax for Java's `recorded` is the start")
    func mergeKeysAndJavaBetamax() throws {
        let interaction = try only("""
        defaults: &json
          Content-Type: [application/json]
          X-Shared: ['1']
        interactions:
        - request: {body: null, headers: {Accept: ['*/*']}, method: GET, uri: 'http://h.test/m'}
          response:
            body: {string: '{}'}
            headers:
              <<: *json
              X-Shared: ['2']
            status: {code: 200, message: OK}
        version: 1
        """)
        #expect(interaction.response?.headers == [HeaderField("X-Shared", "2"), HeaderField("Content-Type", "application/json")])

        let java = try only("""
        !tape
        name: java
        interactions:
        - recorded: 2011-08-23T22:41:40.000Z
          request: {method: GET, uri: 'http://h.test/j', headers: {Accept: text/plain}}
          response: {status: 200, headers: {Content-Type: text/plain}, body: hi}
        """)
        #expect(java.startedDateTime == "2011-08-23T22:41:40.000Z" && java.response?.body == Data("hi".utf8))
    }
}
