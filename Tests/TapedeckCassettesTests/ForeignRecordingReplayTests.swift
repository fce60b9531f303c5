import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// Cassettes that vcrpy, Betamax, Ruby's VCR and go-vcr wrote (byte for byte, recorded from one
/// local server by one traffic script: fixtures/interop/foreign/README.md), and one in DVR's
/// shape, imported and replayed through a real URLSession: every client of theirs gets what the
/// server sent, identical requests get their answers in recorded order, and gzip, binary and
/// ISO-8859-1 bodies survive each tool's way of storing them.
@Suite("Cassettes: real vcrpy, Betamax, VCR and go-vcr recordings imported and replayed")
struct ForeignRecordingReplayTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var format: ForeignCassette.Format
        var interactions: Int
        /// Whether the PNG is stored lossily (Betamax without exact bytes): its answer is not compared.
        var lossyImage = false
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "vcrpy-requests.yaml", format: .vcrpy, interactions: 11),
        Case(file: "vcrpy-requests-decoded.yaml", format: .vcrpy, interactions: 11),
        Case(file: "vcrpy-requests.json", format: .vcrpy, interactions: 8),
        Case(file: "vcrpy-httpx.yaml", format: .vcrpy, interactions: 10),
        Case(file: "betamax.json", format: .vcr, interactions: 11, lossyImage: true),
        Case(file: "betamax-exact.json", format: .vcr, interactions: 11),
        Case(file: "vcr-ruby.yml", format: .vcr, interactions: 10),
        Case(file: "vcr-ruby-exact.yml", format: .vcr, interactions: 10),
        Case(file: "vcr-ruby.json", format: .vcr, interactions: 10),
        Case(file: "vcr-ruby.zz", format: .vcr, interactions: 10),
        Case(file: "go-vcr.yaml", format: .goVCR, interactions: 11),
        Case(file: "dvr.json", format: .dvr, interactions: 5),
    ]

    /// What the upstream answered each path with (fixtures/interop/foreign/upstream.py).
    static let answers: [String: (status: Int, body: Data)] = [
        "/users/1": (200, Data(#"{"id": 1, "name": "Ada"}"#.utf8)),
        "/gzip": (200, Data(#"{"compressed": true, "message": "hello gzip"}"#.utf8)),
        "/login": (200, Data(#"{"token": "abc123"}"#.utf8)),
        "/missing": (404, Data("Not Found\n".utf8)),
        "/latin1": (200, Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0x63, 0x72, 0xE8, 0x6D, 0x65, 0x0A])),
        "/redirect": (302, Data()),
        "/form": (200, Data(#"{"a": "1", "b": "two"}"#.utf8)),
    ]

    private func cassette(_ test: Case) throws -> Cassette {
        let url = fixturesDirectory.appendingPathComponent("interop/foreign/\(test.file)")
        let (cassette, format) = try ForeignCassette.readDetecting(CassetteFile.jsonText(of: url), file: test.file)
        #expect(format == test.format)
        #expect(cassette.skipped.isEmpty, "\(cassette.skipped)")
        #expect(cassette.interactions.count == test.interactions)
        return cassette
    }

    @Test("every interaction replays in order through a real URLSession with the status and body the server sent", arguments: cases)
    func replays(_ test: Case) throws {
        let cassette = try cassette(test)
        let replay = SequentialReplay(cassette)
        var counts: [Int] = []
        for interaction in cassette.interactions {
            let path = interaction.request.url.path
            let result = try replay.send(interaction.request)
            #expect(result.error == nil, "\(test.file) \(path): \(String(describing: result.error))")
            let status = result.response?.statusCode
            switch path {
            case "/counter":
                #expect(status == 200)
                let object = try JSONSerialization.jsonObject(with: result.body) as? [String: Int]
                counts.append(object?["count"] ?? -1)
            case "/image.png":
                #expect(status == 200 && result.response?.value(forHTTPHeaderField: "Content-Type") == "image/png")
                if !test.lossyImage {
                    #expect(result.body.count == 209 && result.body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(test.file): \(result.body.count) bytes")
                }
            default:
                let expected = try #require(Self.answers[path], "\(test.file): unexpected path \(path)")
                #expect(status == expected.status, "\(test.file) \(path)")
                if test.format == .dvr, let object = try? JSONSerialization.jsonObject(with: expected.body) as? NSDictionary {
                    // DVR keeps a JSON body as its value: the same JSON comes back, spaced as JSONSerialization spaces it.
                    #expect((try? JSONSerialization.jsonObject(with: result.body) as? NSDictionary) == object, "\(test.file) \(path)")
                } else {
                    #expect(result.body == expected.body, "\(test.file) \(path): \(String(decoding: result.body, as: UTF8.self))")
                }
                if path == "/redirect" { #expect(result.response?.value(forHTTPHeaderField: "Location") == "/users/1") }
            }
        }
        #expect(counts == [1, 2], "\(test.file): identical requests get their answers in recorded order")
    }

    @Test("what each tool recorded of the request is kept: method, body, and the headers it wrote, in its order")
    func requestsKept() throws {
        let vcr = try cassette(Self.cases[6])
        let login = try #require(vcr.interactions.first { $0.request.url.path == "/login" })
        #expect(login.request.method == "POST", "VCR writes 'post'")
        #expect(login.request.body == Data(#"{"username":"ada","password":"lovelace"}"#.utf8))
        #expect(login.request.headers.first?.name == "Content-Type", "\(login.request.headers)")
        #expect(login.startedDateTime.hasSuffix("Z") && login.startedDateTime.hasPrefix("20"))

        let goVCR = try cassette(Self.cases[10])
        let form = try #require(goVCR.interactions.first { $0.request.url.path == "/form" })
        #expect(form.request.body == Data("a=1&b=two".utf8))
        #expect(goVCR.interactions.first?.request.headers.map(\.name) == ["Accept", "Authorization"])

        let httpx = try cassette(Self.cases[3])
        let gzip = try #require(httpx.interactions.first { $0.request.url.path == "/gzip" }?.response)
        #expect(gzip.bodyForm == .wire && Zlib.looksLikeGzip(gzip.body), "httpx's recording keeps the wire bytes")
        let requests = try cassette(Self.cases[0])
        let decoded = try #require(requests.interactions.first { $0.request.url.path == "/gzip" }?.response)
        #expect(decoded.bodyForm == .decoded && decoded.headers.value(for: "Content-Encoding") == "gzip",
                "vcrpy with requests stored the body decoded under the gzip header")
    }
}
