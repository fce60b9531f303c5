import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// `tapedeck cassette validate` and `redact` on bodies under content codings: a compressed upload
/// is checked and redacted decoded; a body it cannot decode is named, never called clean.
@Suite("Cassettes: validate and redact look inside coded bodies")
struct ValidateCodingTests {
    private func exchange(_ index: Int, request: RecordedRequest, response: RecordedResponse = RecordedResponse(status: 204)) -> Interaction {
        Interaction(index: index, request: request, outcome: .response(response))
    }

    @Test("a gzipped upload holding a password: validate finds it (1), redact replaces it inside the gzip, validate then passes (0)")
    func gzippedUploadFoundAndRedacted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given a cassette another tool wrote with a gzipped login unredacted
        let body = try Zlib.compress(Data(#"{"user":"bob","password":"hunter22secret"}"#.utf8), format: .gzip)
        let login = RecordedRequest(method: "POST", url: URL(string: "http://api.test/login")!,
                                    headers: [HeaderField("Content-Type", "application/json"), HeaderField("Content-Encoding", "gzip")], body: body)
        let file = directory.file("upload.har")
        try CassetteFile.write(Cassette(interactions: [exchange(0, request: login)]), to: file)
        // When validated, then redacted
        let found = try runTapedeck(["cassette", "validate", file.path])
        #expect(found.status == 1 && found.output.contains("request.body (decoded gzip) field 'password'"), "\(found.output)")
        let redact = try runTapedeck(["cassette", "redact", file.path])
        #expect(redact.status == 0 && redact.output.contains("redacted 1 of 1"), "\(redact.output)")
        // Then the stored body is gzip holding the placeholder, and validate passes
        let stored = try #require(try CassetteFile.read(file).interactions.first?.request.body)
        #expect(String(decoding: try ContentCoding.decode(stored, contentEncoding: "gzip"), as: UTF8.self) == #"{"user":"bob","password":"REDACTED"}"#)
        #expect(try runTapedeck(["cassette", "validate", file.path]).status == 0)
    }

    @Test("a body under a coding Tapedeck cannot decode: validate warns naming the entry and does not say ok (0); --strict counts it (1)")
    func unknownCodingWarned() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given a cassette whose second entry's response is coded gzip then compress
        let plain = exchange(0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/a")!))
        let odd = exchange(1, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/b")!), response: RecordedResponse(
            status: 200, headers: [HeaderField("Content-Encoding", "gzip, compress")], body: Data([0x1F, 0x9D, 0x90, 0x7B, 0x22])))
        let file = directory.file("odd.har")
        try CassetteFile.write(Cassette(interactions: [plain, odd]), to: file)
        // When validated
        let run = try runTapedeck(["cassette", "validate", file.path])
        // Then the entry is named with why, and the cassette is not called clean
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        #expect(run.errors.contains("warning:") && run.errors.contains("entry 1 (response.body)") && run.errors.contains("'compress'"), "\(run.errors)")
        #expect(!run.output.contains("ok,"), "\(run.output)")
        #expect(run.output.contains("1 body could not be checked"), "\(run.output)")
        #expect(try runTapedeck(["cassette", "validate", "--strict", file.path]).status == 1)
    }

    @Test("a file whose every entry was skipped is not called ok: validate says nothing replays and exits 2")
    func everyEntrySkipped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("broken.har")
        try Data("""
        {"log": {"version": "1.2", "creator": {"name": "SomeTool", "version": "1"}, "entries": [
          {"startedDateTime": "2024-01-01T00:00:00.000Z", "time": 1,
           "request": {"method": "GET", "url": "https://api.test/x", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                       "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                        "content": {"mimeType": "text/plain", "size": 3, "encoding": "base64", "text": "%%%"},
                        "redirectURL": "", "headersSize": -1, "bodySize": 3},
           "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
        ]}}
        """.utf8).write(to: file)
        let run = try runTapedeck(["cassette", "validate", file.path])
        #expect(run.status == 2, "\(run.output)\(run.errors)")
        #expect(run.errors.contains("every entry (1) was skipped") && !run.output.contains("ok,"), "\(run.output)\(run.errors)")
    }
}
