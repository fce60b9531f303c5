import Foundation

/// Who wrote a HAR file, as far as reading its bodies depends on it.
struct HARWriter: Hashable, Sendable {
    /// `log.creator.name`.
    var name: String
    /// `log.creator.version`.
    var version: String
    /// Tapedeck wrote the file (`log._tapedeck`, or a journal): a body's text is always its bytes
    /// as UTF-8 (anything else was written as base64), whatever charset the message names.
    var isTapedeck = false

    /// Tapedeck's own writer (and a journal's entries).
    static let tapedeck = HARWriter(name: "tapedeck", version: Cassette.currentToolVersion, isTapedeck: true)

    var isMitmproxy: Bool { name.lowercased() == "mitmproxy" }

    /// The version's leading numbers (`"12.2.1"` → [12, 2, 1]); missing parts count as 0.
    func versionAtLeast(_ wanted: [Int]) -> Bool {
        let parts = version.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
        for (position, number) in wanted.enumerated() {
            let have = position < parts.count ? parts[position] : 0
            if have != number { return have > number }
        }
        return true
    }
}

/// How a HAR body's `text` becomes bytes. HAR `text` holds characters, not bytes: the writer
/// decoded the body with some character set, and replay must encode it back with the same one.
///
/// Tapedeck's own files store text only for UTF-8 bodies, so their text is always UTF-8. For
/// other writers:
///
/// 1. A `charset=` in the message's `Content-Type` (else the HAR `mimeType`) is used: UTF-8, the
///    Latin-1 family (with windows-1252's characters for 0x80–0x9F, as browsers decode
///    `iso-8859-1`), UTF-16/32, ISO-8859-2, windows-1250/1251/1253/1254, Shift_JIS, EUC-JP and
///    ISO-2022-JP. Another charset, or text that charset cannot hold, is encoded as UTF-8 with a
///    note (after rule 2).
/// 2. Without a charset that settles it (none, or one this list lacks), in a file not written by
///    mitmproxy, the sizes the file records for the body decide when they can: text whose UTF-8
///    is not as long as any of them, but whose Latin-1 bytes (one per character, windows-1252's
///    characters included) are exactly as long as one, is those Latin-1 bytes, with a note. The
///    writer decoded the body one byte per character: Firefox stores an unlabelled page that way,
///    and Firebug stored UTF-8 scripts as mojibake (`C2 A0` as `Â` and a no-break space). The
///    sizes that count the bytes that travelled (`Content-Length`, a response's `bodySize`, with
///    no content coding) outrank a `content.size` the writer worked out from its own text:
///    Playwright records the UTF-8 length of what Chromium decoded as windows-1252.
///    Sizes that agree with UTF-8 and not with Latin-1 (and no charset) settle UTF-8: Chromium
///    records a multipart upload holding `café` as text with its UTF-8 size. No sizes (absent,
///    -1), or sizes that agree with neither, change nothing.
/// 3. Without a charset, text that is ASCII, or holds a character above U+00FF, is UTF-8.
/// 4. Otherwise (characters U+0080–U+00FF only) the text is ambiguous: UTF-8 and Latin-1 give
///    different bytes.
///    - mitmproxy's files follow mitmproxy's own rule (`infer_content_encoding`): UTF-8 for JSON
///      (and, from 12.2.1 on, for HTML, XML, JavaScript and CSS), a `<meta charset>` or
///      `@charset` the body names, else Latin-1 — the same bytes mitmproxy would write back.
///    - A non-text type (`application/octet-stream`, images, `multipart/*`…) is Latin-1: a text
///      of such a body is one character per byte (mitmproxy's fallback, Firefox's binary strings).
///      A note says it was a guess.
///    - No type at all: Latin-1 when the Latin-1 bytes are UTF-8 with multi-byte sequences (text
///      that was UTF-8 read as Latin-1), with a note; else UTF-8.
///    - A text type (browsers decode those by charset, UTF-8 by default) is UTF-8.
enum HARBodyText {
    /// A size the file records for a body, in bytes, and the field that says so.
    struct RecordedSize: Hashable, Sendable {
        /// The size in bytes.
        var bytes: Int
        /// Where the file gives it (`content.size`, `the Content-Length header`).
        var source: String
        /// Whether it counts the bytes that travelled (a `Content-Length` or a response's
        /// `bodySize`, with no content coding), not a length the writer worked out from its text.
        var travelled = false
    }

    /// The bytes of `text`, for a message whose `Content-Type` (or HAR `mimeType`) is `contentType`,
    /// and a note when they rest on a guess. `sizes` are the body's sizes the file records (rule 2).
    static func bytes(_ text: String, contentType: String, writer: HARWriter, sizes: [RecordedSize] = []) -> (data: Data, note: String?) {
        if writer.isTapedeck { return (Data(text.utf8), nil) }
        if let bytes = escapedBytes(text) { return (bytes, nil) }
        let scan = Scan(text)
        let label = charset(in: contentType)
        if let label, isKnown(label) {
            return encode(text, label: label, scan: scan)
        }
        guard scan.hasNonASCII else { return (Data(text.utf8), nil) }
        if !writer.isMitmproxy, let read = latin1BySize(text, sizes: sizes, label: label) {
            return read
        }
        if !writer.isMitmproxy, label == nil, sizesSayUTF8(text, sizes: sizes) {
            return (Data(text.utf8), nil)
        }
        if let label {
            return encode(text, label: label, scan: scan)
        }
        guard !scan.hasAboveLatin1 else { return (Data(text.utf8), nil) }
        let type = essence(contentType)
        if writer.isMitmproxy {
            let label = mitmproxyCharset(type: type, text: text, writer: writer)
            return encode(text, label: label, scan: scan)
        }
        if !type.isEmpty && !isTextual(type) {
            return (latin1(text) ?? Data(text.utf8),
                    "the text of this '\(type)' body has characters U+0080–U+00FF and no charset: read as Latin-1, one byte per "
                        + "character (how tools store such bodies as text); if it was UTF-8 text, add a charset to its Content-Type")
        }
        if type.isEmpty, let bytes = latin1(text), String(validating: bytes, as: UTF8.self) != nil {
            return (bytes, "the text has no type or charset and reads as UTF-8 that was decoded as Latin-1: its Latin-1 bytes are "
                        + "used; if that is wrong, add a Content-Type with a charset")
        }
        return (Data(text.utf8), nil)
    }

    /// The bytes of a text that was UTF-8 with bytes that were not, as mitmproxy writes it (each
    /// such byte a lone surrogate escape, read as the character standing for it: see
    /// ``JSONCursor/keepsEscapedBytes``): UTF-8 for the rest, each escaped byte as it was. Nil
    /// when the text holds none.
    static func escapedBytes(_ text: String) -> Data? {
        let base = JSONCursor.escapedByteBase
        // Each such character is four UTF-8 bytes starting 0xF4 (plane 16): most texts have none,
        // and are passed over at the speed of a byte search.
        guard text.utf8.contains(0xF4), text.unicodeScalars.contains(where: { $0.value >= base + 0x80 && $0.value <= base + 0xFF }) else { return nil }
        var bytes = Data(capacity: text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value >= base + 0x80, scalar.value <= base + 0xFF {
                bytes.append(UInt8(scalar.value - base))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// A header value as the server sent it. Header values are bytes; Chromium (and so
    /// Playwright) stores them one character per byte as windows-1252 decodes them, Python's
    /// `http.client` as Latin-1, so a UTF-8 `filename="café.txt"` or `Location: /päth` lands in
    /// the file as `cafÃ©` and `/pÃ¤th`, and a replay sending those characters as UTF-8 would
    /// double-encode them (a redirect would then miss). When every character of a non-ASCII value
    /// is one such byte and the bytes are UTF-8, the value is that UTF-8 text. mitmproxy and
    /// Tapedeck store the characters themselves: their values are kept as they are.
    static func headerValue(_ value: String, writer: HARWriter) -> String {
        guard !writer.isTapedeck, !writer.isMitmproxy, value.utf8.contains(where: { $0 >= 0x80 }),
              let bytes = latin1(value), let text = String(validating: bytes, as: UTF8.self) else { return value }
        return text
    }

    /// The text's Latin-1 bytes when the recorded sizes say the writer decoded the body one byte
    /// per character: no size is the UTF-8 length, and one is the Latin-1 length. Nil otherwise.
    static func latin1BySize(_ text: String, sizes: [RecordedSize], label: String?) -> (data: Data, note: String)? {
        var sizes = sizes.filter { $0.bytes > 0 }
        let utf8Count = text.utf8.count
        let characters = text.unicodeScalars.count
        // The bytes that travelled outrank a size the writer worked out from its own text:
        // Playwright records the UTF-8 length of what Chromium decoded as windows-1252.
        let travelled = sizes.filter(\.travelled)
        if sizes.contains(where: { $0.bytes == utf8Count }), travelled.contains(where: { $0.bytes == characters }),
           !travelled.contains(where: { $0.bytes == utf8Count }) { sizes = travelled }
        guard !sizes.isEmpty, !sizes.contains(where: { $0.bytes == utf8Count }) else { return nil }
        guard let size = sizes.first(where: { $0.bytes == characters }), let bytes = latin1(text) else { return nil }
        let charset = label.map { "a charset Tapedeck does not know (\($0))" } ?? "no charset"
        return (bytes, "read as Latin-1: the text has \(charset) and is \(utf8Count) bytes as UTF-8, but \(size.source) records "
                    + "\(size.bytes) bytes, the length of its Latin-1 bytes (one per character), so the writer decoded the body as "
                    + "Latin-1 and those bytes are used; if that is wrong, add a charset to the Content-Type")
    }

    /// Whether the recorded sizes say the body was UTF-8: one is the text's UTF-8 length and none
    /// its Latin-1 length (one byte per character). Chromium writes a multipart upload with
    /// `café` as text and its UTF-8 size; read as Latin-1 it would be a byte short.
    static func sizesSayUTF8(_ text: String, sizes: [RecordedSize]) -> Bool {
        let sizes = sizes.filter { $0.bytes > 0 }
        let characters = text.unicodeScalars.count
        return sizes.contains { $0.bytes == text.utf8.count } && !sizes.contains { $0.bytes == characters }
    }

    /// What one pass over the text's UTF-8 found.
    struct Scan {
        /// A character outside ASCII.
        var hasNonASCII = false
        /// A character above U+00FF (so the text cannot be Latin-1 decoded bytes).
        var hasAboveLatin1 = false

        init(_ text: String) {
            var copy = text
            (hasNonASCII, hasAboveLatin1) = copy.withUTF8 { bytes in
                var nonASCII = false
                for byte in bytes where byte >= 0x80 {
                    nonASCII = true
                    // Lead bytes from 0xC4 start characters above U+00FF (continuations are 0x80–0xBF).
                    if byte >= 0xC4 { return (true, true) }
                }
                return (nonASCII, false)
            }
        }
    }

    /// The `charset` parameter of a media type, lower-cased and unquoted (nil when absent).
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")).lowercased()
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The media type without parameters, lower-cased (`text/html`).
    /// A byte loop: it runs for every recorded response, where `trimmingCharacters(in:)` went
    /// through `NSString` (a few per cent of `tapedeck record`'s time under load).
    static func essence(_ contentType: String) -> String {
        var utf8 = contentType.utf8[...]
        if let semicolon = utf8.firstIndex(of: UInt8(ascii: ";")) { utf8 = utf8[..<semicolon] }
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        while let first = utf8.first, blank(first) { utf8 = utf8.dropFirst() }
        while let last = utf8.last, blank(last) { utf8 = utf8.dropLast() }
        return String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Types whose bodies are text that a browser decodes by charset.
    static func isTextual(_ type: String) -> Bool {
        type.hasPrefix("text/") || ["json", "xml", "javascript", "ecmascript", "html", "css", "x-www-form-urlencoded", "graphql",
                                    "yaml", "csv", "svg"].contains { type.contains($0) }
    }

    // MARK: encoders

    private static let utf8Labels: Set<String> = ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"]
    /// Labels browsers decode as windows-1252 (WHATWG), which mitmproxy decodes as Latin-1.
    private static let latin1Labels: Set<String> = [
        "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "iso_8859-1:1987", "iso-ir-100", "latin1", "latin-1", "l1", "cp819",
        "ibm819", "csisolatin1", "us-ascii", "ascii", "ansi_x3.4-1968", "windows-1252", "cp1252", "x-cp1252",
    ]
    private static let foundationLabels: [String: String.Encoding] = [
        "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian,
        "utf-32": .utf32, "utf-32le": .utf32LittleEndian, "utf-32be": .utf32BigEndian,
        "iso-8859-2": .isoLatin2, "iso8859-2": .isoLatin2, "latin2": .isoLatin2, "l2": .isoLatin2,
        "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250, "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251,
        "windows-1253": .windowsCP1253, "cp1253": .windowsCP1253, "windows-1254": .windowsCP1254, "cp1254": .windowsCP1254,
        "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "windows-31j": .shiftJIS, "ms_kanji": .shiftJIS,
        "euc-jp": .japaneseEUC, "iso-2022-jp": .iso2022JP,
    ]

    /// The bytes of a body another tool attached in a file beside the HAR, when the file holds the
    /// body's text as UTF-8 rather than the bytes sent: Playwright (`content: 'attach'`) writes a
    /// text body as Chromium decoded it, so a body sent as `iso-8859-1` lands in the file as UTF-8.
    /// Nil (the file's bytes are the body) unless the `Content-Type` names a charset other than
    /// UTF-8 that this reader encodes, the file is UTF-8 with non-ASCII characters, and the
    /// `Content-Length` (when the body was not compressed on the wire) disagrees with the file and
    /// agrees with the re-encoded text.
    static func attachedText(_ data: Data, contentType: String, contentLength: Int?, compressed: Bool) -> Data? {
        guard let label = charset(in: contentType), isKnown(label), !utf8Labels.contains(label) else { return nil }
        if !compressed, let contentLength, contentLength == data.count { return nil }
        guard let text = String(validating: data, as: UTF8.self) else { return nil }
        let scan = Scan(text)
        guard scan.hasNonASCII else { return nil }
        let encoded = encode(text, label: label, scan: scan)
        guard encoded.note == nil else { return nil }
        if !compressed, let contentLength, contentLength != encoded.data.count { return nil }
        return encoded.data
    }

    /// `text` as the bytes of charset `label` (any case), with a note where the charset cannot hold
    /// it; nil for a charset this reader does not encode. (Other tools' cassettes that keep a body
    /// as text with the charset it was decoded with: VCR, Betamax.)
    static func bytes(_ text: String, inCharset label: String) -> (data: Data, note: String?)? {
        let label = label.lowercased()
        guard isKnown(label) else { return nil }
        return encode(text, label: label, scan: Scan(text))
    }

    /// Whether `label` is a charset ``encode(_:label:scan:)`` encodes (else the text is UTF-8 with a note).
    private static func isKnown(_ label: String) -> Bool {
        utf8Labels.contains(label) || latin1Labels.contains(label) || foundationLabels[label] != nil
    }

    private static func encode(_ text: String, label: String, scan: Scan) -> (data: Data, note: String?) {
        if utf8Labels.contains(label) { return (Data(text.utf8), nil) }
        if latin1Labels.contains(label) {
            if !scan.hasNonASCII { return (Data(text.utf8), nil) }
            if let bytes = latin1(text) { return (bytes, nil) }
            return (Data(text.utf8), "the text has characters charset \(label) cannot hold: encoded as UTF-8")
        }
        if let encoding = foundationLabels[label] {
            if let bytes = text.data(using: encoding) { return (bytes, nil) }
            return (Data(text.utf8), "the text has characters charset \(label) cannot hold: encoded as UTF-8")
        }
        // A charset this build cannot encode: ASCII text is the same in every ASCII-based charset.
        if !scan.hasNonASCII { return (Data(text.utf8), nil) }
        return (Data(text.utf8), "charset \(label) is not one Tapedeck encodes: the text is stored as UTF-8, so its non-ASCII "
                    + "characters replay as other bytes than were sent")
    }

    /// Latin-1 (and windows-1252 for the characters it puts at 0x80–0x9F): one byte per
    /// character; nil when a character has no byte.
    static func latin1(_ text: String) -> Data? {
        var bytes = Data()
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x100 {
                bytes.append(UInt8(scalar.value))
            } else if let byte = windows1252[scalar.value] {
                bytes.append(byte)
            } else {
                return nil
            }
        }
        return bytes
    }

    /// The characters windows-1252 puts at 0x80–0x9F, where Latin-1 has control codes.
    private static let windows1252: [UInt32: UInt8] = [
        0x20AC: 0x80, 0x201A: 0x82, 0x0192: 0x83, 0x201E: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87, 0x02C6: 0x88,
        0x2030: 0x89, 0x0160: 0x8A, 0x2039: 0x8B, 0x0152: 0x8C, 0x017D: 0x8E, 0x2018: 0x91, 0x2019: 0x92, 0x201C: 0x93,
        0x201D: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02DC: 0x98, 0x2122: 0x99, 0x0161: 0x9A, 0x203A: 0x9B,
        0x0153: 0x9C, 0x017E: 0x9E, 0x0178: 0x9F,
    ]

    // MARK: mitmproxy

    /// The charset mitmproxy decoded a body of `type` with when its Content-Type named none.
    static func mitmproxyCharset(type: String, text: String, writer: HARWriter) -> String {
        if type.contains("json") { return "utf-8" }
        if type.contains("html"), let named = markupCharset(text) { return named }
        if type.contains("text/css"), let named = cssCharset(text) { return named }
        // 12.2.1 (November 2025) made UTF-8 the fallback for these types.
        if writer.versionAtLeast([12, 2, 1]),
           ["html", "xml", "javascript", "ecmascript", "text/css"].contains(where: type.contains) {
            return "utf-8"
        }
        return "latin-1"
    }

    /// `<meta ... charset=NAME` in an HTML text (the first one).
    private static func markupCharset(_ text: String) -> String? {
        let lower = text.prefix(65_536).lowercased()
        var rest = lower[...]
        while let tag = rest.range(of: "<meta") {
            let inside = rest[tag.upperBound...].prefix { $0 != ">" }
            if let found = inside.range(of: "charset=") {
                let name = inside[found.upperBound...].drop { $0 == "\"" || $0 == "'" }.prefix { !"\"'> ;/".contains($0) }
                if !name.isEmpty { return String(name) }
            }
            rest = rest[tag.upperBound...]
        }
        return nil
    }

    /// `@charset "NAME";` at the very start of a CSS text.
    private static func cssCharset(_ text: String) -> String? {
        let head = text.prefix(128).lowercased()
        guard head.hasPrefix("@charset \"") else { return nil }
        let name = head.dropFirst("@charset \"".count).prefix { $0 != "\"" }
        return name.isEmpty ? nil : String(name)
    }
}
