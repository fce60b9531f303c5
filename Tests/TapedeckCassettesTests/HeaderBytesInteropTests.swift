import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Header values are bytes, and HAR writers turn them into characters differently: Chromium (so
/// Playwright) one character per byte as windows-1252 reads them, mitmproxy as the characters the
/// UTF-8 spells. A replay must send the bytes the server sent either way.
@Suite("Cassettes: UTF-8 header values as Chromium and mitmproxy store them")
struct HeaderBytesInteropTests {
    private let fixture = fixturesDirectory.appendingPathComponent("interop/playwright-utf8-headers.har")

    private func hand(creator: String, value: String) throws -> Cassette {
        let document: [String: Any] = ["log": ["version": "1.2", "creator": ["name": creator, "version": "1"], "entries": [[
            "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1, "timings": ["send": 0, "wait": 1, "receive": 0],
            "request": ["method": "GET", "url": "http://a.test/file", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                        "cookies": [], "headersSize": -1, "bodySize": 0],
            "response": ["status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "redirectURL": "",
                         "headers": [["name": "Content-Disposition", "value": value]], "headersSize": -1, "bodySize": 0,
                         "content": ["size": 0, "mimeType": "text/plain", "text": ""]],
        ]]]]
        return try HARCodec.decode(try JSONSerialization.data(withJSONObject: document), file: "\(creator).har")
    }

    @Test("Chromium's windows-1252 reading of UTF-8 header bytes loads as the text the server sent")
    func chromiumHeaderValuesAreTheServersText() throws {
        let cassette = try CassetteFile.read(fixture)
        let headers = cassette.interactions.compactMap(\.response).map(\.headers)
        #expect(headers.compactMap { $0.value(for: "Content-Disposition") } == [#"attachment; filename="résumé ✓.txt""#])
        #expect(headers.compactMap { $0.value(for: "Location") } == ["/städte/zürich?q=ö"])
    }

    @Test("replayed through URLSession, the redirect Chromium recorded leads to the entry it followed, and the file name arrives whole")
    func redirectReplaysToItsTarget() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let copy = directory.file("utf8.har")
        try Data(contentsOf: fixture).write(to: copy)
        let tape = try Tape(cassette: copy, mode: .replayOnly, timing: .instant)
        let moved = try tape.perform(URL(string: "http://127.0.0.1:18471/moved")!)
        // (Chromium kept no body for the fetch that followed it: a 200 with none.)
        #expect(moved.response.statusCode == 200 && moved.response.url?.absoluteString == "http://127.0.0.1:18471/st%C3%A4dte/z%C3%BCrich?q=%C3%B6",
                "\(moved.response)")
        let download = try tape.perform(URL(string: "http://127.0.0.1:18471/download")!)
        #expect(download.response.value(forHTTPHeaderField: "Content-Disposition") == #"attachment; filename="résumé ✓.txt""#)
        #expect(try tape.finish().replayed == 3)
    }

    @Test("a value whose characters are the text (mitmproxy, or not UTF-8 bytes at all) is kept as written")
    func otherValuesAreKept() throws {
        // mitmproxy writes the characters themselves: a literal "Ã©" stays.
        #expect(try hand(creator: "mitmproxy", value: "x; filename=\"Ã©.txt\"").interactions[0].response?.headers
            .value(for: "Content-Disposition") == "x; filename=\"Ã©.txt\"")
        // A Latin-1 é alone is no UTF-8: kept.
        #expect(try hand(creator: "Charles Proxy", value: "x; filename=\"café.txt\"").interactions[0].response?.headers
            .value(for: "Content-Disposition") == "x; filename=\"café.txt\"")
        // The same mojibake from another browser-shaped writer is read back.
        #expect(try hand(creator: "WebInspector", value: "x; filename=\"cafÃ©.txt\"").interactions[0].response?.headers
            .value(for: "Content-Disposition") == "x; filename=\"café.txt\"")
    }
}
