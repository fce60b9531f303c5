import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP

/// `ForeignCassette.export`: a cassette written as vcrpy's and VCR's files reads back (through the
/// importer, itself checked against the real tools' files) as the same requests and answers, in
/// order; what those tools cannot replay is left out and said. tools/check-foreign-export replays
/// the exports with vcrpy and VCR themselves.
@Suite("Cassettes: exporting to vcrpy and VCR")
struct ForeignExportTests {
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")!

    private func cassette() throws -> Cassette {
        func entry(_ index: Int, _ method: String, _ url: String, body: Data? = nil, requestHeaders: [HeaderField] = [],
                   _ outcome: Interaction.Outcome) -> Interaction {
            Interaction(index: index, startedDateTime: "2026-11-28T03:07:41.000Z",
                        request: RecordedRequest(method: method, url: URL(string: url)!, headers: requestHeaders, body: body), outcome: outcome)
        }
        let json = Data(#"{"items": ["tape", "deck"]}"#.utf8)
        let gzip = try Zlib.compress(json, format: .gzip)
        var cut = RecordedResponse(status: 200, headers: [HeaderField("Content-Length", "100")], body: Data(count: 40))
        cut.interruption = RecordedFailure(code: URLError.networkConnectionLost.rawValue, message: "reset by peer")
        // A text with everything a YAML scalar must escape.
        let awkward = "line one\nline \"two\": *alias &anchor # not a comment\t\u{1}\u{7F} café ✓ 🎞 \\"
        return Cassette(interactions: [
            entry(0, "GET", "http://api.test/items?page=1&q=a%20b", requestHeaders: [HeaderField("Accept", "application/json"),
                                                                                    HeaderField("X-Trace", "1"), HeaderField("X-Trace", "2")],
                  .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Type", "application/json")], body: json))),
            entry(1, "GET", "http://api.test/items?page=1&q=a%20b",
                  .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Encoding", "gzip"), HeaderField("Content-Length", String(gzip.count))],
                                             body: gzip, bodyForm: .wire))),
            entry(2, "POST", "http://api.test/upload", body: Self.png, requestHeaders: [HeaderField("Content-Type", "image/png")],
                  .response(RecordedResponse(status: 201, statusText: "Stored", headers: [HeaderField("Content-Type", "image/png")], body: Self.png))),
            entry(3, "GET", "http://api.test/awkward", .response(RecordedResponse(status: 503, body: Data(awkward.utf8)))),
            entry(4, "GET", "http://api.test/down", .failure(RecordedFailure(code: URLError.cannotConnectToHost.rawValue, message: "refused"))),
            entry(5, "GET", "http://api.test/cut", .response(cut)),
            entry(6, "DELETE", "http://api.test/items/1",
                  .response(RecordedResponse(status: 204, headers: [HeaderField("Content-Encoding", "gzip"), HeaderField("Content-Length", "0")],
                                             body: Data(), bodyForm: .decoded))),
        ])
    }

    @Test("exported and read back, every interaction that replays is there in order: method, URL, request body, status, headers, body", arguments: ForeignCassette.exportFormats)
    func roundTrip(_ format: ForeignCassette.Format) throws {
        let original = try cassette()
        let export = try ForeignCassette.export(original, as: format)
        #expect(export.written == 5)
        #expect(export.leftOut.count == 2 && export.leftOut[0].hasPrefix("entry 4 [GET http://api.test/down]: a transport failure")
                && export.leftOut[1].contains("broke off"), "\(export.leftOut)")
        let (back, detected) = try ForeignCassette.readDetecting(export.data, file: "export")
        #expect(detected == format)
        #expect(back.skipped.isEmpty && back.notes.isEmpty, "\(back.skipped) \(back.notes)")
        let kept = original.interactions.filter { [0, 1, 2, 3, 6].contains($0.index) }
        #expect(back.interactions.map(\.request.method) == kept.map(\.request.method))
        #expect(back.interactions.map(\.request.url) == kept.map(\.request.url))
        #expect(back.interactions.map(\.request.body) == kept.map(\.request.body))
        #expect(back.interactions[0].request.headers == kept[0].request.headers, "repeated fields keep their order")
        #expect(back.interactions.map { $0.response?.status } == [200, 200, 201, 503, 204])
        #expect(back.interactions[2].response?.statusText == "Stored" && back.interactions[3].response?.statusText == "Service Unavailable")
        #expect(back.interactions[2].response?.body == Self.png)
        #expect(back.interactions[3].response?.body == kept[3].response?.body, "escapes read back as the same text")
        // A compressed body: VCR keeps the wire bytes under their coding; vcrpy gets it decoded, without it.
        let compressed = try #require(back.interactions[1].response)
        if format == .vcr {
            #expect(compressed.body == kept[1].response?.body && compressed.headers.value(for: "Content-Encoding") == "gzip")
        } else {
            #expect(compressed.body == Data(#"{"items": ["tape", "deck"]}"#.utf8) && compressed.headers.value(for: "Content-Encoding") == nil)
            #expect(compressed.headers.value(for: "Content-Length") == String(compressed.body.count))
        }
        // A body stored decoded under a coding loses the coding in both.
        #expect(back.interactions[4].response?.headers.value(for: "Content-Encoding") == nil)
    }

    @Test("the file is plain ASCII YAML, every string quoted (nothing in a header or body can change what the file says)")
    func safeText() throws {
        for format in ForeignCassette.exportFormats {
            let text = String(decoding: try ForeignCassette.export(try cassette(), as: format).data, as: UTF8.self)
            #expect(text.unicodeScalars.allSatisfy { $0.isASCII }, "\(format)")
            #expect(text.contains(#"\u00E9"#) && text.contains(#"\U0001F39E"#))
        }
    }

    @Test("formats it only reads are refused with what it writes")
    func readOnlyFormats() throws {
        #expect {
            try ForeignCassette.export(try cassette(), as: .dvr)
        } throws: { error in
            (error as? CassetteError)?.hint.contains("vcrpy or vcr") == true
        }
    }

    @Test("keys YAML would read as numbers or booleans are quoted; one header spelt in two cases is one key; VCR's URIs are in WebMock's form")
    func keysAndURIs() throws {
        let awkward = Cassette(interactions: [Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://h.test/p?b=1&a=2")!),
            outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("-1", "a"), HeaderField(".5", "b"), HeaderField("on", "c"),
                                                                       HeaderField("Set-Cookie", "x=1"), HeaderField("set-cookie", "y=2")], body: Data("ok".utf8))))])
        for format in ForeignCassette.exportFormats {
            let text = String(decoding: try ForeignCassette.export(awkward, as: format).data, as: UTF8.self)
            #expect(text.contains(#""-1":"#) && text.contains(#"".5":"#) && text.contains(#""on":"#), "\(text)")
            #expect(text.contains("Set-Cookie:\n") && !text.contains("set-cookie:"), "\(text)")
            let back = try ForeignCassette.read(Data(text.utf8), file: "x")
            #expect(back.interactions.first?.response?.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["x=1", "y=2"])
        }
        // What WebMock's normalize_uri gave for these (Ruby, WebMock 3.18): VCR matches a recorded uri against it.
        let seen: [(String, String)] = [
            ("http://h.test/p?b=1&a=2", "http://h.test/p?a=2&b=1"), ("http://h.test/p?a=b+c", "http://h.test/p?a=b%20c"),
            ("http://h.test/p?a=%2F", "http://h.test/p?a=/"), ("http://h.test/p?q=a%20b&b=%C3%A9", "http://h.test/p?b=%C3%A9&q=a%20b"),
            ("http://h.test/p?x=1&x=2", "http://h.test/p?x=2"), ("http://h.test/p?page=1&q=swift", "http://h.test/p?page=1&q=swift"),
            ("http://h.test/p", "http://h.test/p"),
            ("http://h.test/p?cursor=abc%3D%3D&x=1", "http://h.test/p?cursor=abc==&x=1"), ("http://h.test/p?q=semi;colon", "http://h.test/p?q=semi%3Bcolon"),
            ("http://h.test/p?next=/page?n%3D2", "http://h.test/p?next=/page?n=2"),
            ("http://h.test/p?ids[]=b&ids[]=a&ids[]=c", "http://h.test/p?ids%5B%5D=a&ids%5B%5D=b&ids%5B%5D=c"),
            ("http://h.test/p?a[c]=1&a[b]=2", "http://h.test/p?a%5Bb%5D=2&a%5Bc%5D=1"), ("http://h.test/p?a=%7E%21%40%23%24", "http://h.test/p?a=~!@%23$"),
            ("http://h.test/p?flag&y=a%2bb", "http://h.test/p?flag&y=a%2Bb"), ("http://h.test/p?B=1&a=2&_=3", "http://h.test/p?B=1&_=3&a=2"),
            // Then VCR's own URI (Ruby's) for a standard port: dropped, and `'` escaped.
            ("http://h.test:80/p?s='x'", "http://h.test/p?s=%27x%27"), ("http://h.test:8080/p?s='x'", "http://h.test:8080/p?s='x'"),
        ]
        for (sent, normalised) in seen {
            #expect(ForeignCassette.webMockForm(URL(string: sent)!) == normalised, "\(sent)")
        }
    }
}
