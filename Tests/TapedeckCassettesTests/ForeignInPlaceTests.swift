import Foundation
import Testing
import TapedeckCassettes
import TapedeckTesting
import TapedeckTestSupport

/// Other tools' cassettes where a HAR file is expected: replay reads them as they are (a Tape, a
/// player), a recorder refuses them (it would write HAR over the file) with the import line that
/// converts them, and a damaged HAR file still gets the HAR reader's own error.
@Suite("Cassettes: other tools' cassettes replay as they are and are never recorded over")
struct ForeignInPlaceTests {
    private func foreign(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/foreign/\(name)")
    }

    @Test("read refuses one by default, naming its format and the import line; .convert reads what import reads",
          arguments: ["vcrpy-requests.yaml", "vcrpy-requests.json", "vcr-ruby.zz", "go-vcr.yaml", "dvr.json", "betamax.json"])
    func refusesOrConverts(_ file: String) throws {
        let url = foreign(file)
        do {
            _ = try CassetteFile.read(url)
            Issue.record("\(file) was read as a HAR file")
        } catch {
            #expect(error.kind == .json)
            #expect(error.reason.contains("cassette, not a HAR file"), "\(error)")
            #expect(error.hint.contains("tapedeck cassette import \(url.path) "), "\(error)")
        }
        let converted = try CassetteFile.read(url, foreign: .convert)
        let imported = try ForeignCassette.read(CassetteFile.jsonText(of: url), file: url.path)
        #expect(!converted.interactions.isEmpty && converted.interactions == imported.interactions)
        #expect(try converted.foreignFormat == ForeignCassette.detect(CassetteFile.jsonText(of: url)) && converted.foreignFormat != nil)
        #expect(try CassetteFile.read(url, foreign: .convert).interactions == converted.interactions, "the same every time")
    }

    @Test("a damaged HAR file gets the HAR reader's error; a whole document of no known format is said to be neither HAR nor a cassette")
    func notForeign() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cut = directory.file("cut.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"#.utf8).write(to: cut)
        let other = directory.file("package.json")
        try Data(#"{"name": "app", "version": "1.0.0"}"#.utf8).write(to: other)
        let insomnia = directory.file("insomnia.json")
        try Data(#"{"_type": "export", "__export_format": 4, "resources": [{"_type": "request", "url": "http://a.test/"}]}"#.utf8).write(to: insomnia)
        for url in [cut, other, insomnia] {
            do {
                _ = try CassetteFile.read(url, foreign: .convert)
                Issue.record("\(url.lastPathComponent) was read")
            } catch {
                #expect(!error.reason.contains("not a HAR file;"), "\(error)")
                #expect(error.file == url.path)
            }
        }
        // A cut HAR file is damaged: the HAR reader's error says so.
        #expect(throws: CassetteError.self) { try CassetteFile.read(cut, foreign: .convert) }
        do {
            _ = try CassetteFile.read(cut, foreign: .convert)
        } catch {
            #expect(!error.reason.contains("neither a HAR file"), "\(error)")
        }
        // A whole document of no known format is said to be neither HAR nor a cassette; a known
        // lookalike is named with what to do instead.
        do {
            _ = try CassetteFile.read(other, foreign: .convert)
        } catch {
            #expect(error.reason.contains("neither a HAR file (no 'log') nor a cassette"), "\(error)")
        }
        do {
            _ = try CassetteFile.read(insomnia, foreign: .convert)
        } catch {
            #expect(error.hint.contains("Insomnia export"), "\(error)")
        }
    }

    @Test("a Tape replays a go-vcr cassette in place (identical requests in recorded order); recording into it is refused; the file never changes")
    func tapeReplaysInPlace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let copy = directory.file("go-vcr.yaml")
        try FileManager.default.copyItem(at: foreign("go-vcr.yaml"), to: copy)
        let before = try Data(contentsOf: copy)

        let tape = try Tape(cassette: copy, mode: .once)
        let counter = try #require(URL(string: "http://127.0.0.1:40647/counter"))
        let first = try await tape.perform(counter)
        let second = try await tape.perform(counter)
        #expect(first.response.statusCode == 200 && first.data == Data(#"{"count": 1}"#.utf8), "\(String(decoding: first.data, as: UTF8.self))")
        #expect(second.data == Data(#"{"count": 2}"#.utf8), "\(String(decoding: second.data, as: UTF8.self))")
        try tape.finish()
        #expect(try Data(contentsOf: copy) == before, "replay leaves the other tool's file as it was")

        for mode in [TapeMode.newEpisodes, .all] {
            do {
                _ = try Tape(cassette: copy, mode: mode)
                Issue.record("a recorder opened a go-vcr cassette")
            } catch let error as CassetteError {
                #expect(error.reason.contains("go-vcr cassette, not a HAR file") && error.hint.contains("tapedeck cassette import"), "\(error)")
            }
        }
        #expect(try Data(contentsOf: copy) == before, "a refused recording writes nothing")
    }
}
