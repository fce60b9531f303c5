import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

/// `tapedeck cassette ...` run as a real process: output and exit statuses
/// (0 ok, 1 found something, 2 bad input file, 64 usage, 3 other failure).
@Suite("Cassettes: the tapedeck cassette command")
struct CommandTests {
    private func tapedeck(_ arguments: String...) throws -> ProcessRun {
        try runTapedeck(arguments)
    }

    @Test("after a first recording was killed only its journal exists: inspect and validate show its entries, say so, and change no file")
    func journalOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("first.har.gz")
        let journal = try CassetteJournal(cassette: cassette)
        for index in 0..<3 {
            try journal.append(Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/items/\(index)")!),
                                           outcome: .response(RecordedResponse(status: 200, body: Data("{}".utf8)))))
        }
        let before = try Data(contentsOf: journal.journalURL)

        let inspect = try tapedeck("cassette", "inspect", cassette.path)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.contains("3 entries"), "\(inspect.output)")
        #expect(inspect.output.contains("http://api.test/items/2"))
        #expect(inspect.errors.contains("interrupted recording (3 interactions not in the cassette"), "\(inspect.errors)")
        #expect(try tapedeck("cassette", "validate", cassette.path).status == 0)

        #expect(!FileManager.default.fileExists(atPath: cassette.path), "nothing merged on disk")
        #expect(try Data(contentsOf: journal.journalURL) == before)
    }

    @Test("inspect prints one row per entry; validate finds the mitmproxy capture's secrets (1), then none after redact (0)")
    func inspectValidateRedact() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let capture = directory.file("capture.har")
        try FileManager.default.copyItem(at: fixturesDirectory.appendingPathComponent("interop/mitmproxy.har"), to: capture)

        let inspect = try tapedeck("cassette", "inspect", capture.path)
        #expect(inspect.status == 0)
        #expect(inspect.output.contains("6 entries, written by mitmproxy"))
        #expect(inspect.output.split(separator: "\n").count == 8, "\(inspect.output)")

        let found = try tapedeck("cassette", "validate", capture.path)
        #expect(found.status == 1)
        #expect(found.output.contains("entry 0 (request.headers.Authorization)"))

        let redacted = directory.file("clean.har.gz")
        let redact = try tapedeck("cassette", "redact", capture.path, "-o", redacted.path)
        #expect(redact.status == 0)
        #expect(try tapedeck("cassette", "validate", redacted.path).status == 0)
        #expect(try Data(contentsOf: redacted).prefix(2) == Data([0x1F, 0x8B]), "the output name asked for gzip")
        #expect(try tapedeck("cassette", "validate", capture.path).status == 1, "the input was left as it was")
    }

    @Test("browser exports: inspect marks recorded failures and lists skipped entries; validate warns, finds secrets (1), --strict refuses (2); not HAR at all is 2")
    func browserExports() throws {
        let playwright = fixturesDirectory.appendingPathComponent("interop/playwright-chromium.har").path
        let inspect = try tapedeck("cassette", "inspect", playwright)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.contains("25 entries (6 recorded failures)"), "\(inspect.output)")
        let abort = inspect.output.split(separator: "\n").first { $0.contains("/delay/3") } ?? ""
        #expect(abort.contains("fail") && abort.contains("URLError -999") && abort.contains("net::ERR_ABORTED"), "\(abort)")
        #expect(try tapedeck("cassette", "validate", playwright).status == 1, "the bearer token of /bearer is found")

        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var text = try String(contentsOfFile: playwright, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"url\":\"http://127.0.0.1:18091/json\"", with: "\"url\":\"data:text/plain,hi\"")
        let odd = directory.file("odd.har")
        try Data(text.utf8).write(to: odd)
        let lenient = try tapedeck("cassette", "inspect", odd.path)
        #expect(lenient.status == 0)
        #expect(lenient.output.contains("24 entries (6 recorded failures), 1 skipped"), "\(lenient.output)")
        #expect(lenient.output.contains("skipped entry 1 (request.url) [GET data:text/plain,hi]"), "\(lenient.output)")
        let warned = try tapedeck("cassette", "validate", odd.path)
        #expect(warned.status == 1 && warned.errors.contains("warning:") && warned.errors.contains("data:"), "\(warned.errors)")
        let strict = try tapedeck("cassette", "validate", "--strict", odd.path)
        #expect(strict.status == 2 && strict.errors.contains("entry 1 (request.url)"), "\(strict.errors)")
        let before = try Data(contentsOf: odd)
        let inPlace = try tapedeck("cassette", "redact", odd.path)
        #expect(inPlace.status == 2 && inPlace.errors.contains("--output"), "\(inPlace.errors)")
        #expect(try Data(contentsOf: odd) == before, "a file with unreadable entries is never rewritten in place")

        let notHAR = directory.file("not.har")
        try Data(#"{"hello":"world"}"#.utf8).write(to: notHAR)
        #expect(try tapedeck("cassette", "validate", notHAR.path).status == 2)
    }

    @Test("a ZIP archive and a JSONP file exit 2 naming what they are; a zlib .zhar reads; inspect and validate show load notes")
    func containersAndNotes() throws {
        let interop = fixturesDirectory.appendingPathComponent("interop")
        let zip = try tapedeck("cassette", "inspect", interop.appendingPathComponent("playwright-har.zip").path)
        #expect(zip.status == 2 && zip.errors.contains("ZIP archive") && zip.errors.contains("har.har"), "\(zip.errors)")
        let jsonp = try tapedeck("cassette", "validate", interop.appendingPathComponent("harviewer.harp").path)
        #expect(jsonp.status == 2 && jsonp.errors.contains("JSONP"), "\(jsonp.errors)")
        let zhar = try tapedeck("cassette", "inspect", interop.appendingPathComponent("mitmproxy.zhar").path)
        #expect(zhar.status == 0 && zhar.output.contains("1 entry"), "\(zhar.output) \(zhar.errors)")

        let upload = interop.appendingPathComponent("firefox-binary-post.har").path
        let inspect = try tapedeck("cassette", "inspect", upload)
        #expect(inspect.output.contains("2 entries, 1 note") && inspect.output.contains("!   note entry 0 (request.postData)"), "\(inspect.output)")
        let validate = try tapedeck("cassette", "validate", upload)
        #expect(validate.status == 0 && validate.errors.contains("warning:") && validate.errors.contains("read as Latin-1"), "\(validate.errors)")
    }

    @Test("inspect shows secret query items and passwords in URLs as REDACTED unless --show-secrets; convert to - writes the JSON to standard output")
    func inspectHidesSecretsAndConvertToStandardOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("keys.har")
        let url = URL(string: "http://bob:hunter2@api.test/items?api_key=KEY_4411&page=2")!
        try CassetteFile.write(Cassette(interactions: [Interaction(index: 0, request: RecordedRequest(method: "GET", url: url),
                                                                  outcome: .response(RecordedResponse(status: 200, body: Data("{}".utf8))))]), to: file)
        let shown = try tapedeck("cassette", "inspect", file.path)
        #expect(shown.status == 0 && shown.output.contains("api_key=REDACTED&page=2") && !shown.output.contains("KEY_4411") && !shown.output.contains("hunter2"),
                "\(shown.output)")
        #expect(try tapedeck("cassette", "inspect", file.path, "--show-secrets").output.contains("api_key=KEY_4411"))

        let piped = try tapedeck("cassette", "convert", file.path, "-")
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(try HARCodec.decode(Data(piped.output.utf8), file: "stdout").interactions.first?.request.url == url, "the file's bytes, unchanged")
        #expect(piped.errors.contains("1 entry") && !FileManager.default.fileExists(atPath: directory.file("-").path))
    }

    @Test("inspect reads a named pipe once (as `inspect <(zcat …)` gives it): the rows, then exit 0; it never opens it a second time and waits")
    func inspectANamedPipe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let pipe = directory.file("fifo.har")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let bytes = CassetteFile.encode(try sampleCassette(), compression: .none)
        // The writer: one open, the whole cassette, closed
        Thread {
            if let handle = FileHandle(forWritingAtPath: pipe.path) {
                try? handle.write(contentsOf: bytes)
                try? handle.close()
            }
        }.start()
        let process = Process()
        process.executableURL = try tapedeckExecutable()
        process.arguments = ["cassette", "inspect", pipe.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // A second open of the pipe would wait for a writer for ever: give it one after a while,
        // so that a regression fails here instead of hanging the suite.
        var waited = 0
        while process.isRunning, waited < 300 {
            usleep(100_000)
            waited += 1
        }
        let hung = process.isRunning
        if hung, let unblock = FileHandle(forWritingAtPath: pipe.path) { try? unblock.close() }
        process.waitUntilExit()
        #expect(!hung, "inspect opened the pipe a second time and waited for a writer")
        let count = try sampleCassette().interactions.count
        #expect(process.terminationStatus == 0 && text.contains("\(count) entries"), "\(text)")
    }

    @Test("redact of a pipe without --output is refused (exit 2): a pipe cannot take the redacted cassette back")
    func redactAPipeInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let pipe = directory.file("fifo.har")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        // A writer that opens and closes (writing nothing: no SIGPIPE), so that a regression that
        // reads the pipe gets its end at once instead of waiting for ever
        Thread {
            let writer = open(pipe.path, O_WRONLY)
            if writer >= 0 { close(writer) }
        }.start()
        let run = try runTapedeck(["cassette", "redact", pipe.path])
        // Release the writer (it waits for a reader) whatever happened
        let reader = open(pipe.path, O_RDONLY | O_NONBLOCK)
        if reader >= 0 { close(reader) }
        #expect(run.status == 2 && run.errors.contains("is no regular file (a pipe or a device): nothing can be redacted in place"), "\(run.errors)")
    }

    @Test("convert between .har and .har.gz keeps every interaction")
    func convert() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let plain = directory.file("a.har")
        try CassetteFile.write(try sampleCassette(), to: plain)
        #expect(try tapedeck("cassette", "convert", plain.path, directory.file("b.har.gz").path).status == 0)
        #expect(try tapedeck("cassette", "convert", directory.file("b.har.gz").path, directory.file("c.har").path).status == 0)
        #expect(try CassetteFile.read(directory.file("c.har")).interactions == (try sampleCassette()).interactions)

        // Another tool's file that reads whole keeps its JSON text: pages, comments, timings the
        // simulation does not use, a type named only by mimeType.
        let foreign = directory.file("tool.har")
        let text = #"""
        {"log":{"version":"1.2","creator":{"name":"tool","version":"9"},"pages":[{"id":"p1","title":"Home","startedDateTime":"2024-01-01T00:00:00Z","pageTimings":{}}],
        "entries":[{"pageref":"p1","comment":"kept","serverIPAddress":"10.0.0.1","startedDateTime":"2024-01-01T00:00:00.000Z","time":50,
        "request":{"method":"GET","url":"http://a.test/x","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
        "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],"content":{"size":2,"mimeType":"text/plain","text":"ok"},
        "redirectURL":"","headersSize":-1,"bodySize":2},"cache":{},"timings":{"blocked":10,"dns":5,"connect":5,"ssl":3,"send":1,"wait":20,"receive":9}}]}}
        """#
        try Data(text.utf8).write(to: foreign)
        let packed = try tapedeck("cassette", "convert", foreign.path, directory.file("tool.har.gz").path)
        #expect(packed.status == 0 && packed.output.contains("1 entry, the JSON as written"), "\(packed.output)")
        #expect(try CassetteFile.jsonText(of: directory.file("tool.har.gz")) == Data(text.utf8))
        let normalized = try tapedeck("cassette", "convert", foreign.path, directory.file("flat.har").path, "--normalize-timings")
        #expect(normalized.status == 0 && normalized.output.contains("rewritten in Tapedeck's form"), "\(normalized.output)")

        // validate does not call another tool's file clean beyond what it checked.
        let checked = try tapedeck("cassette", "validate", foreign.path)
        #expect(checked.status == 0 && checked.output.contains("no secrets found in what replays"), "\(checked.output)")
    }

    @Test("bad input files exit 2 naming the file and place; bad usage 64; a failed write 3")
    func exitStatuses() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cut = directory.file("cut.har.gz")
        let whole = CassetteFile.encode(try sampleCassette(), compression: .gzip)
        try whole.prefix(whole.count / 2).write(to: cut)
        let truncated = try tapedeck("cassette", "inspect", cut.path)
        #expect(truncated.status == 2)
        #expect(truncated.errors.contains(cut.path) && truncated.errors.contains("byte "), "\(truncated.errors)")

        let missing = try tapedeck("cassette", "validate", directory.file("none.har").path)
        #expect(missing.status == 2)

        let usage = try tapedeck("cassette", "convert", cut.path)
        #expect(usage.status == 64)

        let good = directory.file("good.har")
        try CassetteFile.write(try sampleCassette(), to: good)
        let unwritable = try tapedeck("cassette", "convert", good.path, "/nonexistent-tapedeck-dir/out.har")
        #expect(unwritable.status == 3, "\(unwritable.errors)")
        #expect(unwritable.errors.contains("/nonexistent-tapedeck-dir is not an existing directory"), "\(unwritable.errors)")
    }
}
