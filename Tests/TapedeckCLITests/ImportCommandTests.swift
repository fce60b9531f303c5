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

        let unknown = try runTapedeck(["cassette", "import", "--from", "wiremock", copy.path, output.path])
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
}
