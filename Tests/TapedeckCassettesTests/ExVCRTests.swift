import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ExVCR (Elixir) cassettes, written here in the shapes its adapters record: hackney (headers as a
/// mapping, a gzip body as an Erlang binary term), httpc (the status line as a list, headers as
/// pairs), Finch and ibrowse errors (`type: error` with Erlang's reason).
@Suite("Cassettes: ExVCR cassettes")
struct ExVCRTests {
    /// `body` as ExVCR keeps a body that is not text: `term_to_binary` (131, 109, a 32-bit length,
    /// the bytes), in base64.
    private static func erlangTerm(_ body: Data) -> String {
        let length = UInt32(body.count)
        var term = Data([131, 109, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)])
        term.append(body)
        return term.base64EncodedString()
    }

    @Test("read as ExVCR replays them: text and binary bodies, httpc's status list and header pairs, transport errors by their Erlang reason")
    func readsAndReplays() throws {
        let page = Data("<html>hello exvcr</html>".utf8)
        let gzipped = try Zlib.compress(page)
        let cassette = """
        [
          {"request": {"body": "", "headers": [], "method": "get", "options": [], "request_body": "", "url": "http://ex.test/gzip"},
           "response": {"binary": true, "body": "\(Self.erlangTerm(gzipped))",
                        "headers": {"Content-Encoding": "gzip", "Content-Type": "text/html", "Content-Length": "\(gzipped.count)"},
                        "status_code": 200, "type": "ok"}},
          {"request": {"body": "", "headers": [["accept", "application/json"]], "method": "get",
                       "options": {"httpc_options": [], "http_options": []}, "url": "http://ex.test/items?page=2"},
           "response": {"body": "{\\"items\\": []}", "headers": [["content-type", "application/json"], ["x-page", "2"]],
                        "status_code": ["HTTP/1.1", 200, "OK"], "type": "ok"}},
          {"request": {"body": "name=ada", "headers": {"Content-Type": "application/x-www-form-urlencoded"}, "method": "post",
                       "options": [], "url": "http://ex.test/users"},
           "response": {"body": "created", "headers": {}, "status_code": 201, "type": "ok"}},
          {"request": {"body": "", "headers": [], "method": "get", "options": [], "url": "http://nowhere.ex.test/"},
           "response": {"binary": false, "body": "%Mint.TransportError{reason: :nxdomain}", "headers": [], "status_code": null, "type": "error"}},
          {"request": {"body": "", "headers": [], "method": "get", "options": [], "url": "http://ex.test/slow"},
           "response": {"body": ["conn_failed", ["error", "econnrefused"]], "headers": [], "status_code": null, "type": "error"}}
        ]
        """
        let reading = try ForeignCassette.load(Data(cassette.utf8), file: "hackney_get.json")
        #expect(reading.format == .exvcr)
        let interactions = reading.cassette.interactions
        #expect(interactions.count == 5 && reading.cassette.skipped.isEmpty, "\(reading.cassette.skipped)")
        let first = try #require(interactions.first?.response)
        #expect(try ContentCoding.decode(first.body, contentEncoding: "gzip") == page && first.bodyForm == .wire)
        #expect(interactions[1].response?.statusText == "OK" && interactions[1].response?.headers.value(for: "x-page") == "2")
        #expect(interactions[1].request.headers.value(for: "accept") == "application/json")
        #expect(interactions[2].request.method == "POST" && interactions[2].request.body == Data("name=ada".utf8))
        let failures = interactions[3...].map { interaction -> Int? in
            if case let .failure(failure) = interaction.outcome { return failure.code }
            return nil
        }
        #expect(failures == [URLError.cannotFindHost.rawValue, URLError.cannotConnectToHost.rawValue])
        // Replayed through a real URLSession: the client gets the page decoded, as from the server.
        let replay = SequentialReplay(reading.cassette)
        #expect(try replay.send(RecordedRequest(method: "GET", url: URL(string: "http://ex.test/gzip")!)).body == page)
    }

    @Test("a binary body that is no Erlang binary term leaves its entry out saying so; detection needs the request's url")
    func badBinary() throws {
        let cassette = #"[{"request": {"method": "get", "url": "http://ex.test/"}, "response": {"binary": true, "body": "aGVsbG8=", "status_code": 200, "type": "ok"}}]"#
        let reading = try ForeignCassette.load(Data(cassette.utf8), file: "x.json")
        #expect(reading.cassette.skipped.first?.error.reason.contains("Erlang binary term") == true)
        #expect(ForeignCassette.detect(Data(#"[{"request": {"uri": "http://ex.test/"}, "response": {"status_code": 200}}]"#.utf8)) != .exvcr)
    }
}
