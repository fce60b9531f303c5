import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// Files found in other tools' own repositories that a reader met in the wild: VCR cassettes
/// written by Ruby 1.9 (every key a symbol) and by VCR 0.x (`Net::HTTP` objects), a VCR entry
/// whose URI is a regular expression, WireMock mappings with comments (Jackson reads them), empty
/// files, and documents people mistake for cassettes. Each is written inline, in its tool's form.
@Suite("Cassettes: old and odd files of other tools")
struct OldToolFileTests {
    private func read(_ text: String, file: String = "old.yml") throws -> ForeignCassette.Reading {
        try ForeignCassette.load(Data(text.utf8), file: file)
    }

    @Test("VCR 1.x under Ruby 1.9 (`:request:`, `:uri:`, `:method: :get`) reads as VCR 1.x does; header names keep their spelling")
    func rubySymbolKeys() throws {
        let reading = try read("""
        ---
        - !ruby/struct:VCR::HTTPInteraction
          :request: !ruby/struct:VCR::Request
            :method: :get
            :uri: http://example.test:80/page
            :body:
            :headers:
          :response: !ruby/struct:VCR::Response
            :status: !ruby/struct:VCR::ResponseStatus
              :code: 404
              :message: Not Found
            :headers:
              content-type:
              - text/html; charset=UTF-8
              :weird:
              - kept out
            :body: "<p>gone</p>"
            :http_version: "1.1"
        """)
        #expect(reading.format == .vcr)
        #expect(reading.cassette.skipped.isEmpty, "\(reading.cassette.skipped)")
        let entry = try #require(reading.cassette.interactions.first)
        #expect(entry.request.method == "GET" && entry.request.url.absoluteString == "http://example.test:80/page")
        let response = try #require(entry.response)
        #expect(response.status == 404 && response.statusText == "Not Found")
        #expect(response.body == Data("<p>gone</p>".utf8))
        #expect(response.headers.map(\.name) == ["content-type"], "a header name is the server's, not a symbol: \(response.headers)")
    }

    @Test("VCR 0.x's recorded Net::HTTP responses read as method, URI and answer")
    func vcrZero() throws {
        let reading = try read("""
        ---
        - !ruby/struct:VCR::RecordedResponse
          method: :post
          uri: http://example.test:80/form
          response: !ruby/object:Net::HTTPCreated
            body: made it
            body_exist: true
            code: "201"
            header:
              content-type:
              - text/plain
            http_version: "1.1"
            message: Created
            read: true
            socket:
        """)
        #expect(reading.format == .vcr)
        let entry = try #require(reading.cassette.interactions.first)
        #expect(entry.request.method == "POST" && entry.request.url.path == "/form" && entry.request.body == nil)
        #expect(entry.response?.status == 201 && entry.response?.statusText == "Created")
        #expect(entry.response?.headers.value(for: "Content-Type") == "text/plain")
        #expect(entry.response?.body == Data("made it".utf8))
    }

    @Test("a VCR entry whose URI is a Ruby regular expression is left out saying so, its method spelled as a method")
    func regexURI() throws {
        let reading = try read("""
        ---
        - !ruby/struct:VCR::HTTPInteraction
          :request: !ruby/struct:VCR::Request
            :method: :get
            :uri: !ruby/regexp /example\\.test\\/reg/
          :response: !ruby/struct:VCR::Response
            :status: !ruby/struct:VCR::ResponseStatus
              :code: 200
            :body: hi
        """)
        let skipped = try #require(reading.cassette.skipped.first)
        #expect(reading.cassette.interactions.isEmpty)
        #expect(skipped.error.reason.contains("regular expression"), "\(skipped)")
        #expect(skipped.method == "GET")
    }

    @Test("WireMock mappings may hold // and /* */ comments, as WireMock's JSON reader allows; a slash inside a string stays")
    func wireMockComments() throws {
        let reading = try ForeignCassette.load(Data("""
        {
            // a stub written by hand
            "request": { "method": "GET", "url": "/a//b" /* two slashes */ },
            "response": { "status": 200, "body": "see http://x.test/*not a comment*/" }
        }
        """.utf8), file: "mapping.json")
        #expect(reading.format == .wiremock)
        let entry = try #require(reading.cassette.interactions.first)
        #expect(entry.request.url.path == "/a//b")
        #expect(entry.response?.body == Data("see http://x.test/*not a comment*/".utf8))
        // A comment that never ends is no JSON: said, not read.
        #expect(throws: CassetteError.self) { try ForeignCassette.load(Data(#"{"request": {"url": "/"} /* open"#.utf8), file: "m.json") }
    }

    @Test("an empty .yml file is VCR's empty cassette, to import and to replay; an empty .json file is refused by both")
    func emptyFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let yaml = directory.file("empty.yml")
        let json = directory.file("empty.json")
        try Data().write(to: yaml)
        try Data().write(to: json)
        #expect(try read("", file: yaml.path).cassette.interactions.isEmpty)
        let replayed = try CassetteFile.read(yaml, foreign: .convert)
        #expect(replayed.interactions.isEmpty && replayed.foreignFormat == .vcr)
        for attempt in [{ _ = try ForeignCassette.load(Data(), file: json.path) }, { _ = try CassetteFile.read(json, foreign: .convert) }] {
            do {
                try attempt()
                Issue.record("an empty .json file was read")
            } catch let error as CassetteError {
                #expect(error.reason == "the file is empty", "\(error)")
            }
        }
    }

    @Test("documents mistaken for cassettes are named with what to do: an Insomnia export, an OpenAPI file, an early Hoverfly export")
    func lookalikes() throws {
        let cases: [(String, String)] = [
            (#"{"_type": "export", "__export_format": 4, "resources": []}"#, "Insomnia export"),
            (#"{"openapi": "3.0.0", "paths": {}}"#, "OpenAPI"),
            (#"{"data": [{"requestTemplate": {"path": "/a"}, "response": {"status": 200}}]}"#, "before schema v1"),
        ]
        for (text, named) in cases {
            do {
                _ = try ForeignCassette.load(Data(text.utf8), file: "x.json")
                Issue.record("\(named) was read")
            } catch {
                #expect(error.hint.contains(named), "\(error)")
            }
        }
    }

    @Test("a JSON5 document is said to be JSON5, not a damaged file, by the HAR reader and by import; a VCRURLConnection list is named")
    func json5AndLookalikes() throws {
        let tape = "{\n    meta: {\n        host: 'https://api.test',\n        resHumanReadable: true,\n    },\n    req: {url: '/users/1', method: 'GET'},\n    res: {status: 200, body: 'hi'},\n}\n"
        do {
            _ = try HARCodec.decode(Data(tape.utf8), file: "user.json5")
            Issue.record("JSON5 read as HAR")
        } catch {
            #expect(error.hint.contains("JSON5") && error.hint.contains("Talkback"), "\(error)")
        }
        // (A Talkback tape itself imports: TalkbackTests.) A JSON5 document that does not parse:
        do {
            _ = try ForeignCassette.load(Data("{\n  // recorded\n  req: {url: 'a\n}\n".utf8), file: "tape.json5")
            Issue.record("broken JSON5 imported")
        } catch {
            #expect(error.hint.contains("JSON5"), "\(error)")
        }
        let connection = #"[{"method": "GET", "uri": "http://a.test/", "status": 200, "body": "ok"}]"#
        do {
            _ = try ForeignCassette.load(Data(connection.utf8), file: "cassette-1.json")
            Issue.record("VCRURLConnection imported")
        } catch {
            #expect(error.hint.contains("VCRURLConnection"), "\(error)")
        }
    }
}
