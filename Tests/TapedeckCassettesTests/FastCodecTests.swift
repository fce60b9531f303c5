import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckScheduling
import TapedeckTestSupport

/// Strings and numbers that exercise every escaping and formatting rule.
private func trickyCassette() -> Cassette {
    let texts = [
        "quote \" backslash \\ slash / tab \t newline \n return \r", "controls \u{01}\u{08}\u{0C}\u{1F} del \u{7F}",
        "unicode é 中文 🎞️ \u{2028}\u{2029}", "", "{\"json\":[1,2.5,\"x\"],\"nested\":{\"a\":null}}",
    ]
    var interactions: [Interaction] = []
    for (position, text) in texts.enumerated() {
        let timings = ExchangeTimings(
            connect: position.isMultiple(of: 2) ? nil : .microseconds(1), send: .nanoseconds(1_000 * position),
            wait: .milliseconds(123_456_789 + position), receive: .microseconds(999_999))
        interactions.append(Interaction(
            index: position * 3, startedDateTime: "2026-11-21T21:0\(position):00.123Z",
            request: RecordedRequest(method: "POST", url: URL(string: "https://api.test/p/\(position)?q=\(position)&a=%2F")!,
                                     headers: [HeaderField("X-Text", text)], body: Data(text.utf8)),
            outcome: .response(RecordedResponse(status: 200 + position, statusText: text, headers: [HeaderField(text, "v")],
                                                body: Data(text.utf8), bodyForm: position == 1 ? .decoded : .wire)),
            timings: timings))
    }
    interactions.append(Interaction(index: 99, request: RecordedRequest(method: "GET", url: URL(string: "http://down.test/")!),
                                    outcome: .failure(RecordedFailure(code: -1004, message: "refused \"here\"")), timings: nil))
    return Cassette(interactions: interactions, creator: "tricky \"creator\"", creatorVersion: "1.0")
}

@Suite("Cassettes: the fast HAR reader and writer agree with Foundation's JSON coders")
struct FastCodecTests {
    private func cassettes() throws -> [Cassette] {
        var list = [try sampleCassette(), trickyCassette()]
        list.append(try CassetteFile.read(fixturesDirectory.appendingPathComponent("interop/mitmproxy.har")))
        let login = repositoryDirectory.appendingPathComponent("Tests/TapedeckTestingTests/Cassettes/login.har.gz")
        list.append(try CassetteFile.read(login))
        return list
    }

    @Test("the writer's bytes equal JSONEncoder's (sorted keys, no escaped slashes), pretty and compact")
    func writerMatchesJSONEncoder() throws {
        for cassette in try cassettes() {
            for options in [HARCodec.WriteOptions(), HARCodec.WriteOptions(prettyPrinted: false), HARCodec.WriteOptions(normalizesTimings: true)] {
                let fast = HARCodec.encode(cassette, options: options)
                let reference = HARCodec.encodeWithFoundation(cassette, options: options)
                if fast != reference {
                    let a = Array(fast), b = Array(reference)
                    let first = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? a.count
                    Issue.record("differs at byte \(first): fast …\(String(decoding: a[max(0, first - 40)..<min(a.count, first + 40)], as: UTF8.self))… vs …\(String(decoding: b[max(0, first - 40)..<min(b.count, first + 40)], as: UTF8.self))…")
                }
            }
        }
    }

    @Test("the reader's documents equal JSONDecoder's, on what Tapedeck writes and on another tool's file")
    func readerMatchesJSONDecoder() throws {
        for cassette in try cassettes() {
            for pretty in [true, false] {
                let json = HARCodec.encode(cassette, options: HARCodec.WriteOptions(prettyPrinted: pretty))
                let fast = try #require(HARCodec.decodeFast(json), "the fast reader declined what Tapedeck wrote")
                let reference = try HARCodec.decodeWithFoundation(json, file: "x")
                #expect(fast == reference)
                #expect(try HARCodec.decode(json, file: "x") == (try HARCodec.cassette(from: reference, file: "x")))
            }
        }
        // mitmproxy's own bytes (cookie arrays, Python's number formats); InteropTests covers the others.
        let mitmproxy = try Data(contentsOf: fixturesDirectory.appendingPathComponent("interop/mitmproxy.har"))
        let reference = try HARCodec.decodeWithFoundation(mitmproxy, file: "m")
        let fast = try #require(HARCodec.decodeFast(mitmproxy), "the fast reader declined mitmproxy's file")
        #expect(fast == reference)
        #expect(try HARCodec.decode(mitmproxy, file: "m") == (try HARCodec.cassette(from: reference, file: "m")))
    }

    @Test("what JSONDecoder refuses or reads its own way the fast reader declines: repeated keys, leading zeros, out-of-range numbers")
    func declines() throws {
        let base = String(decoding: HARCodec.encode(trickyCassette(), options: HARCodec.WriteOptions(prettyPrinted: false)), as: UTF8.self)
        let variants = [
            base.replacingOccurrences(of: #""cache":{}"#, with: #""cache":{},"cache":{}"#),
            base.replacingOccurrences(of: #""status":200"#, with: #""status":0200"#),
            base.replacingOccurrences(of: #""time":"#, with: #""time":1e999,"t":"#),
            base.replacingOccurrences(of: #""time":"#, with: #""time":1e-400,"t":"#),
            base.replacingOccurrences(of: #""time":"#, with: #""time":0e5,"t":"#),   // JSONDecoder's own refusal
        ]
        for variant in variants {
            #expect(variant != base)
            #expect(HARCodec.decodeFast(Data(variant.utf8)) == nil, "\(variant.prefix(200))")
        }
        // A true zero written with an exponent, and an empty params list, read as JSONDecoder reads them.
        let zero = Data(base.replacingOccurrences(of: #""time":"#, with: #""time":0.0e5,"t":"#).utf8)
        #expect(HARCodec.decodeFast(zero) == (try HARCodec.decodeWithFoundation(zero, file: "z")))
        let params = Data(base.replacingOccurrences(of: #""mimeType":"","text""#, with: #""mimeType":"","params":[],"text""#).utf8)
        #expect(params != Data(base.utf8))
        #expect(HARCodec.decodeFast(params) == (try HARCodec.decodeWithFoundation(params, file: "p")))
    }

    @Test("a gzip cassette written in pipelined pieces is byte-identical to compressing the whole JSON at once")
    func pipelinedCompression() throws {
        // About 3 MB of JSON: several 1 MB pieces.
        var cassette = trickyCassette()
        let body = Data((0..<300_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        for index in 0..<10 {
            cassette.interactions.append(Interaction(
                index: 100 + index, request: RecordedRequest(method: "GET", url: URL(string: "http://big.test/\(index)")!),
                outcome: .response(RecordedResponse(status: 200, body: body))))
        }
        let json = HARCodec.encode(cassette)
        #expect(json.count > 3_000_000)
        let pipelined = CassetteFile.encode(cassette, compression: .gzip)
        #expect(pipelined == (try Zlib.compress(json, format: .gzip, level: 6)))
        #expect(try CassetteFile.decode(pipelined, file: "big") == (try CassetteFile.decode(json, file: "big")))
    }

    @Test("on 3,000 mutated documents the reader never crashes, and whatever both readers accept they read alike")
    func mutations() throws {
        var random = SeededGenerator(seed: 7_2026)
        let plain = HARCodec.encode(trickyCassette(), options: HARCodec.WriteOptions(prettyPrinted: false))
        var agreed = 0
        for _ in 0..<3_000 {
            var data = plain
            switch random.next(below: 3) {
            case 0:
                for _ in 0...random.next(below: 3) {
                    data[data.startIndex + random.next(below: data.count)] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:
                data = data.prefix(random.next(below: data.count))
            default:
                let at = random.next(below: data.count)
                data = data.prefix(at) + Data("[{\"\\u00e9\":-0.5e3,".utf8) + data.suffix(from: data.startIndex + at)
            }
            let fast = HARCodec.decodeFast(data)
            let reference = try? HARCodec.decodeWithFoundation(data, file: "m")
            if fast != nil {
                #expect(reference != nil, "the fast reader accepted what JSONDecoder rejects: \(String(decoding: data, as: UTF8.self))")
            }
            if let fast, let reference {
                #expect(fast == reference)
                agreed += 1
            }
        }
        #expect(agreed > 50, "enough mutations stayed readable to compare: \(agreed)")
    }
}
