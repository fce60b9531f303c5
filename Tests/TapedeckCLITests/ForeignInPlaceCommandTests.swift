import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

/// Other tools' cassettes given where a HAR file goes: commands that only read (inspect, a
/// scenario's traffic, redact into another file) read them as they are; a command that would
/// write HAR over one (redact in place, a recording scenario) refuses with the import line.
@Suite("CLI: other tools' cassettes read in place")
struct ForeignInPlaceCommandTests {
    private func copy(_ name: String, into directory: TemporaryDirectory) throws -> URL {
        let url = directory.file(name)
        try FileManager.default.copyItem(at: fixturesDirectory.appendingPathComponent("interop/foreign/\(name)"), to: url)
        return url
    }

    @Test("inspect reads a VCR cassette with a note; redact in place refuses it and leaves it as it was; redact -o writes a HAR")
    func inspectAndRedact() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try copy("vcr-ruby.yml", into: directory)
        let before = try Data(contentsOf: cassette)

        let inspect = try runTapedeck(["cassette", "inspect", cassette.path])
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.contains("/users/1") && inspect.output.contains("/counter"), "\(inspect.output)")
        #expect(inspect.output.contains("10 entries, a VCR/Betamax cassette read as it is"), "\(inspect.output)")

        let inPlace = try runTapedeck(["cassette", "redact", cassette.path])
        #expect(inPlace.status == 2, "\(inPlace.output)\(inPlace.errors)")
        #expect(inPlace.errors.contains("VCR/Betamax cassette, not a HAR file") && inPlace.errors.contains("tapedeck cassette import"), "\(inPlace.errors)")
        #expect(try Data(contentsOf: cassette) == before, "nothing written over the other tool's file")

        let output = directory.file("redacted.har.gz")
        let elsewhere = try runTapedeck(["cassette", "redact", cassette.path, "-o", output.path])
        #expect(elsewhere.status == 0, "\(elsewhere.errors)")
        let redacted = try CassetteFile.read(output)
        #expect(redacted.interactions.count == 10)

        // convert into another file writes HAR, never the other tool's bytes as they are
        let converted = directory.file("converted.har")
        let convert = try runTapedeck(["cassette", "convert", cassette.path, converted.path])
        #expect(convert.status == 0, "\(convert.errors)")
        #expect(try CassetteFile.read(converted).interactions.count == 10, "a HAR file, read without converting")
        let text = try String(decoding: CassetteFile.jsonText(of: output), as: UTF8.self)
        #expect(!text.contains("lovelace"), "the login's password is redacted")
        #expect(try Data(contentsOf: cassette) == before)
    }

    @Test("a scenario's traffic can be a go-vcr cassette: identical requests get its answers in recorded order; --record all refuses it")
    func scenarioOverForeignCassette() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try copy("go-vcr.yaml", into: directory)
        let before = try Data(contentsOf: cassette)
        let scenario = directory.file("counter.yaml")
        try Data("""
        name: counter-from-go-vcr
        traffic:
          cassette: go-vcr.yaml
          upstream: http://127.0.0.1:9
        script:
          - request: GET http://127.0.0.1:40647/counter
            name: first
          - request: GET http://127.0.0.1:40647/counter
            name: second
            at: 1s
        expect:
          requests:
            first: {status: 200, bodyContains: '"count": 1'}
            second: {status: 200, bodyContains: '"count": 2'}

        """.utf8).write(to: scenario)
        let run = try runTapedeck(["run", scenario.path])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        let recording = try runTapedeck(["run", scenario.path, "--record", "all"])
        #expect(recording.status == 2, "\(recording.output)\(recording.errors)")
        #expect(recording.errors.contains("go-vcr cassette, not a HAR file"), "\(recording.errors)")
        #expect(try Data(contentsOf: cassette) == before)
    }
}

/// `tapedeck cassette import` of WireMock and Hoverfly files.
@Suite("CLI: importing WireMock mappings and Hoverfly simulations")
struct StubImportCommandTests {
    @Test("a WireMock folder becomes one redacted cassette with --origin's URLs; a Hoverfly simulation imports; a bad --origin is a usage error")
    func imports() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let output = directory.file("wiremock.har.gz")
        let folder = fixturesDirectory.appendingPathComponent("interop/foreign/wiremock").path
        let run = try runTapedeck(["cassette", "import", folder, output.path, "--origin", "https://api.example.com"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("11 entries from WireMock mappings"), "\(run.output)")
        #expect(run.errors.contains("skipped entry 9") && run.errors.contains("urlPathPattern"), "\(run.errors)")
        let cassette = try CassetteFile.read(output)
        #expect(cassette.interactions.count == 11 && cassette.interactions[0].request.url.absoluteString == "https://api.example.com/users/1")
        let text = try String(decoding: CassetteFile.jsonText(of: output), as: UTF8.self)
        for secret in ["secret-token", "lovelace", "abc123", "s3cr3t"] {
            #expect(!text.contains(secret), "'\(secret)' left in the imported cassette")
        }

        let hoverfly = directory.file("hoverfly.har")
        let second = try runTapedeck(["cassette", "import", fixturesDirectory.appendingPathComponent("interop/foreign/hoverfly.json").path, hoverfly.path])
        #expect(second.status == 0 && second.output.contains("9 entries from a Hoverfly simulation"), "\(second.output)\(second.errors)")

        let bad = try runTapedeck(["cassette", "import", folder, directory.file("x.har").path, "--origin", "localhost:8080/api"])
        #expect(bad.status == 64 && bad.errors.contains("--origin"), "\(bad.errors)")
    }
}
