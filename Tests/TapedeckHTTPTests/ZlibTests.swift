import Foundation
import Testing
import TapedeckHTTP
import TapedeckTestSupport

@Suite("zlib through the system library")
struct ZlibTests {
    let sample = Data((0..<20_000).map { "line \($0): {\"id\":\($0),\"ok\":true}\n" }.joined().utf8)

    /// What gzip(1) decodes `file` to, and its exit status.
    private func gunzipWithTool(_ file: URL) throws -> (status: Int32, decoded: Data) {
        let reader = Process()
        let output = Pipe()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = ["gzip", "-d", "-c", file.path]
        reader.standardOutput = output
        try launch(reader)
        let decoded = output.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        return (reader.terminationStatus, decoded)
    }

    @Test("gzip, zlib and raw deflate round-trip")
    func roundTrips() throws {
        for format in [Zlib.Format.gzip, .zlib, .raw] {
            let packed = try Zlib.compress(sample, format: format)
            #expect(packed.count < sample.count / 5)
            #expect(try Zlib.decompress(packed, format: format) == sample)
        }
    }

    @Test("we read what gzip(1) writes, and gzip(1) reads what we write")
    func matchesGzipTool() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-zlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("sample.txt")
        try sample.write(to: plain)
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tool.arguments = ["gzip", "-n", "-6", "-k", plain.path]
        try launch(tool)
        tool.waitUntilExit()
        try #require(tool.terminationStatus == 0)
        let theirs = try Data(contentsOf: directory.appendingPathComponent("sample.txt.gz"))
        #expect(try Zlib.decompress(theirs) == sample)
        // gzip(1) has its own deflate, so bytes differ beyond the header; the formats agree.
        let ours = directory.appendingPathComponent("ours.gz")
        try Zlib.compress(sample, format: .gzip).write(to: ours)
        let (status, decoded) = try gunzipWithTool(ours)
        #expect(status == 0)
        #expect(decoded == sample)
    }

    @Test("concatenated gzip members (an append-only journal) decode as one stream")
    func concatenatedMembers() throws {
        let parts = [Data("first,".utf8), Data("second,".utf8), Data("third".utf8)]
        var joined = Data()
        for part in parts { joined.append(try Zlib.compress(part)) }
        #expect(try Zlib.decompress(joined) == Data("first,second,third".utf8))
    }

    @Test("a streaming deflater writes the same bytes as one-shot compression")
    func streaming() throws {
        let deflater = try Deflater(format: .gzip, level: 6)
        var output = Data()
        var offset = 0
        while offset < sample.count {
            let end = min(offset + 4_096, sample.count)
            output.append(try deflater.append(sample[offset..<end]))
            offset = end
        }
        output.append(try deflater.finish())
        #expect(try Zlib.decompress(output) == sample)
    }

    @Test("truncated or corrupt input is an error that says where decoding stopped")
    func badInput() throws {
        let packed = try Zlib.compress(sample)
        let truncated = packed.prefix(packed.count / 2)
        let error = #expect(throws: ZlibError.self) { try Zlib.decompress(truncated) }
        #expect(error?.offset == truncated.count)
        #expect(error?.description.contains("truncated") == true)
        var corrupt = packed
        corrupt[20] ^= 0xFF
        corrupt[21] ^= 0xFF
        #expect(throws: ZlibError.self) { try Zlib.decompress(corrupt) }
        #expect(throws: ZlibError.self) { try Zlib.decompress(Data()) }
    }

    @Test("content codings decode as libcurl would; unknown codings pass through")
    func contentCodings() throws {
        let text = Data("hello hello hello hello".utf8)
        #expect(try ContentCoding.decode(try Zlib.compress(text, format: .gzip), contentEncoding: "gzip") == text)
        #expect(try ContentCoding.decode(try Zlib.compress(text, format: .zlib), contentEncoding: "deflate") == text)
        #expect(try ContentCoding.decode(try Zlib.compress(text, format: .raw), contentEncoding: "DEFLATE") == text)
        #expect(try ContentCoding.decode(try Brotli.compress(text), contentEncoding: "br") == text)
        #expect(try ContentCoding.decode(text, contentEncoding: "compress") == text, "a coding libcurl does not know passes through")
        #expect(try ContentCoding.decode(text, contentEncoding: nil) == text)
    }

    @Test("compress sizes its window to the input: every size across the window steps round-trips, and gzip tools can read it")
    func smallWindows() throws {
        for size in [0, 1, 255, 256, 511, 512, 513, 1_000, 4_096, 4_097, 32_767, 32_768, 32_769, 100_000] {
            let input = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 97) })
            for format in [Zlib.Format.gzip, .zlib, .raw] {
                let packed = try Zlib.compress(input, format: format, level: 1)
                #expect(try Zlib.decompress(packed, format: format) == input, "size \(size) \(format)")
            }
        }
        // A repetitive 2 KB line still compresses (the small window sees the repeats).
        let line = Data(String(repeating: "{\"name\":\"Content-Type\",\"value\":\"application/json\"},", count: 40).utf8)
        #expect(try Zlib.compress(line, level: 1).count < line.count / 5)
    }

    @Test("a stored gzip member round-trips at every block boundary, concatenates with compressed members, and gzip(1) reads it")
    func storedMembers() throws {
        let sizes = [0, 1, 1_000, 65_534, 65_535, 65_536, 131_070, 131_071, 200_000]
        var journal = Data()
        var expected = Data()
        for size in sizes {
            let input = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) })
            let member = Zlib.storedGzipMember(input)
            #expect(try Zlib.decompress(member) == input, "size \(size)")
            // Header, 5 bytes per 64 KiB block (one block when empty), the bytes, CRC and size.
            #expect(member.count == 10 + max(1, (size + 65_534) / 65_535) * 5 + size + 8, "size \(size)")
            journal.append(member)
            journal.append(try Zlib.compress(input, level: 1))
            expected.append(input)
            expected.append(input)
        }
        #expect(try Zlib.decompress(journal) == expected)
        // A flipped byte is caught by the member's CRC, as for any member.
        var damaged = Zlib.storedGzipMember(Data("hello, journal".utf8))
        damaged[damaged.startIndex + 17] ^= 0x01
        #expect(throws: ZlibError.self) { try Zlib.decompress(damaged) }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-zlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("journal.gz")
        try journal.write(to: file)
        let (status, decoded) = try gunzipWithTool(file)
        #expect(status == 0)
        #expect(decoded == expected)
    }
}
