import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck cassette redact` and `convert` rewriting a file in place: a private file stays
/// private, a link stays a link, a live recording is not overwritten behind its back, and an
/// interrupted recording's journal does not outlive the redaction holding secrets.
@Suite("CLI: rewriting a cassette in place", .serialized)
struct RewriteSafetyTests {
    private func login(_ index: Int) -> Interaction {
        Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/me?token=tok-\(index)-secret")!,
                                                           headers: [HeaderField("Authorization", "Bearer live-\(index)-secret")]),
                    outcome: .response(RecordedResponse(status: 200, body: Data("{}".utf8))))
    }

    @Test("a 0600 cassette stays 0600 after redact and convert in place; through a symbolic link the file it names is rewritten, the link kept")
    func modeAndLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("private.har")
        try CassetteFile.write(Cassette(interactions: [login(0)]), to: file)
        #expect(chmod(file.path, 0o600) == 0)
        func mode(_ url: URL) -> mode_t {
            var info = stat()
            _ = stat(url.path, &info)
            return info.st_mode & 0o777
        }
        #expect(try runTapedeck(["cassette", "redact", file.path]).status == 0)
        #expect(mode(file) == 0o600)
        #expect(try runTapedeck(["cassette", "convert", file.path, file.path]).status == 0)
        #expect(mode(file) == 0o600)

        let target = directory.file("real.har")
        try CassetteFile.write(Cassette(interactions: [login(1)]), to: target)
        let link = directory.file("link.har")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.har")
        let redact = try runTapedeck(["cassette", "redact", link.path])
        #expect(redact.status == 0, "\(redact.errors)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.har", "the link is still a link")
        let stored = try String(decoding: CassetteFile.jsonText(of: target), as: UTF8.self)
        #expect(!stored.contains("live-1-secret") && !stored.contains("tok-1-secret"), "the file the link names is redacted")
    }

    @Test("redact and convert in place refuse while a recorder holds the cassette, naming its pid; writing elsewhere is fine")
    func liveRecordingRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("held.har")
        try CassetteFile.write(Cassette(interactions: [login(0)]), to: url)
        // This test process records into it (a recorder that may write holds <cassette>.lock).
        let recorder = try CassetteRecorder(cassette: url, options: .init(mode: .newEpisodes))
        let refused = try runTapedeck(["cassette", "redact", url.path])
        #expect(refused.status == 3, "\(refused.errors)")
        #expect(refused.errors.contains("a recording is in progress (pid \(getpid()))"), "\(refused.errors)")
        #expect(try runTapedeck(["cassette", "convert", url.path, url.path]).status == 3)
        #expect(try runTapedeck(["cassette", "redact", url.path, "-o", directory.file("copy.har").path]).status == 0)
        // Nor may another file be converted or redacted into it: the recorder's stop would undo that
        let other = directory.file("other.har")
        try CassetteFile.write(Cassette(interactions: [login(1), login(2)]), to: other)
        let into = try runTapedeck(["cassette", "convert", other.path, url.path])
        #expect(into.status == 3 && into.errors.contains("convert into another file"), "\(into.errors)")
        #expect(try runTapedeck(["cassette", "redact", other.path, "-o", url.path]).status == 3)
        // Nor through a link to it, nor onto the recorder's own journal
        let link = directory.file("link.har")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "held.har")
        #expect(try runTapedeck(["cassette", "convert", other.path, link.path]).status == 3)
        #expect(try runTapedeck(["cassette", "convert", other.path, url.path + ".journal"]).status == 3)
        #expect(try CassetteFile.read(url).interactions.count == 1, "the held cassette is untouched")
        _ = try recorder.finish()
        #expect(try runTapedeck(["cassette", "redact", url.path]).status == 0, "once the recording stopped")
    }

    @Test("convert from a pipe writes what it read (not an empty file), and redact -o - writes to standard output")
    func pipesAndStandardOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = directory.file("in.har")
        try CassetteFile.write(Cassette(interactions: [login(0), login(1)]), to: source)
        // A pipe as the input (`cat in.har | tapedeck cassette convert /dev/stdin out.har.gz`)
        let output = directory.file("out.har.gz")
        let process = Process()
        process.executableURL = try tapedeckExecutable()
        process.arguments = ["cassette", "convert", "/dev/stdin", output.path]
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForWriting.write(contentsOf: try Data(contentsOf: source))
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try CassetteFile.read(output).interactions.count == 2, "the converted cassette has the entries")
        // redact -o -: the cassette on standard output, the summary on standard error
        let printed = try runTapedeck(["cassette", "redact", source.path, "-o", "-"], in: directory.url)
        #expect(printed.status == 0 && printed.errors.contains("standard output: redacted"), "\(printed.errors)")
        #expect(printed.output.contains("\"log\"") && !printed.output.contains("live-0-secret"), "\(printed.output.prefix(200))")
        #expect(!FileManager.default.fileExists(atPath: directory.file("-").path), "no file named '-'")
    }

    @Test("inspect and validate print a HAR's control characters as escapes, not raw to the terminal")
    func controlCharactersEscaped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("esc.har")
        let har = #"{"log":{"version":"1.2","creator":{"name":"evil\u001b[2Jtool","version":"1"},"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"http://a.test/x","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":-1},"response":{"status":0,"statusText":"","httpVersion":"","headers":[],"cookies":[],"content":{"size":0,"mimeType":""},"redirectURL":"","headersSize":-1,"bodySize":-1,"_error":"net::ERR_FAILED\u0007\u001b]0;title\u0007"},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}"#
        try Data(har.utf8).write(to: file)
        for arguments in [["cassette", "inspect", file.path], ["cassette", "validate", file.path]] {
            let run = try runTapedeck(arguments)
            #expect(!(run.output + run.errors).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(arguments[1]): \(run.output) \(run.errors)")
        }
        #expect(try runTapedeck(["cassette", "inspect", file.path]).output.contains("evil\\u{1B}[2Jtool"))
    }

    @Test("after a recording was killed, redact in place merges its journal first and deletes it: no unredacted copy stays beside the file")
    func leftoverJournalMergedAndDeleted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("killed.har")
        let (process, _, _) = try startJournalWriter(url, bodyBytes: 100, until: 5)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let journal = CassetteJournal.journalURL(for: url)
        #expect(FileManager.default.fileExists(atPath: journal.path))
        let redact = try runTapedeck(["cassette", "redact", url.path])
        #expect(redact.status == 0, "\(redact.errors)")
        #expect(redact.errors.contains("merged") && redact.errors.contains("journal"), "\(redact.errors)")
        #expect(!FileManager.default.fileExists(atPath: journal.path), "the journal is merged and gone")
        #expect(try CassetteFile.read(url).interactions.count >= 5)
    }

    @Test("redact in place of a HAR whose bodies Playwright attached as files: the bodies are embedded, redacted, and stderr names the files left holding them in clear")
    func attachedBodiesNamed() throws {
        // Given Playwright's attach HAR and its two body files in a directory of their own
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = fixturesDirectory.appendingPathComponent("interop/playwright-attach")
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: directory.file(name))
        }
        // When it is redacted in place
        let redact = try runTapedeck(["cassette", "redact", directory.file("playwright-attach.har").path])
        // Then the cassette no longer names the files, and the note names them
        #expect(redact.status == 0, "\(redact.errors)")
        #expect(!(try String(contentsOf: directory.file("playwright-attach.har"), encoding: .utf8)).contains("_file"))
        #expect(redact.errors.contains("ecd0f27f005bcb3770b6bb86f84b6fb64fb189ec.json") && redact.errors.contains("d6d772fa7a4b24d716e28e2756f70198bf7c73bb.png")
                && redact.errors.contains("unredacted"), "\(redact.errors)")
        // Written elsewhere, the source stays as it was and nothing is said about its files
        let copy = try runTapedeck(["cassette", "redact", fixturesDirectory.appendingPathComponent("interop/playwright-attach/playwright-attach.har").path,
                                    "-o", directory.file("copy.har").path])
        #expect(copy.status == 0 && !copy.errors.contains("unredacted"), "\(copy.errors)")
    }
}
