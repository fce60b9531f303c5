import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport
import TapedeckScheduling

@Suite("Cassettes: bad input gets a typed error naming the file and the place")
struct BadInputTests {
    private func error(decoding data: Data, file: String = "/cassettes/x.har", strict: Bool = true) -> CassetteError? {
        do {
            _ = try CassetteFile.decode(data, file: file, strict: strict)
            return nil
        } catch {
            return error
        }
    }

    private func har(_ entries: String, version: String = "1.2", format: Int? = 1) -> Data {
        let tapedeck = format.map { #","_tapedeck":{"formatVersion":\#($0)}"# } ?? ""
        return Data(#"{"log":{"version":"\#(version)","creator":{"name":"t","version":"1"},"entries":[\#(entries)]\#(tapedeck)}}"#.utf8)
    }

    private let goodEntry = #"{"startedDateTime":"2026-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"http://a.test/x","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":0},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"content":{"size":2,"mimeType":"text/plain","text":"hi"},"redirectURL":"","headersSize":-1,"bodySize":2},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}"#

    @Test("a well-formed minimal HAR reads")
    func minimalReads() throws {
        let cassette = try CassetteFile.decode(har(goodEntry), file: "x.har")
        #expect(cassette.interactions.count == 1)
        #expect(cassette.interactions[0].response?.body == Data("hi".utf8))
    }

    @Test("truncated gzip: a compression error at the byte where it stops")
    func truncatedGzip() throws {
        let packed = try Zlib.compress(har(goodEntry + "," + goodEntry), format: .gzip)
        let failure = try #require(error(decoding: packed.prefix(packed.count - 9)))
        #expect(failure.kind == .compression)
        #expect(failure.file == "/cassettes/x.har")
        #expect(failure.place.hasPrefix("byte "))
        #expect(failure.isBadInput)
    }

    @Test("corrupt JSON: a JSON error with the parser's position")
    func corruptJSON() throws {
        let data = har(goodEntry)
        let failure = try #require(error(decoding: data.prefix(data.count / 2)))
        #expect(failure.kind == .json)
        #expect(failure.description.contains("/cassettes/x.har"))
        #expect(failure.reason.contains("not valid JSON"))
        #expect(failure.place == "end of file (byte \(data.count / 2))", "\(failure)")
        var broken = data
        broken[broken.startIndex + 40] = UInt8(ascii: "}")
        let syntax = try #require(error(decoding: broken))
        #expect(syntax.place.hasPrefix("line 1, column "), "\(syntax)")
        #expect(!syntax.reason.contains("character"), "the place is said once, in lines and columns: \(syntax)")
    }

    @Test("a raw control character in a string, and entries given as an object, are told in JSON's words, not as Swift values")
    func jsonWords() throws {
        let control = String(decoding: har(goodEntry), as: UTF8.self).replacingOccurrences(of: #""text":"hi""#, with: "\"text\":\"h\u{1}i\"")
        let skipped = try CassetteFile.decode(Data(control.utf8), file: "x.har")
        #expect(skipped.skipped.first?.error.reason == "a string holds a raw control character (0x0001); JSON allows one only escaped (\\u0001)",
                "\(skipped.skipped)")
        let object = Data(#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":{}}}"#.utf8)
        let failure = try #require(error(decoding: object))
        #expect(failure.reason == "expected a list, found an object" && failure.place == "log.entries", "\(failure)")
    }

    @Test("wrong HAR version and a future format version: version errors that say what is supported")
    func versions() throws {
        let har2 = try #require(error(decoding: har(goodEntry, version: "2.0")))
        #expect(har2.kind == .version && har2.place == "log.version")
        let future = try #require(error(decoding: har(goodEntry, format: 99)))
        #expect(future.kind == .version && future.reason.contains("99"))
        #expect(error(decoding: har(goodEntry, format: nil)) == nil, "a HAR from another tool has no format version")
    }

    @Test("a missing required field names the entry and the field: skipped with that reason, or an error when strict")
    func missingField() throws {
        let noURL = goodEntry.replacingOccurrences(of: #""url":"http://a.test/x","#, with: "")
        let failure = try #require(error(decoding: har(goodEntry + "," + noURL)))
        #expect(failure.kind == .entry)
        #expect(failure.place == "entry 1 (request.url)", "\(failure)")
        #expect(failure.reason.contains("'url' is missing"), "\(failure)")

        let lenient = try CassetteFile.decode(har(goodEntry + "," + noURL + "," + goodEntry), file: "/cassettes/x.har")
        #expect(lenient.interactions.map(\.index) == [0, 2], "positions stay the file's")
        #expect(lenient.skipped.map(\.position) == [1])
        #expect(lenient.skipped.first?.error == failure)
    }

    @Test("a file that is not HAR at all is an error even when lenient: no log, entries not a list, not JSON")
    func notHARAtAll() throws {
        for text in [#"{"foo":1}"#, #"{"log":{"entries":{}}}"#, #"[1,2]"#, "hello"] {
            let failure = try #require(error(decoding: Data(text.utf8), strict: false), "\(text) was read")
            #expect(failure.kind == .json, "\(text): \(failure)")
        }
        let list = try #require(error(decoding: Data("[1,2]".utf8), strict: false))
        #expect(list.reason == "not a HAR file: expected an object, found a list at its top" && list.hint.contains(#""log""#), "\(list)")
        // A part of a HAR file (one entry, one request, a log without its wrapper) says which part
        let parts = [
            (#"{"startedDateTime":"2024-01-01T00:00:00Z","request":{"method":"GET","url":"http://a.test/"},"response":{"status":200}}"#, "a single HAR entry"),
            (#"{"method":"GET","url":"http://a.test/","headers":[]}"#, "a single HAR request"),
            (#"{"version":"1.2","entries":[]}"#, "a HAR log's fields"),
        ]
        for (text, part) in parts {
            let failure = try #require(error(decoding: Data(text.utf8), strict: false), "\(text) was read")
            #expect(failure.reason.hasPrefix("not a HAR file: it holds \(part)") && failure.hint.contains("wrap it"), "\(failure)")
        }
        let missing = try #require(throws: CassetteError.self) { try CassetteFile.read(URL(fileURLWithPath: "/nonexistent/x.har")) }
        #expect(missing.reason == "no such file" && missing.hint == "check the path", "\(missing)")
        // Named .gz, but neither gzip nor JSON: both are said, not only "not valid JSON".
        let named = try #require(error(decoding: Data("hello world, not gzip".utf8), file: "/cassettes/x.har.gz"))
        #expect(named.reason.hasPrefix("is named .gz but is neither gzip-compressed nor JSON (it starts \"hello world, not") && named.place == "byte 0", "\(named)")
        // A .gz name over plain JSON still reads (some tools name their HAR so).
        #expect(error(decoding: har(goodEntry), file: "/cassettes/x.har.gz") == nil)
    }

    @Test("bad values: undecodable base64, a relative URL, an impossible status — entry errors with the field")
    func badValues() throws {
        let base64 = goodEntry.replacingOccurrences(of: #""text":"hi"}"#, with: #""text":"%%%","encoding":"base64"}"#)
        let failure = try #require(error(decoding: har(goodEntry + "," + goodEntry + "," + base64)))
        #expect(failure.kind == .entry && failure.place == "entry 2 (response.content.text)", "\(failure)")

        let relative = goodEntry.replacingOccurrences(of: "http://a.test/x", with: "/x")
        #expect(error(decoding: har(relative))?.place == "entry 0 (request.url)")

        let status = goodEntry.replacingOccurrences(of: #""status":200"#, with: #""status":1200"#)
        #expect(error(decoding: har(status))?.place == "entry 0 (response.status)")

        // Lenient: each bad entry is skipped with the same reason; the good ones replay.
        let lenient = try CassetteFile.decode(har([goodEntry, base64, relative, status, goodEntry].joined(separator: ",")), file: "x.har")
        #expect(lenient.interactions.map(\.index) == [0, 4])
        #expect(lenient.skipped.map(\.error.place) == ["entry 1 (response.content.text)", "entry 2 (request.url)", "entry 3 (response.status)"])
    }

    @Test("status 0 or -1 without a transport error is a recorded failure (a browser's blocked or aborted request), not bad input")
    func statusZeroIsAFailure() throws {
        let zero = goodEntry.replacingOccurrences(of: #""status":200"#, with: #""status":0"#)
        let aborted = goodEntry.replacingOccurrences(of: #""status":200"#, with: #""status":-1,"_failureText":"net::ERR_ABORTED""#)
        let cassette = try CassetteFile.decode(har(zero + "," + aborted), file: "x.har", strict: true)
        let failures = cassette.interactions.compactMap { interaction -> RecordedFailure? in
            if case let .failure(failure) = interaction.outcome { return failure }
            return nil
        }
        #expect(failures.map(\.code) == [URLError.unknown.rawValue, URLError.cancelled.rawValue])
        #expect(failures.map(\.message) == ["no response recorded (status 0)", "net::ERR_ABORTED"])
    }

    @Test("a gzip cassette that inflates past the limit is refused as bad input, before it fills memory")
    func inflationLimit() throws {
        let big = HARCodec.encode(try sampleCassette())
        let packed = try Zlib.compress(big, format: .gzip)
        #expect(try CassetteFile.decode(packed, file: "/c/ok.har.gz", maximumJSONSize: big.count).interactions.count == (try sampleCassette()).interactions.count)
        do {
            _ = try CassetteFile.decode(packed, file: "/c/bomb.har.gz", maximumJSONSize: big.count - 1)
            Issue.record("a cassette over the limit was read")
        } catch {
            #expect(error.kind == .compression && error.isBadInput)
            #expect(error.reason.contains("inflates to more than \(big.count - 1) bytes"))
        }
        let zeros = try Zlib.compress(Data(count: 10_000_000), format: .gzip)
        #expect(throws: ZlibError.self) { try Zlib.decompress(zeros, limit: 1_000_000) }
        #expect(try Zlib.decompress(zeros, limit: 10_000_000).count == 10_000_000)
    }

    @Test("an empty file and a missing file: bad input, not a crash")
    func emptyAndMissing() throws {
        #expect(error(decoding: Data())?.kind == .json)
        #expect(throws: CassetteError.self) { try CassetteFile.read(URL(fileURLWithPath: "/nonexistent/cassette.har")) }
        do {
            _ = try CassetteFile.read(URL(fileURLWithPath: "/nonexistent/cassette.har"))
        } catch {
            #expect(error.kind == .unreadable && error.isBadInput)
        }
    }

    @Test("fuzz: 3,000 mutated cassettes (flips, cuts, splices, plain and gzip) never crash or hang; lenient loading skips exactly the entries strict loading refuses")
    func fuzz() throws {
        var random = SeededGenerator(seed: 20261121)
        let plain = HARCodec.encode(try sampleCassette())
        let packed = try Zlib.compress(plain, format: .gzip)
        var outcomes = (read: 0, failed: 0, lenientEntryFailures: 0)
        for round in 0..<3_000 {
            var data = round.isMultiple(of: 2) ? plain : packed
            switch random.next(below: 5) {
            case 0:   // flip a few bits
                for _ in 0...random.next(below: 4) {
                    let at = random.next(below: data.count)
                    data[data.startIndex + at] ^= UInt8(1 << random.next(below: 8))
                }
            case 1:   // cut
                data = data.prefix(random.next(below: data.count))
            case 2:   // splice in random bytes
                let at = random.next(below: data.count)
                let noise = Data((0..<random.next(below: 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                data = data.prefix(at) + noise + data.suffix(from: data.startIndex + at)
            case 3:   // duplicate a slice (repeated keys, doubled members)
                let from = random.next(below: data.count)
                let length = random.next(below: min(200, data.count - from) + 1)
                data.append(data.subdata(in: data.startIndex + from..<data.startIndex + from + length))
            default:  // replace a JSON token with another type
                var text = String(decoding: plain, as: UTF8.self)
                let swaps = [("\"status\" : 200", "\"status\" : \"x\""), ("\"entries\" : [", "\"entries\" : {"),
                             ("\"time\" : ", "\"time\" : null, \"t\" : "), ("\"text\" : \"", "\"text\" : 1, \"u\" : \""),
                             ("\"wait\" : ", "\"wait\" : 1e300, \"w\" : "), ("\"send\" : ", "\"send\" : 9.3e12, \"s\" : "),
                             ("\"_index\" : ", "\"_index\" : 1e300, \"i\" : "), ("\"size\" : ", "\"size\" : -1e19, \"z\" : ")]
                let (from, to) = swaps[random.next(below: swaps.count)]
                text = text.replacingOccurrences(of: from, with: to)
                data = Data(text.utf8)
            }
            let lenient = Result { () throws(CassetteError) in try CassetteFile.decode(data, file: "fuzz-\(round)") }
            do {
                let strict = try CassetteFile.decode(data, file: "fuzz-\(round)", strict: true)
                outcomes.read += 1
                #expect(try lenient.get() == strict, "what strict loading reads, lenient loading reads alike")
            } catch {
                #expect(error.file == "fuzz-\(round)")
                outcomes.failed += 1
                switch lenient {
                case let .success(cassette):
                    // Only an entry's problem is survivable, and the first one skipped is the one strict refused.
                    #expect(error.kind == .entry, "\(error)")
                    #expect(cassette.skipped.first?.error == error)
                case let .failure(lenientError):
                    #expect(lenientError == error, "a whole-file problem is the same error either way")
                    if error.kind == .entry { outcomes.lenientEntryFailures += 1 }
                }
            }
        }
        #expect(outcomes.failed > 1_000, "the mutations were mostly fatal to strict loading, as they should be: \(outcomes)")
        #expect(outcomes.lenientEntryFailures == 0, "an entry's problem never fails lenient loading")
    }
}
