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
        _ = try recorder.finish()
        #expect(try runTapedeck(["cassette", "redact", url.path]).status == 0, "once the recording stopped")
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
