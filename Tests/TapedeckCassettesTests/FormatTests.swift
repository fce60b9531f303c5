import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

@Suite("Cassettes: HAR format and files")
struct FormatTests {
    @Test("every kind of interaction survives a round trip, plain and gzip, byte for byte")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try sampleCassette()
        for name in ["c.har", "c.har.gz"] {
            let url = directory.file(name)
            try CassetteFile.write(cassette, to: url)
            let read = try CassetteFile.read(url)
            #expect(read.interactions == cassette.interactions, "\(name)")
        }
        let gz = try Data(contentsOf: directory.file("c.har.gz"))
        #expect(gz.prefix(2) == Data([0x1F, 0x8B]))
        #expect(try Data(contentsOf: directory.file("c.har")).first == UInt8(ascii: "{"))
    }

    @Test("the reader sniffs magic bytes, not names: gzip in a .har and JSON in a .har.gz both read")
    func sniffsContent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = try sampleCassette()
        try CassetteFile.write(cassette, to: directory.file("gzip-inside.har"), compression: .gzip)
        try CassetteFile.write(cassette, to: directory.file("json-inside.har.gz"), compression: CassetteFile.Compression.none)
        #expect(try CassetteFile.read(directory.file("gzip-inside.har")).interactions == cassette.interactions)
        #expect(try CassetteFile.read(directory.file("json-inside.har.gz")).interactions == cassette.interactions)
    }

    @Test("text bodies are stored as text, binary as base64; a wire-gzip body as its decoded text, as HAR 1.2 says, with the bytes as sent in _wire")
    func bodyStorage() throws {
        let document = try JSONDecoder().decode(HARDocument.self, from: HARCodec.encode(try sampleCassette()))
        let entries = document.log.entries
        #expect(document.log.version == "1.2")
        #expect(document.log.tapedeck?.formatVersion == 2, "a _wire body and a base64 request body need version 2")
        let plain = Cassette(interactions: [try sampleCassette().interactions[0]])
        let plainDocument = try JSONDecoder().decode(HARDocument.self, from: HARCodec.encode(plain))
        #expect(plainDocument.log.tapedeck?.formatVersion == 1, "a file any earlier build reads stays version 1")
        #expect(entries[0].response.content.encoding == nil)
        #expect(entries[0].response.content.text?.contains(#""name":"Ada""#) == true)
        #expect(entries[1].response.content.encoding == "base64")
        #expect(entries[1].request.postData?.encoding == "base64")
        let wire = try #require(try sampleCassette().interactions[2].response?.body)
        #expect(entries[2].response.content.bodyForm == "wire")
        #expect(entries[2].response.content.wire == wire.base64EncodedString())
        let decoded = try Zlib.decompress(wire, format: .gzip)
        #expect(entries[2].response.content.encoding == nil && entries[2].response.content.text == String(decoding: decoded, as: UTF8.self))
        #expect(entries[2].response.content.size == decoded.count && entries[2].response.content.compression == decoded.count - wire.count)
        #expect(entries[2].response.bodySize == wire.count, "bodySize is what travelled")
        #expect(entries[3].response.content.bodyForm == "decoded")
        #expect(entries[3].response.content.text == "already decoded")
        #expect(entries[4].error?.code == URLError.cannotConnectToHost.rawValue)
        #expect(entries[4].response.status == 0)
        #expect(entries[4].response.failureText == entries[4].error?.message && entries[4].response.failureText?.isEmpty == false, "DevTools shows response._error")
        #expect(entries[5].response.redirectURL == "/users/1")
        #expect(entries[0].request.queryString.map(\.name) == ["b", "a"])
        #expect(entries.map(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(entries[0].timings.wait == 40 && entries[0].timings.connect == 3 && entries[0].timings.send == 0.25)
    }

    @Test("files written before _wire still read: a wire body as base64 text, a request body under _encoding")
    func earlierWireForm() throws {
        let wire = try Zlib.compress(Data(#"{"id":1}"#.utf8), format: .gzip)
        let file = #"""
        {"log":{"version":"1.2","creator":{"name":"tapedeck","version":"1"},"_tapedeck":{"formatVersion":1},"entries":[
         {"_index":0,"startedDateTime":"1970-01-01T00:00:00.000Z","time":0,
          "request":{"method":"POST","url":"http://a.test/x","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],
           "postData":{"_encoding":"base64","mimeType":"application/octet-stream","text":"AAEC"},"headersSize":-1,"bodySize":3},
          "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],
           "headers":[{"name":"Content-Encoding","value":"gzip"}],
           "content":{"_bodyForm":"wire","encoding":"base64","mimeType":"application/json","size":\#(wire.count),"text":"\#(wire.base64EncodedString())"},
           "redirectURL":"","headersSize":-1,"bodySize":\#(wire.count)},
          "cache":{},"timings":{"send":0,"wait":0,"receive":0}}]}}
        """#
        for read in [try HARCodec.decode(Data(file.utf8), file: "old.har"), try HARCodec.decode(HARCodec.encode(HARCodec.decode(Data(file.utf8), file: "old.har")), file: "new.har")] {
            let interaction = try #require(read.interactions.first)
            #expect(interaction.request.body == Data([0, 1, 2]))
            #expect(interaction.response?.body == wire && interaction.response?.bodyForm == .wire)
        }
        // Written again: the request body's encoding under HAR's name, the response's text decoded.
        let rewritten = try JSONSerialization.jsonObject(with: HARCodec.encode(try HARCodec.decode(Data(file.utf8), file: "old.har"))) as? [String: Any]
        let entry = try #require(((rewritten?["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        let postData = try #require((entry["request"] as? [String: Any])?["postData"] as? [String: Any])
        #expect(postData["encoding"] as? String == "base64" && postData["_encoding"] == nil)
        let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["text"] as? String == #"{"id":1}"# && content["encoding"] == nil && content["_wire"] as? String == wire.base64EncodedString())
    }

    @Test("the writer is deterministic: same cassette, same bytes; normalised timings hide timing-only changes")
    func deterministicWriter() throws {
        let cassette = try sampleCassette()
        let first = HARCodec.encode(cassette)
        #expect(HARCodec.encode(cassette) == first)
        // Decoding and re-encoding changes nothing either.
        #expect(HARCodec.encode(try HARCodec.decode(first, file: "mem")) == first)

        var retimed = cassette
        for index in retimed.interactions.indices {
            retimed.interactions[index].startedDateTime = "2027-01-01T00:00:0\(index).000Z"
            retimed.interactions[index].timings = ExchangeTimings(send: .milliseconds(index), wait: .milliseconds(7 * index + 1))
        }
        let normalised = HARCodec.WriteOptions(normalizesTimings: true)
        #expect(HARCodec.encode(retimed) != first)
        #expect(HARCodec.encode(retimed, options: normalised) == HARCodec.encode(cassette, options: normalised))

        // Without normalising, only timing lines differ.
        let lines = { (data: Data) in String(decoding: data, as: UTF8.self).split(separator: "\n") }
        let changed = zip(lines(first), lines(HARCodec.encode(retimed))).filter { $0 != $1 }
        #expect(!changed.isEmpty)
        for (line, _) in changed {
            let key = line.trimmingCharacters(in: .whitespaces).split(separator: ":").first.map(String.init) ?? ""
            #expect(["\"startedDateTime\" ", "\"time\" ", "\"send\" ", "\"wait\" ", "\"receive\" ", "\"connect\" "].contains(key), "\(line)")
        }
    }

    @Test("a changed response body gives a small diff: the body line and its two sizes")
    func smallDiff() throws {
        var cassette = try sampleCassette()
        let before = String(decoding: HARCodec.encode(cassette), as: UTF8.self).split(separator: "\n")
        if case var .response(response) = cassette.interactions[0].outcome {
            response.body = Data(#"{"id":1,"name":"Grace","tags":["a","b"]}"#.utf8)
            cassette.interactions[0].outcome = .response(response)
        }
        let after = String(decoding: HARCodec.encode(cassette), as: UTF8.self).split(separator: "\n")
        #expect(before.count == after.count)
        let changed = zip(before, after).filter { $0 != $1 }.map { $0.0.trimmingCharacters(in: .whitespaces) }
        #expect(changed.count == 3, "\(changed)")
        #expect(changed.allSatisfy { $0.hasPrefix("\"text\"") || $0.hasPrefix("\"size\"") || $0.hasPrefix("\"bodySize\"") }, "\(changed)")
    }

    @Test("a write replaces the file atomically and leaves no temporary file behind")
    func atomicWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("a.har.gz")
        try CassetteFile.write(try sampleCassette(), to: url)
        try CassetteFile.write(Cassette(), to: url)
        #expect(try CassetteFile.read(url).interactions.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["a.har.gz"])
    }

    @Test("a write to something that is no regular file (a named pipe, as /dev/null and /dev/stdout are not) goes into it, never renamed over it")
    func writeIntoAPipe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let pipe = directory.file("pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        // A reader on the other end (opening a pipe to write waits for one)
        let received = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let handle = FileHandle(forReadingAtPath: pipe.path) { received.withLock { $0 = handle.readDataToEndOfFile() } }
            done.signal()
        }.start()
        try CassetteFile.atomicWrite(Data("through the pipe".utf8), to: pipe)
        done.wait()
        #expect(received.withLock { $0 } == Data("through the pipe".utf8))
        var kind = stat()
        #expect(lstat(pipe.path, &kind) == 0 && kind.st_mode & S_IFMT == S_IFIFO, "still a pipe")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["pipe"], "no temporary file")
    }

    @Test("an output path leads where opening it would: /dev/stdout and links to it to the descriptor, a dangling link to the file it would create, a pipe into itself")
    func outputTargets() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(CassetteFile.outputTarget("/dev/stdout") == .descriptor(1))
        #expect(CassetteFile.outputTarget("/proc/self/fd/2") == .descriptor(2))
        let toStandardOutput = directory.file("out.jsonl")
        try FileManager.default.createSymbolicLink(atPath: toStandardOutput.path, withDestinationPath: "/proc/self/fd/1")
        #expect(CassetteFile.outputTarget(toStandardOutput.path) == .descriptor(1), "the file the shell redirected to is never renamed over")
        // A dangling link, relative, through a second link: the file it names, created by the write
        try FileManager.default.createDirectory(at: directory.file("elsewhere"), withIntermediateDirectories: false)
        let dangling = directory.file("new.har")
        try FileManager.default.createSymbolicLink(atPath: directory.file("hop").path, withDestinationPath: "elsewhere/real.har")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "hop")
        // The directory as the kernel names it (on macOS /var is /private/var)
        let real = try #require(realpath(directory.file("elsewhere").path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer) + "/real.har"
        })
        #expect(CassetteFile.outputTarget(dangling.path) == .file(real))
        try CassetteFile.write(try sampleCassette(), to: dangling)
        #expect(try CassetteFile.read(URL(fileURLWithPath: real)).interactions.count == sampleCassette().interactions.count)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling.path) == "hop", "the link stays a link")
        let pipe = directory.file("pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        #expect(CassetteFile.outputTarget(pipe.path) == .device(URL(fileURLWithPath: real).deletingLastPathComponent().deletingLastPathComponent().path + "/pipe"))
    }

    @Test("a write into a missing directory is an I/O error and the old file (elsewhere) is untouched")
    func failedWrite() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-tapedeck-dir/x.har")
        #expect {
            try CassetteFile.write(try sampleCassette(), to: missing)
        } throws: { error in
            (error as? CassetteError)?.kind == .io && (error as? CassetteError)?.isBadInput == false
        }
    }
}
