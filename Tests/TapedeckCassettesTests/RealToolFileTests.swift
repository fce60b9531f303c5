import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// Shapes found in real projects' cassettes by a probe of public repositories: vcrpy header
/// values stored as `!!binary` (botocore's), go-vcr forms copied from a GET's query (Scaleway's
/// recorder), DVR responses with no status (its early files), and R's vcr before 1.0
/// (`status.status_code`, the status line among the headers). Each is written inline, in its
/// tool's form, in a few entries of our own.
@Suite("Cassettes: shapes met in real projects' files")
struct RealToolFileTests {
    private func read(_ text: String, file: String) throws -> ForeignCassette.Reading {
        try ForeignCassette.load(Data(text.utf8), file: file)
    }

    @Test("vcrpy header values stored as !!binary bytes read as their text, in the request and the response, and in the HAR's postData")
    func vcrpyBinaryHeaderValues() throws {
        let reading = try read("""
        interactions:
        - request:
            body: '{"prompt": "hi"}'
            headers:
              Content-Type:
              - !!binary |
                YXBwbGljYXRpb24vanNvbg==
              X-Attempt:
              - !!binary |
                YXR0ZW1wdD0x
              X-Plain:
              - as written
            method: POST
            uri: https://runtime.example.test/model/m1/converse
          response:
            body:
              string: '{"ok": true}'
            headers:
              Content-Type:
              - !!binary |
                YXBwbGljYXRpb24vanNvbg==
              X-Latin:
              - !!binary |
                Y2Fm6Q==
            status:
              code: 200
              message: OK
        version: 1
        """, file: "bedrock.yaml")
        #expect(reading.format == .vcrpy)
        #expect(reading.cassette.skipped.isEmpty, "\(reading.cassette.skipped)")
        let entry = try #require(reading.cassette.interactions.first)
        #expect(entry.request.headers.value(for: "Content-Type") == "application/json")
        #expect(entry.request.headers.value(for: "X-Attempt") == "attempt=1")
        #expect(entry.request.headers.value(for: "X-Plain") == "as written")
        let response = try #require(entry.response)
        #expect(response.headers.value(for: "Content-Type") == "application/json")
        #expect(response.headers.value(for: "X-Latin") == "café", "bytes that are not UTF-8 read as ISO-8859-1")
        let har = String(decoding: HARCodec.encode(reading.cassette), as: UTF8.self)
        #expect(har.contains(#""mimeType":"application/json""#) || har.contains(#""mimeType" : "application/json""#), "\(har)")
        #expect(!har.contains("YXBwbGljYXRpb24vanNvbg"), "no header or mimeType is left as base64")
    }

    @Test("go-vcr's form is no body for a GET, a content_length of 0, or a form that is the URL's query; a POST form with no body still is")
    func goVCRFormFromQuery() throws {
        let reading = try read("""
        ---
        version: 2
        interactions:
        - id: 0
          request:
            content_length: 0
            host: api.example.test
            form:
              sort:
              - name_asc
            headers:
              User-Agent:
              - some-sdk/1.0
            url: https://api.example.test/v1/things?sort=name_asc
            method: GET
          response:
            body: '{"things":[]}'
            headers:
              Content-Type:
              - application/json
            status: 200 OK
            code: 200
        - id: 1
          request:
            content_length: 0
            form:
              tag:
              - a b
            url: https://api.example.test/v1/things/7?tag=a+b
            method: DELETE
          response:
            body: ''
            status: 204 No Content
            code: 204
        - id: 2
          request:
            form:
              page:
              - "2"
              q:
              - x/y
            url: https://api.example.test/v1/search?q=x%2Fy&page=2
            method: POST
          response:
            body: '[]'
            status: 200 OK
            code: 200
        - id: 3
          request:
            body: ''
            form:
              name:
              - tape
            headers:
              Content-Type:
              - application/x-www-form-urlencoded
            url: https://api.example.test/v1/things
            method: POST
          response:
            body: '{"id":8}'
            status: 201 Created
            code: 201
        """, file: "scaleway-like.cassette.yaml")
        #expect(reading.format == .goVCR)
        let entries = reading.cassette.interactions
        #expect(entries.count == 4, "\(reading.cassette.skipped)")
        guard entries.count == 4 else { return }
        #expect(entries[0].request.body == nil, "a GET's form is its query, not a body")
        #expect(entries[1].request.body == nil, "content_length 0: nothing was sent")
        #expect(entries[2].request.body == nil, "the form holds just the URL's query items")
        #expect(entries[3].request.body == Data("name=tape".utf8), "a POST form with an empty body is still its body")
    }

    @Test("a DVR response with no status and no headers imports as 200, noted")
    func dvrWithoutStatus() throws {
        let body = Data(#"{"hello":"world"}"#.utf8).base64EncodedString()
        let reading = try read("""
        {
          "name" : "-[SomeTests testFetch]",
          "interactions" : [
            {
              "recorded_at" : 1500000000.25,
              "request" : {
                "method" : "GET",
                "url" : "https:\\/\\/service.example.test\\/hello",
                "headers" : { "Accept" : "application\\/json" }
              },
              "response" : {
                "url" : "https:\\/\\/service.example.test\\/hello",
                "body" : "\(body)"
              }
            }
          ]
        }
        """, file: "SomeTests-testFetch.json")
        #expect(reading.format == .dvr)
        #expect(reading.cassette.skipped.isEmpty, "\(reading.cassette.skipped)")
        let response = try #require(reading.cassette.interactions.first?.response)
        #expect(response.status == 200)
        #expect(response.headers.isEmpty)
        #expect(response.body == Data(#"{"hello":"world"}"#.utf8))
        let note = try #require(reading.cassette.notes.first { $0.field == "response.status" })
        #expect(note.text.contains("200") && note.text.contains("no status"), "\(note)")
    }

    @Test("R's vcr before 1.0: status from status.status_code, reason from message, string headers read, its status-line header left out")
    func rVCRZero() throws {
        let reading = try read("""
        http_interactions:
        - request:
            method: get
            uri: https://data.example.test/rest/records/12?offset=1
            body:
              encoding: ''
              string: ''
            headers:
              User-Agent: libcurl/7.64.1 r-curl/4.3 crul/0.9.0
              Accept: application/json, text/xml, application/xml, */*
          response:
            status:
              status_code: '204'
              message: No Content
              explanation: Request fulfilled, nothing follows
            headers:
              status: HTTP/1.1 204 No Content
              date: Tue, 05 May 2020 18:50:04 GMT
              access-control-allow-headers: X-Requested-With, Content-Type, Accept, Origin,
                Authorization
              x-count: 3
            body:
              encoding: UTF-8
              file: no
              string: ''
          recorded_at: 2020-05-05 18:50:04 GMT
          recorded_with: vcr/0.5.4, webmockr/0.6.2
        - request:
            method: get
            uri: https://data.example.test/rest/records/13
            body:
              encoding: ''
              string: ''
            headers:
              User-Agent: libcurl/7.64.1 r-curl/4.3 crul/0.9.0
          response:
            status:
              status_code: 200
              message: OK
              explanation: Request fulfilled, document follows
            headers:
              status: 'HTTP/2 200 '
              content-type: application/json
            body:
              encoding: UTF-8
              file: no
              string: '[{"id":13}]'
          recorded_at: 2020-05-05 18:50:05 GMT
          recorded_with: vcr/0.5.4, webmockr/0.6.2
        """, file: "records.yml")
        #expect(reading.format == .vcr)
        #expect(reading.cassette.skipped.isEmpty, "\(reading.cassette.skipped)")
        let entries = reading.cassette.interactions
        #expect(entries.count == 2)
        guard entries.count == 2 else { return }
        #expect(entries[0].request.method == "GET")
        #expect(entries[0].request.headers.value(for: "Accept") == "application/json, text/xml, application/xml, */*")
        let first = try #require(entries[0].response)
        #expect(first.status == 204 && first.statusText == "No Content")
        #expect(first.headers.value(for: "status") == nil, "the status line is no header field")
        #expect(first.headers.value(for: "access-control-allow-headers") == "X-Requested-With, Content-Type, Accept, Origin, Authorization")
        #expect(first.headers.value(for: "x-count") == "3")
        #expect(entries[0].startedDateTime.hasPrefix("2020-05-05T18:50:04"), "\(entries[0].startedDateTime)")
        let second = try #require(entries[1].response)
        #expect(second.status == 200 && second.statusText == "OK")
        #expect(second.headers.map(\.name) == ["content-type"])
        #expect(second.body == Data(#"[{"id":13}]"#.utf8))
    }

    @Test("a status that holds something unreadable is named in the error")
    func unreadableStatusSaysWhatItHeld() throws {
        let reading = try read("""
        http_interactions:
        - request:
            method: get
            uri: https://data.example.test/a
          response:
            status:
              message: OK
              explanation: Request fulfilled
            body:
              string: ''
        - request:
            method: get
            uri: https://data.example.test/b
          response:
            status:
              code: fine
            body:
              string: ''
        - request:
            method: get
            uri: https://data.example.test/c
          response:
            body:
              string: ''
        """, file: "odd.yml")
        let reasons = reading.cassette.skipped.map(\.error.reason)
        #expect(reasons.count == 3, "\(reasons)")
        guard reasons.count == 3 else { return }
        #expect(reasons[0].contains("no status code") && reasons[0].contains("'message', 'explanation'"), "\(reasons[0])")
        #expect(reasons[1].contains("no status code") && reasons[1].contains("'fine'"), "\(reasons[1])")
        #expect(reasons[2] == "the response has no status code", "\(reasons[2])")
    }
}
