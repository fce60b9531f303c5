import Foundation
import Testing
import TapedeckHTTP
import TapedeckTestSupport

@Suite("br and zstd through the system libraries")
struct BrotliZstdTests {
    let sample = Data((0..<20_000).map { "line \($0): {\"id\":\($0),\"ok\":true}\n" }.joined().utf8)

    /// Runs `tool arguments` (found on PATH), feeding `input`, and returns its standard output.
    private func run(_ tool: String, _ arguments: [String], input: Data) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-codings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appendingPathComponent("in"), outputFile = directory.appendingPathComponent("out")
        try input.write(to: inputFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments + ["-o", outputFile.path, inputFile.path]
        try launch(process)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) \(arguments) failed")
        return try Data(contentsOf: outputFile)
    }

    @Test("br and zstd round-trip, and shrink a repetitive body")
    func roundTrips() throws {
        let br = try Brotli.compress(sample)
        let zstd = try Zstd.compress(sample)
        #expect(br.count < sample.count / 5 && zstd.count < sample.count / 5)
        #expect(try Brotli.decompress(br) == sample)
        #expect(try Zstd.decompress(zstd) == sample)
        #expect(try Brotli.decompress(try Brotli.compress(Data())) == Data())
    }

    @Test("we read what brotli(1) and zstd(1) write, and they read what we write")
    func matchesTheTools() throws {
        // Given bodies compressed by the reference tools (as a server's library would).
        #expect(try Brotli.decompress(try run("brotli", ["-q", "5", "-f"], input: sample)) == sample)
        #expect(try Zstd.decompress(try run("zstd", ["-q", "-3", "-f"], input: sample)) == sample)
        // And ours decompressed by them.
        #expect(try run("brotli", ["-d", "-f"], input: try Brotli.compress(sample)) == sample)
        #expect(try run("zstd", ["-d", "-q", "-f"], input: try Zstd.compress(sample)) == sample)
    }

    @Test("a cut or damaged stream is an error naming the coding, not a short body")
    func damagedStreams() throws {
        let br = try Brotli.compress(sample), zstd = try Zstd.compress(sample)
        #expect(throws: CodingError.self) { try Brotli.decompress(br.prefix(br.count / 2)) }
        #expect(throws: CodingError.self) { try Zstd.decompress(zstd.prefix(zstd.count / 2)) }
        let error = try #require(throws: CodingError.self) { try Zstd.decompress(Data("not zstd at all".utf8)) }
        #expect(error.coding == "zstd")
        #expect(throws: CodingError.self) { try Brotli.decompress(br, limit: 10) }
        #expect(throws: CodingError.self) { try Zstd.decompress(zstd, limit: 10) }
        // Bytes after the end of a brotli stream: refused, as libcurl refuses them.
        #expect(throws: CodingError.self) { try Brotli.decompress(br + Data("junk".utf8)) }
    }

    @Test("several zstd frames in a row decode as their concatenation (a streaming server may send them)")
    func zstdFrames() throws {
        let first = Data("first frame, ".utf8), second = Data("second frame".utf8)
        #expect(try Zstd.decompress(try Zstd.compress(first) + Zstd.compress(second)) == first + second)
    }

    @Test("ContentCoding decodes and encodes br and zstd as libcurl's URLSession hands them over; only gzip/deflate are decoded by every URLSession")
    func contentCodings() throws {
        for coding in ["br", "zstd", "BR"] {
            let encoded = try #require(try ContentCoding.encode(sample, contentEncoding: coding))
            #expect(try ContentCoding.decode(encoded, contentEncoding: coding) == sample)
            #expect(ContentCoding.isDecodable(coding))
            #expect(!ContentCoding.isDecodedByEveryURLSession(coding))
        }
        #expect(ContentCoding.isDecodedByEveryURLSession("gzip"))
        #expect(try ContentCoding.decode(sample, contentEncoding: "compress") == sample, "an unknown coding passes through")
    }
}
