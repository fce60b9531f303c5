public import Foundation
import TapedeckHTTP

/// Turns cassettes into HAR JSON and back.
///
/// The writer is deterministic: keys sorted, entries in recording order, numbers printed the same
/// way every time, so re-recording the same traffic changes only timing fields (nothing at all with
/// ``WriteOptions/normalizesTimings``), and a changed response is a small diff.
public enum HARCodec {
    /// How a cassette is written.
    public struct WriteOptions: Hashable, Sendable {
        /// Write every start time as the epoch and every duration as zero.
        public var normalizesTimings: Bool
        /// Pretty-print (one field per line: small diffs). Journals write compact lines.
        public var prettyPrinted: Bool

        /// Options; by default real timings, pretty-printed.
        public init(normalizesTimings: Bool = false, prettyPrinted: Bool = true) {
            self.normalizesTimings = normalizesTimings
            self.prettyPrinted = prettyPrinted
        }
    }

    // MARK: writing

    /// The cassette as HAR JSON, deterministically (see the type's notes).
    public static func encode(_ cassette: Cassette, options: WriteOptions = WriteOptions()) -> Data {
        var whole = Data()
        HARFastWriter.encode(document(for: cassette, options: options), pretty: options.prettyPrinted, chunkSize: nil) { whole = $0 }
        return whole
    }

    /// ``encode(_:options:)`` in consecutive pieces of about `chunkSize` bytes.
    static func encode(_ cassette: Cassette, options: WriteOptions, chunkSize: Int, emit: (Data) -> Void) {
        HARFastWriter.encode(document(for: cassette, options: options), pretty: options.prettyPrinted, chunkSize: chunkSize, emit: emit)
    }

    /// The same document through Foundation's JSONEncoder: the reference the fast writer is
    /// tested against, and the baseline `tools/bench cassette` compares with.
    package static func encodeWithFoundation(_ cassette: Cassette, options: WriteOptions = WriteOptions()) -> Data {
        encodeJSON(document(for: cassette, options: options), pretty: options.prettyPrinted)
    }

    static func document(for cassette: Cassette, options: WriteOptions) -> HARDocument {
        // A stub matching by pattern (another tool's file read as it is) has no HAR form.
        let entries = cassette.interactions.filter { !$0.answersByPatternOnly }.map { entry(for: $0, options: options) }
        // Version 2 only where a reader of version 1 would go wrong (see Cassette.formatVersion).
        let needsTwo = entries.contains { $0.response.content.wire != nil || $0.request.postData?.encoding != nil }
        return HARDocument(log: HARLog(
            creator: HARCreator(name: cassette.creator, version: cassette.creatorVersion),
            entries: entries,
            tapedeck: HARTapedeckInfo(formatVersion: needsTwo ? 2 : 1)))
    }

    static func encodeJSON(_ value: some Encodable, pretty: Bool) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(value)
            if pretty { data.append(0x0A) }
            return data
        } catch {
            // Only strings, integers and finite doubles are encoded.
            preconditionFailure("tapedeck: HAR encoding failed: \(error)")
        }
    }

    // MARK: reading

    /// Parses HAR JSON. `file` names the source in errors. An entry that cannot become an
    /// interaction is skipped and listed in ``Cassette/skipped``; `strict` makes it an error instead.
    /// `attachments` is the directory that holds bodies a HAR names instead of embedding them
    /// (Playwright's `content: 'attach'`); without it such an entry is skipped.
    public static func decode(_ data: consuming Data, file: String, strict: Bool = false, attachments: URL? = nil) throws(CassetteError) -> Cassette {
        let document: HARDocument
        if let fast = HARFastReader.document(data) {
            document = fast
        } else {
            document = try decodeWithFoundation(data, file: file)
        }
        _ = consume data   // the JSON is no longer needed: free it before the bodies are copied out
        return try cassette(from: consume document, file: file, strict: strict, attachments: attachments)
    }

    /// The document through the fast reader alone (nil when it declines the input).
    package static func decodeFast(_ data: Data) -> HARDocument? {
        HARFastReader.document(data)
    }

    /// What part of a HAR file a JSON object without `log` is, by its keys: a single entry, a
    /// request, or a `log` object itself; nil when it is none of them.
    static func harPart(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        let keys = Set(object.keys)
        if keys.isSuperset(of: ["request", "response"]) { return "a single HAR entry (request and response)" }
        if keys.contains("entries") { return "a HAR log's fields (entries)" }
        if keys.isSuperset(of: ["method", "url"]) { return "a single HAR request (method and url)" }
        return nil
    }

    /// The document through Foundation's JSONDecoder: what the fast reader falls back to (for the
    /// exact error, or a lenient oddity it declines), and the baseline of the benchmark.
    package static func decodeWithFoundation(_ data: Data, file: String) throws(CassetteError) -> HARDocument {
        // Python's `json` (mitmproxy) escapes a byte that was not UTF-8 as a lone surrogate, which
        // Foundation refuses (costing the entry): read it as U+FFFD, as the fast reader does.
        let data = HARText.mendingLoneSurrogates(data) ?? data
        do {
            return try JSONDecoder().decode(HARDocument.self, from: data)
        } catch let error as DecodingError {
            if case let .dataCorrupted(context) = error, context.codingPath.isEmpty {
                throw syntaxError(data, file: file)
            }
            if case let .keyNotFound(key, context) = error, context.codingPath.isEmpty, key.stringValue == "log",
               let part = harPart(data) {
                throw CassetteError(.json, file: file, reason: "not a HAR file: it holds \(part), with no \"log\" around it",
                                    hint: "a HAR file is {\"log\": {\"version\": \"1.2\", \"creator\": {…}, \"entries\": [ENTRIES]}}; "
                                        + "wrap it so, or export the whole HAR from the tool")
            }
            throw decodingError(error, file: file)
        } catch {
            throw CassetteError(.json, file: file, reason: "not HAR JSON: \(error)", hint: "check that the file is a HAR export")
        }
    }

    /// A decoded document's interactions, after the version checks; entries that cannot become
    /// interactions are skipped (or, `strict`, fail the whole document).
    package static func cassette(
        from document: consuming HARDocument, file: String, strict: Bool = false, attachments: URL? = nil
    ) throws(CassetteError) -> Cassette {
        guard document.log.version.hasPrefix("1.") else {
            throw CassetteError(.version, file: file, place: "log.version", reason: document.log.version.isEmpty ? "the HAR version is empty" : "HAR version \(document.log.version) is not supported",
                                hint: "Tapedeck reads HAR 1.x")
        }
        if let format = document.log.tapedeck?.formatVersion, format > Cassette.formatVersion || format < 1 {
            throw CassetteError(.version, file: file, place: "log._tapedeck.formatVersion",
                                reason: "format version \(format) is not one this build reads (it reads 1...\(Cassette.formatVersion))",
                                hint: "update Tapedeck, or re-record the cassette")
        }
        // Each entry is released as soon as it is converted, so its body text and the body bytes
        // copied out of it are never all alive at once (peak memory of a load).
        var entries = document.log.entries
        document.log.entries = []
        let context = ReadContext(
            writer: document.log.tapedeck != nil ? .tapedeck : HARWriter(name: document.log.creator.name, version: document.log.creator.version),
            trustsIndex: document.log.tapedeck != nil || indicesAreUnique(entries))
        var interactions: [Interaction] = []
        var skipped: [SkippedEntry] = []
        var notes: [LoadNote] = []
        interactions.reserveCapacity(entries.count)
        for position in entries.indices {
            do {
                interactions.append(try interaction(from: entries[position], position: position, file: file, attachments: attachments,
                                                    context: context, notes: &notes))
            } catch {
                if strict { throw error }
                skipped.append(SkippedEntry(position: position, method: entries[position].request.method,
                                            url: entries[position].request.url, error: error))
            }
            entries[position] = released
        }
        var cassette = Cassette(interactions: interactions, creator: document.log.creator.name, creatorVersion: document.log.creator.version)
        cassette.skipped = skipped
        cassette.notes = collapsingUncaptured(notes)
        return cassette
    }

    /// How a note on a response body the writer did not capture begins (``collapsingUncaptured(_:)``).
    static let uncapturedNote = "the file has no text for this response's body, though it had one: the writer did not capture it "
        + "(Playwright's content: 'omit', BrowserMob without content capture, a browser's large or binary bodies), so it replays empty"

    /// `notes` with those on uncaptured bodies made one, on the first such entry, counting the
    /// others: a page's HAR without bodies would otherwise warn once per image.
    static func collapsingUncaptured(_ notes: [LoadNote]) -> [LoadNote] {
        let uncaptured = notes.indices.filter { notes[$0].field == "response.content" && notes[$0].text.hasPrefix(uncapturedNote) }
        guard uncaptured.count > 1 else { return notes }
        var kept = notes
        kept[uncaptured[0]].text += "; so do \(uncaptured.count - 1) more entr\(uncaptured.count == 2 ? "y" : "ies") of this file"
        for index in uncaptured.dropFirst().reversed() { kept.remove(at: index) }
        return kept
    }

    /// The total time, in milliseconds, that the HAR text `json` records for each interaction of
    /// `cassette`, which was read from it (in the cassette's order; nil where the entry gives
    /// none). It is the entry's `time` — blocked, dns, connect, send, wait and receive together —
    /// or, without one, the sum of those phases. An interaction's ``Interaction/timings`` keep only
    /// the phases a replay re-enacts (connect to receive), so for another tool's file they can add
    /// up to less (Charles: `time` 1047 with 562 ms of DNS). Empty when the text cannot be scanned
    /// or is not the cassette's.
    ///
    /// ```swift
    /// let json = try CassetteFile.jsonText(of: url)
    /// let times = HARCodec.recordedTimes(of: try CassetteFile.read(url), json: json)
    /// ```
    package static func recordedTimes(of cassette: Cassette, json: Data) -> [Double?] {
        guard let times = entryTimes(in: json) else { return [] }
        let skipped = Set(cassette.skipped.map(\.position))
        let positions = times.indices.filter { !skipped.contains($0) }
        guard positions.count == cassette.interactions.count else { return [] }
        return positions.map { times[$0] }
    }

    /// Each entry's total time in milliseconds, in file order (see ``recordedTimes(of:json:)``),
    /// by one scan over the text that builds nothing else; nil when the scanner declines the text.
    static func entryTimes(in json: Data) -> [Double?]? {
        json.withUnsafeBytes { raw -> [Double?]? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, !raw.isEmpty else { return nil }
            var cursor = JSONCursor(base: base, count: raw.count)
            cursor.acceptsLoneSurrogates = true
            cursor.skipByteOrderMark()
            var times: [Double?]?
            let scanned = cursor.object { cursor, key in
                guard key == "log" else { return cursor.skipQuickly() }
                return cursor.object { cursor, key in
                    guard key == "entries" else { return cursor.skipQuickly() }
                    var list: [Double?] = []
                    guard cursor.array({ cursor in
                        var time: Double?
                        guard entryTime(&cursor, into: &time) else { return false }
                        list.append(time)
                        return true
                    }) else { return false }
                    times = list
                    return true
                }
            }
            cursor.skipWhitespace()
            return scanned && cursor.atEnd ? times : nil
        }
    }

    /// One entry's `time`, else the sum of its timings' phases that apply (nil: neither).
    private static func entryTime(_ cursor: inout JSONCursor, into time: inout Double?) -> Bool {
        guard cursor.peek() == UInt8(ascii: "{") else { return cursor.skipQuickly() }
        var total: Double?
        var phases: Double?
        let phaseNames: Set<String> = ["blocked", "dns", "connect", "send", "wait", "receive"]   // ssl is inside connect
        guard cursor.object({ cursor, key in
            switch key {
            case "time":
                return number(&cursor, into: &total)
            case "timings":
                guard cursor.peek() == UInt8(ascii: "{") else { return cursor.skipQuickly() }
                return cursor.object { cursor, key in
                    guard phaseNames.contains(key) else { return cursor.skipQuickly() }
                    var value: Double?
                    guard number(&cursor, into: &value) else { return false }
                    if let value, value.isFinite, value >= 0 { phases = (phases ?? 0) + value }
                    return true
                }
            default:
                return cursor.skipQuickly()
            }
        }) else { return false }
        if let total, total.isFinite, total >= 0 { time = total } else { time = phases }
        return true
    }

    /// A number, or a string holding one; any other value is stepped over and leaves `value` nil.
    private static func number(_ cursor: inout JSONCursor, into value: inout Double?) -> Bool {
        var attempt = cursor
        if attempt.optionalLenientDouble(into: &value) {
            cursor = attempt
            return true
        }
        value = nil
        return cursor.skipQuickly()
    }

    /// Whether every readable entry has an `_index` and no two share one. Other tools write
    /// `_index` with their own meaning (WebPageTest numbers requests per page and run, so numbers
    /// repeat): it is the replay order only in Tapedeck's files (`log._tapedeck`) or when it
    /// orders the entries unambiguously; otherwise entries replay in file order.
    static func indicesAreUnique(_ entries: [HAREntry]) -> Bool {
        var seen = Set<Int>()
        for entry in entries where entry.unreadable == nil {
            guard let index = entry.index, seen.insert(index).inserted else { return false }
        }
        return true
    }

    private static let released = HAREntry(
        startedDateTime: "", time: 0, request: HARRequest(method: "", url: "", headers: [], queryString: [], postData: nil, bodySize: 0),
        response: HARResponse(status: 0, statusText: "", headers: [], content: HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
                              redirectURL: "", bodySize: 0),
        timings: HARTimings(send: 0, wait: 0, receive: 0), index: nil, error: nil)

    /// Invalid JSON: where the parser stopped (JSONDecoder does not say; JSONSerialization does).
    private static func syntaxError(_ data: Data, file: String) -> CassetteError {
        if Zlib.looksLikeGzip(data) {
            return CassetteError(.json, file: file, place: "byte 0", reason: "the HAR inside is gzip-compressed again (the file was compressed twice)",
                                 hint: "decompress it once (gunzip -c FILE > cassette.har.gz), or export it again")
        }
        // A `.gz` name over bytes that are neither gzip nor JSON: say both, not only "not JSON".
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if file.lowercased().hasSuffix(".gz"), let first, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            let start = String(decoding: data.prefix(16), as: UTF8.self).map { $0.isASCII && !$0.isNewline ? String($0) : "·" }.joined()
            return CassetteError(.json, file: file, place: "byte 0", reason: "is named .gz but is neither gzip-compressed nor JSON (it starts \"\(start)\")",
                                 hint: "a .har.gz cassette is a HAR file compressed with gzip: check that this is the file you meant")
        }
        var detail = "the parser rejected it"
        var place = ""
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        }
        var hint = "the file is damaged or cut; restore it or re-record"
        if Self.looksLikeJSON5(data, file: file) {
            hint = "it looks like JSON5 (keys without quotes, comments), as Talkback's tapes are written: a Talkback tape is read as it is "
                + "(`tapedeck cassette import --help`); any other JSON5 document is no cassette"
        }
        if let range = detail.range(of: #"character \d+"#, options: .regularExpression) {
            let offset = Int(detail[range].dropFirst("character ".count)) ?? 0
            let at = data.dropFirst(offset).prefix(9)
            if at.starts(with: Data("NaN".utf8)) || at.starts(with: Data("Infinity".utf8)) || at.starts(with: Data("-Infinity".utf8)) {
                hint = "NaN and Infinity are not JSON (Python's json.dump writes them unless allow_nan=False): replace them with null, or export the file again"
            }
            let prefix = data.prefix(offset)
            let line = prefix.count { $0 == 0x0A } + 1
            let column = offset - (prefix.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 } ?? 0) + 1
            place = "line \(line), column \(column)"
        } else if detail.lowercased().contains("end of file") {
            place = "end of file (byte \(data.count))"
        }
        // The place is given in lines and columns; Foundation's "around character N." repeats it.
        if !place.isEmpty, let around = detail.range(of: #"\s*around (line \d+, column \d+|character \d+)\.?"#, options: .regularExpression) {
            detail.removeSubrange(around)
        }
        if detail.contains("Too many nested") {
            hint = "the file nests arrays or objects deeper than a JSON reader takes (512 levels), perhaps in a field Tapedeck does not read "
                + "(an initiator's stack): remove that field, or export the file again without it"
        }
        return CassetteError(.json, file: file, place: place, reason: "not valid JSON: \(detail)", hint: hint)
    }

    private static func decodingError(_ error: DecodingError, file: String) -> CassetteError {
        func place(_ path: [any CodingKey]) -> String {
            var entry: Int?
            var field: [String] = []
            for (position, key) in path.enumerated() {
                if position == 2, path[1].stringValue == "entries", let index = key.intValue {
                    entry = index
                } else if let index = key.intValue {
                    field.append("[\(index)]")
                } else {
                    field.append((field.isEmpty ? "" : ".") + key.stringValue)
                }
            }
            let joined = field.joined()
            if let entry {
                let inside = joined.hasPrefix("log.entries") ? String(joined.dropFirst("log.entries".count)) : joined
                return "entry \(entry)" + (inside.isEmpty ? "" : " (\(inside.drop { $0 == "." }))")
            }
            return joined
        }
        switch error {
        case let .dataCorrupted(context) where context.codingPath.isEmpty:
            let detail = context.underlyingError.map { "\($0)" } ?? context.debugDescription
            return CassetteError(.json, file: file, reason: "not valid JSON: \(detail)", hint: "the file is damaged; restore it or re-record")
        case let .dataCorrupted(context):
            return CassetteError(.json, file: file, place: place(context.codingPath), reason: context.debugDescription)
        case let .keyNotFound(key, context):
            return CassetteError(.json, file: file, place: place(context.codingPath + [key]), reason: "the required field '\(key.stringValue)' is missing",
                                 hint: "HAR 1.2 requires it; was the file cut or edited by hand?")
        case let .typeMismatch(type, context) where context.codingPath.isEmpty:
            // The whole document is the wrong kind of JSON: not a HAR file at all.
            return CassetteError(.json, file: file, reason: "not a HAR file: \(LenientEntry.typeMismatch(type, context)) at its top",
                                 hint: "a HAR file is one JSON object holding \"log\": {\"entries\": [...]}; export one from a browser or proxy, or record it")
        case let .typeMismatch(type, context):
            return CassetteError(.json, file: file, place: place(context.codingPath), reason: LenientEntry.typeMismatch(type, context))
        case let .valueNotFound(type, context):
            return CassetteError(.json, file: file, place: place(context.codingPath), reason: "expected \(LenientEntry.kind(type)), found null")
        @unknown default:
            return CassetteError(.json, file: file, reason: "\(error)")
        }
    }
}

extension HARCodec {
    /// Whether a document that is not JSON reads like JSON5: named `.json5`, or an object with a
    /// line that starts with a key without quotes or a `//` comment (a JSON string cannot hold a
    /// line break, so no text inside one starts a line).
    static func looksLikeJSON5(_ data: Data, file: String) -> Bool {
        if file.lowercased().hasSuffix(".json5") { return true }
        guard data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else { return false }
        let text = String(decoding: data.prefix(4_096), as: UTF8.self)
        return text.range(of: #"(?m)^\s*([A-Za-z_$][A-Za-z0-9_$]*\s*:|//)"#, options: .regularExpression) != nil
    }
}
