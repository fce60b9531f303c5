import Foundation
import Testing
@testable import TapedeckCassettes
import TapedeckHTTP

/// Talkback (Node.js) tapes, written here in the shape its TapeRenderer writes them (JSON5), and
/// the JSON5 reading under them.
@Suite("Cassettes: Talkback tapes and JSON5")
struct TalkbackTests {
    @Test("JSON5 is read as JSON5: keys without quotes, single quotes and their escapes, comments, trailing commas, JSON5's numbers")
    func json5() throws {
        let text = """
        // a comment first
        {
            unquoted: 'it\\'s "quoted"',   /* a block comment */
            $dollar_1: 'tab\\there, \\x41, line \\
        continued',
            numbers: [+1, 0x1F, .5, 5., -2e3, Infinity,],
            nested: {yes: true, no: false, nothing: null,},
        }
        """
        let data = try #require(JSON5Text.json(from: Data(text.utf8)))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["unquoted"] as? String == #"it's "quoted""#)
        #expect(object["$dollar_1"] as? String == "tab\there, A, line continued")
        #expect((object["numbers"] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } == [1, 31, 0.5, 5, -2000])
        #expect((object["nested"] as? [String: Any])?["yes"] as? Bool == true)
        #expect(JSON5Text.json(from: Data("{a: 'never ends}".utf8)) == nil)
    }

    @Test("a human-readable tape: origin and path, list-valued headers, a JSON body kept as its value with its Content-Length made its own; a base64 tape; resUncompressed")
    func tapes() throws {
        let readable = """
        // This file is in JSON5 format, so it can have comments
        {
            meta: {
                createdAt: '2026-11-28T10:00:00.000Z',
                host: 'https://api.example.test',
                reqHumanReadable: true,
                resHumanReadable: true,
                latency: 120,
            },
            req: {
                url: '/users/ada?expand=1',
                method: 'POST',
                headers: {accept: 'application/json', 'content-type': 'application/json'},
                body: '{"name":"ada"}',
            },
            res: {
                status: 201,
                headers: {'content-type': ['application/json; charset=utf-8'], 'content-length': ['999'], 'x-multi': ['a', 'b']},
                body: {id: 7, name: 'ada', bio: "Let's code!\\r\\n"},
            },
        }
        """
        let reading = try ForeignCassette.load(Data(readable.utf8), file: "user.json5")
        #expect(reading.format == .talkback)
        let interaction = try #require(reading.cassette.interactions.first)
        #expect(interaction.request.method == "POST" && interaction.request.url.absoluteString == "https://api.example.test/users/ada?expand=1")
        #expect(interaction.request.body == Data(#"{"name":"ada"}"#.utf8))
        let response = try #require(interaction.response)
        #expect(response.status == 201 && response.headers.filter { $0.name == "x-multi" }.map(\.value) == ["a", "b"])
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(json["name"] as? String == "ada" && json["bio"] as? String == "Let's code!\r\n")
        #expect(response.headers.value(for: "Content-Length") == String(response.body.count))
        #expect(interaction.timings?.wait == .milliseconds(120))

        let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let opaque = "{meta: {host: 'http://img.test'}, req: {url: '/a.png', method: 'GET', headers: {}, body: ''},"
            + " res: {status: 200, headers: {'content-type': ['image/png']}, body: '\(binary.base64EncodedString())'}}"
        #expect(try ForeignCassette.load(Data(opaque.utf8), file: "a.json5").cassette.interactions.first?.response?.body == binary)

        let plain = "{meta: {host: 'https://api.test', resHumanReadable: true, resUncompressed: true}, req: {url: '/z', method: 'GET'},"
            + " res: {status: 200, headers: {'content-encoding': ['gzip'], 'content-type': ['text/plain']}, body: 'hello'}}"
        let decoded = try #require(try ForeignCassette.load(Data(plain.utf8), file: "z.json5").cassette.interactions.first?.response)
        #expect(decoded.body == Data("hello".utf8) && decoded.bodyForm == .decoded)
    }
}
