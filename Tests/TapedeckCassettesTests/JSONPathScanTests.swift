import Foundation
import TapedeckCassettes
import Testing

/// The one-pass path scan must find what a full parse finds, or decline and leave the document to
/// the full parser: never a value from a document that is not JSON.
@Suite("JSON path scan: the value a full parse finds, or a decline")
struct JSONPathScanTests {
    private static let documents = [
        #"{"id":1,"name":"Ada","items":[{"id":7},{"id":8,"tags":["a","b"]}],"nested":{"deep":{"x":null}}}"#,
        #"  [ {"day": 1, "v": 1.5}, {"day": 2, "v": -0.25e2}, {"day": 3, "v": true} ]  "#,
        #"{"text":"caf\u00e9 \ud83d\ude00 \"quoted\" \n","empty":{},"none":[],"f":false,"plain":"é"}"#,
        "42",
        #""a fragment""#,
    ]

    /// Every path the full parse can follow, and a few it cannot, in `value`.
    private static func paths(in value: Any, prefix: [JSONPathStep] = []) -> [[JSONPathStep]] {
        var all = [prefix, prefix + [.key("absent")], prefix + [.index(99)]]
        if let object = value as? [String: Any] {
            for (key, child) in object { all += paths(in: child, prefix: prefix + [.key(key)]) }
        } else if let array = value as? [Any] {
            for (index, child) in array.enumerated() { all += paths(in: child, prefix: prefix + [.index(index)]) }
        }
        return all
    }

    /// What a full parse finds at `path`, as canonical JSON text.
    private static func parsed(_ path: [JSONPathStep], in document: Any) -> String? {
        var current = document
        for step in path {
            switch step {
            case let .key(key):
                guard let next = (current as? [String: Any])?[key] else { return nil }
                current = next
            case let .index(index):
                guard let array = current as? [Any], array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return canonical(current)
    }

    private static func canonical(_ value: Any) -> String? {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("every path of valid documents: the scan's value parses to what the full parse finds", arguments: documents)
    func agreesWithFullParse(_ text: String) throws {
        let body = Data(text.utf8)
        let document = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        for path in Self.paths(in: document) {
            let expected = Self.parsed(path, in: document)
            switch JSONPathScan.find(path, in: body) {
            case let .value(range):
                let slice = try JSONSerialization.jsonObject(with: body.subdata(in: range), options: [.fragmentsAllowed])
                #expect(Self.canonical(slice) == expected, "\(path)")
            case .missing:
                #expect(expected == nil, "\(path) was found by the full parse")
            case .declined:
                Issue.record("declined a valid document at \(path)")
            }
        }
    }

    @Test("a cut, padded or otherwise broken document is declined, even where the path's value came before the break")
    func brokenDocumentsAreDeclined() {
        let path: [JSONPathStep] = [.index(0), .key("day")]
        let whole = #"[{"day":1},{"day":2}]"#
        #expect(JSONPathScan.find(path, in: Data(whole.utf8)) == .value(8..<9))
        for broken in [String(whole.dropLast()), String(whole.prefix(14)), whole + " x", whole + whole, "", "   ", #"[{"day":01}]"#] {
            #expect(JSONPathScan.find(path, in: Data(broken.utf8)) == .declined, "\(broken)")
        }
    }

    @Test("what the scanner is stricter about than a parser (a repeated key on the path, a byte order mark) is declined, not judged")
    func stricterThanAParserDeclines() {
        #expect(JSONPathScan.find([.key("a")], in: Data(#"{"a":1,"a":2}"#.utf8)) == .declined)
        #expect(JSONPathScan.find([.key("a")], in: Data([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8))) == .declined)
        // Off the path a repeated key is no question (a parser takes the document), so it is found.
        let skipped = #"{"skip":{"a":1,"a":2},"want":3}"#
        #expect(JSONPathScan.find([.key("want")], in: Data(skipped.utf8)) == .value(29..<30))
    }

    @Test("what is not JSON in a part the path skips (a raw control character, invalid UTF-8, a bad escape) is declined")
    func skippedPartsAreStillChecked() {
        let path: [JSONPathStep] = [.key("want")]
        let broken: [[UInt8]] = [
            Array(#"{"skip":"a"#.utf8) + [0x0A] + Array(#"b","want":1}"#.utf8),
            Array(#"{"skip":""#.utf8) + [0xC3, 0x28] + Array(#"","want":1}"#.utf8),
            Array(#"{"skip":"\q","want":1}"#.utf8),
            Array(#"{"want":1,"skip":["\ud800"]}"#.utf8),
        ]
        for bytes in broken {
            #expect(JSONPathScan.find(path, in: Data(bytes)) == .declined, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(JSONPathScan.find(path, in: Data(#"{"skip":"caf\u00e9 é","want":1}"#.utf8)) == .value(30..<31))
    }

    @Test("a step into a value of another kind is missing, and the rest of the document is still checked")
    func stepIntoAnotherKind() {
        #expect(JSONPathScan.find([.key("a"), .index(0)], in: Data(#"{"a":{"0":1}}"#.utf8)) == .missing)
        #expect(JSONPathScan.find([.index(0), .key("a")], in: Data(#"[[1],{"a":1}]"#.utf8)) == .missing)
        #expect(JSONPathScan.find([.key("a"), .key("b")], in: Data(#"{"a":5,"c":[1,}"#.utf8)) == .declined)
    }
}
