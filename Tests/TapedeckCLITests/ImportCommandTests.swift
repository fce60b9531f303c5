import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

/// `tapedeck cassette import` as a process: real tools' cassettes in, a redacted HAR out that
/// `validate` passes, exit statuses for bad input, and the input never touched.
@Suite("CLI: cassette import")
struct ImportCommandTests {
    private func foreign(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/foreign/\(name)")
    }

    @Test("every real tool's recording imports with its format named; the output is redacted by default and passes validate", arguments: [
        ("vcrpy-requests.yaml", "vcrpy", 11), ("vcrpy-requests.json", "vcrpy", 8), ("vcrpy-httpx.yaml", "vcrpy", 10),
        ("betamax-exact.json", "VCR/Betamax", 11), ("vcr-ruby.yml", "VCR/Betamax", 10), ("vcr-ruby.zz", "VCR/Betamax", 10),
        ("go-vcr.yaml", "go-vcr", 11), ("dvr.json", "DVR", 5),
    ])
    func importsAndRedacts(_ file: String, _ format: String, _ count: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let input = foreign(file)
        let before = try Data(contentsOf: input)
        let output = directory.file("imported.har.gz")
        let run = try runTapedeck(["cassette", "import", input.path, output.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("\(count) entries from a \(format) cassette"), "\(run.output)")
        #expect(try Data(contentsOf: input) == before, "the input is never changed")
        let cassette = try CassetteFile.read(output)
        #expect(cassette.interactions.count == count)
        let text = try String(decoding: CassetteFile.jsonText(of: output), as: UTF8.self)
        for secret in ["secret-token", "lovelace", "abc123", "s3cr3t"] {
            #expect(!text.contains(secret), "\(file): '\(secret)' left in the imported cassette")
        }
        let validate = try runTapedeck(["cassette", "validate", output.path])
        #expect(validate.status == 0, "\(validate.output)\(validate.errors)")
    }

    @Test("--no-redact keeps the secrets; standard output gets the JSON and the summary goes to standard error")
    func noRedactToStandardOutput() throws {
        let run = try runTapedeck(["cassette", "import", "--no-redact", foreign("vcrpy-requests.yaml").path, "-"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("Bearer secret-token"))
        #expect(run.errors.contains("standard output: 11 entries from a vcrpy cassette (not redacted"), "\(run.errors)")
        let cassette = try HARCodec.decode(Data(run.output.utf8), file: "stdout")
        #expect(cassette.interactions.count == 11)
    }

    @Test("bad input: exit 2 with the file and line, a HAR pointed at convert, the input as its own output refused, an unknown --from refused; nothing is written")
    func badInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let broken = directory.file("broken.yaml")
        try Data("interactions:\n- request: {method: GET\n  response: [\n".utf8).write(to: broken)
        let output = directory.file("out.har")
        let parse = try runTapedeck(["cassette", "import", broken.path, output.path])
        #expect(parse.status == 2)
        #expect(parse.errors.contains("\(broken.path), line "), "\(parse.errors)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let har = directory.file("already.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": []}}"#.utf8).write(to: har)
        let already = try runTapedeck(["cassette", "import", har.path, output.path])
        #expect(already.status == 2 && already.errors.contains("HAR file already"), "\(already.errors)")

        let copy = directory.file("mine.yaml")
        try FileManager.default.copyItem(at: foreign("vcrpy-requests.yaml"), to: copy)
        let same = try runTapedeck(["cassette", "import", copy.path, copy.path])
        #expect(same.status == 2 && same.errors.contains("is the input itself"), "\(same.errors)")
        #expect(try Data(contentsOf: copy) == Data(contentsOf: foreign("vcrpy-requests.yaml")))

        let unknown = try runTapedeck(["cassette", "import", "--from", "mockserver", copy.path, output.path])
        #expect(unknown.status == 64 && unknown.errors.contains("vcrpy, vcr, go-vcr, dvr"), "\(unknown.errors)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("a lossy body (Betamax without exact bytes) is imported with a warning naming the entry")
    func lossyBodyWarned() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let run = try runTapedeck(["cassette", "import", foreign("betamax.json").path, directory.file("b.har").path])
        #expect(run.status == 0)
        #expect(run.errors.contains("note entry 4 (response.body.string) [GET http://127.0.0.1:"), "\(run.errors)")
        #expect(run.errors.contains("U+FFFD"))
    }

    @Test("hostile files: a duplicated key is one short line with its line number; a file none of whose entries imports writes nothing; WireMock mappings import")
    func hostileFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var big = "interactions:\n"
        for index in 0..<2_000 {
            big += "- request: {body: null, headers: {}, method: GET, uri: 'http://h.test/\(index)'}\n"
            big += "  response: {body: {string: ok}, headers: {}, status: {code: 200, message: OK}}\n"
        }
        big += "version: 1\nversion: 2\n"
        let duplicate = directory.file("dup.yaml")
        try Data(big.utf8).write(to: duplicate)
        let output = directory.file("out.har")
        let run = try runTapedeck(["cassette", "import", duplicate.path, output.path])
        #expect(run.status == 2)
        #expect(run.errors.split(separator: "\n").count == 1 && run.errors.count < 400, "\(run.errors.prefix(500))")
        #expect(run.errors.contains("line 4002") && run.errors.contains("'version' twice"), "\(run.errors)")

        let allBad = directory.file("bad.yaml")
        try Data("interactions:\n- request: {body: null, headers: {}, method: GET, uri: /relative}\n  response: {body: {string: ''}, headers: {}, status: {code: 200, message: OK}}\nversion: 1\n".utf8).write(to: allBad)
        let none = try runTapedeck(["cassette", "import", allBad.path, output.path])
        #expect(none.status == 2 && none.errors.contains("its one entry cannot be imported (above); nothing was written"), "\(none.errors)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let wiremock = directory.file("mappings.json")
        try Data(#"{"mappings": [{"request": {"method": "GET", "urlPath": "/x"}, "response": {"status": 200}}]}"#.utf8).write(to: wiremock)
        let stubs = try runTapedeck(["cassette", "import", wiremock.path, output.path])
        #expect(stubs.status == 0 && stubs.output.contains("1 entry from WireMock mappings"), "\(stubs.output)\(stubs.errors)")
        let notWireMock = try runTapedeck(["cassette", "import", "--from", "wiremock", foreign("vcrpy-requests.yaml").path, directory.file("w.har").path])
        #expect(notWireMock.status == 2 && notWireMock.errors.contains("not WireMock mappings") && notWireMock.errors.contains("--from vcrpy"), "\(notWireMock.errors)")
    }

    @Test("export: a HAR cassette as vcrpy's and VCR's YAML that import reads back whole; a failure left out with a warning; bad --to and the input as output refused")
    func export() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let har = directory.file("api.har.gz")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/a")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("one".utf8)))),
            Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/a")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("two".utf8)))),
            Interaction(index: 2, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/down")!),
                        outcome: .failure(RecordedFailure(code: -1004, message: "refused"))),
            Interaction(index: 3, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/q?api_key=REDACTED")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("three".utf8)))),
        ]), to: har)
        for (format, file) in [("vcrpy", "test_api.yaml"), ("vcr", "api.yml")] {
            let output = directory.file(file)
            let run = try runTapedeck(["cassette", "export", har.path, output.path, "--to", format])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("3 entries as a"), "\(run.output)")
            // A redacted query item never equals what the client sends: the other tool would miss it.
            #expect(run.errors.contains("1 request carries redacted query items"), "\(run.errors)")
            #expect(run.errors.contains("left out entry 2 [GET http://api.test/down]: a transport failure"), "\(run.errors)")
            let back = try ForeignCassette.read(Data(contentsOf: output), file: file)
            #expect(back.interactions.compactMap { $0.response?.body } == [Data("one".utf8), Data("two".utf8), Data("three".utf8)])
        }
        let stdout = try runTapedeck(["cassette", "export", har.path, "-", "--to", "vcrpy"])
        #expect(stdout.status == 0 && stdout.output.hasPrefix("interactions:"), "\(stdout.output.prefix(200))")
        let unknown = try runTapedeck(["cassette", "export", har.path, directory.file("x.json").path, "--to", "dvr"])
        #expect(unknown.status == 64 && unknown.errors.contains("vcrpy or vcr"), "\(unknown.errors)")
        let failures = directory.file("failures.har")
        try CassetteFile.write(Cassette(interactions: [Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/down")!),
                                                                   outcome: .failure(RecordedFailure(code: -1004, message: "refused")))]), to: failures)
        let nothing = try runTapedeck(["cassette", "export", failures.path, directory.file("none.yaml").path, "--to", "vcrpy"])
        #expect(nothing.status == 2 && nothing.errors.contains("nothing was written"), "\(nothing.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("none.yaml").path))
        let same = try runTapedeck(["cassette", "export", har.path, har.path, "--to", "vcrpy"])
        #expect(same.status == 2 && same.errors.contains("is the input itself"))
        #expect(try CassetteFile.read(har).interactions.count == 4, "the input is unchanged")
    }

    @Test("a Postman collection: its examples with an environment's and --variable's values; a bad --variable is a usage error")
    func postman() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let output = directory.file("shop.har")
        let run = try runTapedeck(["cassette", "import", foreign("postman-shop.postman_collection.json").path, output.path,
                                   "--environment", foreign("postman-shop.postman_environment.json").path, "--variable", "baseUrl=http://127.0.0.1:9000"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("6 entries from a Postman collection"), "\(run.output)")
        #expect(run.errors.contains("note: ") && run.errors.contains("1 request has no saved example response"), "\(run.errors)")
        let cassette = try CassetteFile.read(output)
        #expect(cassette.interactions.allSatisfy { $0.request.url.absoluteString.hasPrefix("http://127.0.0.1:9000/") })
        let text = try String(decoding: CassetteFile.jsonText(of: output), as: UTF8.self)
        #expect(!text.contains("lovelace") && !text.contains("abc123"), "the environment's password and the token are redacted")
        let bad = try runTapedeck(["cassette", "import", foreign("postman-shop.postman_collection.json").path, output.path, "--variable", "baseUrl"])
        #expect(bad.status == 64 && bad.errors.contains("is not NAME=VALUE"), "\(bad.errors)")
    }

    @Test("a folder (a tool's cassette library) imports file by file into a folder of .har.gz, keeping its layout; other documents are left alone; a damaged one fails the run after the rest are written")
    func folder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let library = directory.file("cassettes")
        try FileManager.default.createDirectory(at: library.appendingPathComponent("api"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: foreign("vcrpy-requests.yaml"), to: library.appendingPathComponent("test_login.yaml"))
        try FileManager.default.copyItem(at: foreign("vcr-ruby.zz"), to: library.appendingPathComponent("api/items.zz"))
        try Data(#"{"compilerOptions": {}}"#.utf8).write(to: library.appendingPathComponent("tsconfig.json"))
        let output = directory.file("har")
        let run = try runTapedeck(["cassette", "import", library.path, output.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("2 cassettes imported from \(library.path), 1 other file left alone"), "\(run.output)")
        #expect(try CassetteFile.read(output.appendingPathComponent("test_login.har.gz")).interactions.count == 11)
        #expect(try CassetteFile.read(output.appendingPathComponent("api/items.har.gz")).interactions.count == 10)

        try Data("interactions: [\n".utf8).write(to: library.appendingPathComponent("api/broken.yaml"))
        let again = try runTapedeck(["cassette", "import", library.path, directory.file("har2").path])
        #expect(again.status == 2)
        #expect(again.output.contains("2 cassettes imported") && again.output.contains("1 could not be (above): api/broken.yaml"), "\(again.output)")
        #expect(FileManager.default.fileExists(atPath: directory.file("har2/test_login.har.gz").path), "the others are written")

        let toFile = try runTapedeck(["cassette", "import", library.path, directory.file("one.har.gz").path])
        #expect(toFile.status == 2 && toFile.errors.contains("is a folder"), "\(toFile.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("one.har.gz").path))
        let toStandardOutput = try runTapedeck(["cassette", "import", library.path, "-"])
        #expect(toStandardOutput.status == 2 && toStandardOutput.errors.contains("is a folder"), "\(toStandardOutput.errors)")
    }

    @Test("VCR placeholders (filter_sensitive_data) in URIs: named in a note or the skip, filled by --replace; --variable on a VCR file is said to be unused")
    func placeholders() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given a VCR JSON cassette as a gem's suite writes it: a login in the path, a whole host replaced.
        func interaction(_ uri: String) -> String {
            #"{"request": {"method": "get", "uri": "\#(uri)", "body": {"encoding": "UTF-8", "string": ""}, "headers": {}},"#
                + #""response": {"status": {"code": 200, "message": "OK"}, "headers": {"Content-Type": ["application/json"]},"#
                + #""body": {"encoding": "UTF-8", "string": "{\"login\": \"<GITHUB_LOGIN>\"}"}, "http_version": null},"#
                + #""recorded_at": "Tue, 01 Jan 2019 00:00:00 GMT"}"#
        }
        let input = directory.file("cassette.json")
        try Data(#"{"http_interactions": ["# .utf8).write(to: input)
        let handle = try FileHandle(forWritingTo: input)
        handle.seekToEndOfFile()
        handle.write(Data((interaction("https://api.github.com/users/<GITHUB_LOGIN>/repos") + "," + interaction("<<ENTERPRISE_HOSTNAME>>api/v3/meta")
                           + #"], "recorded_with": "VCR 6.0.0"}"#).utf8))
        try handle.close()
        let output = directory.file("out.har")
        // When it is imported as it is: the host placeholder's entry is left out, naming --replace; the other is noted.
        let plain = try runTapedeck(["cassette", "import", input.path, output.path, "--variable", "GITHUB_LOGIN=octocat"])
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(plain.errors.contains("--replace '<<ENTERPRISE_HOSTNAME>>=VALUE'"), "\(plain.errors)")
        #expect(plain.errors.contains("(<GITHUB_LOGIN>)") && plain.errors.contains("--variable and --environment fill a Postman collection"), "\(plain.errors)")
        // Then with --replace, both import with the values back, the body's too.
        let filled = try runTapedeck(["cassette", "import", input.path, output.path, "--replace", "<GITHUB_LOGIN>=octocat",
                                      "--replace", "<<ENTERPRISE_HOSTNAME>>=https://ghe.test/"])
        #expect(filled.status == 0 && !filled.errors.contains("placeholder"), "\(filled.errors)")
        let cassette = try CassetteFile.read(output)
        #expect(cassette.interactions.map(\.request.url.absoluteString) == ["https://api.github.com/users/octocat/repos", "https://ghe.test/api/v3/meta"])
        #expect(cassette.interactions.first?.response?.body == Data(#"{"login": "octocat"}"#.utf8))
        #expect(try runTapedeck(["cassette", "import", input.path, output.path, "--replace", "no-equals"]).status == 64)
    }
}
