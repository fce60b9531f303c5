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
        HARDocument(log: HARLog(
            creator: HARCreator(name: cassette.creator, version: cassette.creatorVersion),
            entries: cassette.interactions.map { entry(for: $0, options: options) },
            tapedeck: HARTapedeckInfo(formatVersion: Cassette.formatVersion)))
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

    package static func entry(for interaction: Interaction, options: WriteOptions = WriteOptions()) -> HAREntry {
        let request = interaction.request
        var postData: HARPostData?
        if let body = request.body, !body.isEmpty {
            let (text, encoding) = bodyText(body, preferBase64: false)
            postData = HARPostData(mimeType: request.headers.value(for: "Content-Type") ?? "", text: text, encoding: encoding)
        }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let harRequest = HARRequest(
            method: request.method, url: request.url.absoluteString,
            headers: request.headers.map { HARNameValue(name: $0.name, value: $0.value) },
            queryString: query.map { HARNameValue(name: $0.name, value: $0.value ?? "") },
            postData: postData, bodySize: request.body?.count ?? 0)

        let harResponse: HARResponse
        var transportError: HARTransportError?
        switch interaction.outcome {
        case let .response(response):
            let encoded = response.bodyForm == .wire && ContentCoding.isDecodable(response.headers.value(for: "Content-Encoding"))
            let (text, encoding) = response.body.isEmpty ? (nil, nil) : bodyText(response.body, preferBase64: encoded)
            harResponse = HARResponse(
                status: response.status, statusText: response.statusText,
                headers: response.headers.map { HARNameValue(name: $0.name, value: $0.value) },
                content: HARContent(size: response.body.count, mimeType: response.headers.value(for: "Content-Type") ?? "",
                                    text: text, encoding: encoding, bodyForm: response.bodyForm.rawValue),
                redirectURL: response.headers.value(for: "Location") ?? "", bodySize: response.body.count)
        case let .failure(failure):
            harResponse = HARResponse(status: 0, statusText: "", headers: [],
                                      content: HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
                                      redirectURL: "", bodySize: -1)
            transportError = HARTransportError(code: failure.code, domain: failure.domain, message: failure.message)
        }

        let timings = options.normalizesTimings ? nil : interaction.timings
        let harTimings = HARTimings(
            connect: timings?.connect.map(milliseconds) ?? -1,
            send: timings.map { milliseconds($0.send) } ?? 0,
            wait: timings.map { milliseconds($0.wait) } ?? 0,
            receive: timings.map { milliseconds($0.receive) } ?? 0)
        let total = [harTimings.connect ?? -1, harTimings.send, harTimings.wait, harTimings.receive].filter { $0 > 0 }.reduce(0, +)
        return HAREntry(
            startedDateTime: options.normalizesTimings ? "1970-01-01T00:00:00.000Z" : interaction.startedDateTime,
            time: (total * 1_000).rounded() / 1_000, request: harRequest, response: harResponse, timings: harTimings,
            index: interaction.index, error: transportError)
    }

    /// Milliseconds, to the microsecond (so the printed number is short and stable).
    static func milliseconds(_ duration: Duration) -> Double {
        (duration.timeInterval * 1_000_000).rounded() / 1_000
    }

    /// A body as HAR text: plain when it is printable UTF-8 (no control characters but tab, line
    /// feed and carriage return), else base64.
    static func bodyText(_ body: Data, preferBase64: Bool) -> (String, String?) {
        if !preferBase64, isPrintable(body), let text = String(validating: body, as: UTF8.self) {
            return (text, nil)
        }
        return (body.base64EncodedString(), "base64")
    }

    private static func isPrintable(_ body: Data) -> Bool {
        body.withUnsafeBytes { bytes in
            !bytes.contains { byte in byte == 0x7F || (byte < 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09) }
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

    /// The document through Foundation's JSONDecoder: what the fast reader falls back to (for the
    /// exact error, or a lenient oddity it declines), and the baseline of the benchmark.
    package static func decodeWithFoundation(_ data: Data, file: String) throws(CassetteError) -> HARDocument {
        do {
            return try JSONDecoder().decode(HARDocument.self, from: data)
        } catch let error as DecodingError {
            if case let .dataCorrupted(context) = error, context.codingPath.isEmpty {
                throw syntaxError(data, file: file)
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
            throw CassetteError(.version, file: file, place: "log.version", reason: "HAR version \(document.log.version) is not supported",
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
        var interactions: [Interaction] = []
        var skipped: [SkippedEntry] = []
        interactions.reserveCapacity(entries.count)
        for position in entries.indices {
            do {
                interactions.append(try interaction(from: entries[position], position: position, file: file, attachments: attachments))
            } catch {
                if strict { throw error }
                skipped.append(SkippedEntry(position: position, method: entries[position].request.method,
                                            url: entries[position].request.url, error: error))
            }
            entries[position] = released
        }
        var cassette = Cassette(interactions: interactions, creator: document.log.creator.name, creatorVersion: document.log.creator.version)
        cassette.skipped = skipped
        return cassette
    }

    private static let released = HAREntry(
        startedDateTime: "", time: 0, request: HARRequest(method: "", url: "", headers: [], queryString: [], postData: nil, bodySize: 0),
        response: HARResponse(status: 0, statusText: "", headers: [], content: HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
                              redirectURL: "", bodySize: 0),
        timings: HARTimings(send: 0, wait: 0, receive: 0), index: nil, error: nil)

    package static func interaction(from entry: HAREntry, position: Int, file: String, attachments: URL? = nil) throws(CassetteError) -> Interaction {
        func bad(_ field: String, _ reason: String) -> CassetteError {
            CassetteError(.entry, file: file, place: "entry \(position)" + (field.isEmpty ? "" : " (\(field))"), reason: reason,
                          hint: "fix or delete the entry, or re-record the cassette")
        }
        if let unreadable = entry.unreadable {
            throw bad(unreadable.field, unreadable.reason)
        }
        guard let url = URL(string: entry.request.url), url.host != nil,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            let reason = URL(string: entry.request.url)?.scheme.map { scheme in
                ["ws", "wss"].contains(scheme.lowercased())
                    ? "a WebSocket connection ('\(scheme):'): only HTTP requests replay, so its handshake and messages are left out"
                    : "'\(scheme):' is not an HTTP URL scheme (only http and https requests replay)"
            }
            throw bad("request.url", reason ?? "'\(entry.request.url.prefix(200))' is not an absolute URL")
        }
        guard !entry.request.method.isEmpty, entry.request.method.allSatisfy({ $0.isLetter || $0 == "-" }) else {
            throw bad("request.method", "'\(entry.request.method)' is not an HTTP method")
        }
        var requestBody: Data?
        if let postData = entry.request.postData {
            if let text = postData.text {
                requestBody = try body(text, encoding: postData.encoding, field: "request.postData.text", bad: bad)
            } else if let params = postData.params, !params.isEmpty {
                var components = URLComponents()
                components.queryItems = params.map { URLQueryItem(name: $0.name, value: $0.value) }
                requestBody = Data((components.percentEncodedQuery ?? "").utf8)
            }
        }
        let request = RecordedRequest(
            method: entry.request.method.uppercased(), url: url,
            headers: headerFields(entry.request.headers), body: requestBody)

        let outcome: Interaction.Outcome
        let response = entry.response
        if let error = entry.error {
            // A bare message (code -1, e.g. mitmproxy's entry-level `_error`) is mapped by its text.
            let code = error.code == -1 && error.domain == NSURLErrorDomain ? ForeignFailure.code(for: error.message).rawValue : error.code
            outcome = .failure(RecordedFailure(code: code, domain: error.domain, message: error.message))
        } else if response.status <= 0 {
            // Another tool recorded a request that got no response (aborted, blocked, refused).
            outcome = .failure(ForeignFailure.failure(text: response.failureText, status: response.status))
        } else {
            guard (100...999).contains(response.status) else {
                throw bad("response.status", "status \(response.status) is not an HTTP status, and the entry records no transport error")
            }
            guard response.status != 101 else {
                // mitmproxy records a WebSocket under its http(s) URL; URLSession cannot be handed an upgrade.
                throw bad("response.status", "a WebSocket upgrade (101 Switching Protocols): only HTTP requests replay, so its handshake and messages are left out")
            }
            let headers = headerFields(response.headers)
            var data = Data()
            if let text = response.content.text {
                data = try body(text, encoding: response.content.encoding, field: "response.content.text", bad: bad)
            } else if let name = response.content.file {
                data = try attachedBody(name, in: attachments, file: file, place: "entry \(position) (response.content._file)")
            }
            let form: ResponsePlan.BodyForm
            switch response.content.bodyForm {
            case "wire": form = .wire
            case "decoded": form = .decoded
            case nil: form = inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"))
            case let other?: throw bad("response.content._bodyForm", "'\(other)' is neither 'wire' nor 'decoded'")
            }
            outcome = .response(RecordedResponse(status: response.status, statusText: response.statusText, headers: headers, body: data, bodyForm: form))
        }
        return Interaction(
            index: entry.index ?? position, startedDateTime: entry.startedDateTime, request: request, outcome: outcome,
            timings: timings(entry.timings))
    }

    /// Header fields as a replay sends them: HTTP/2 pseudo-headers (`:authority`, which Chromium
    /// lists) left out, and a value holding several lines (Playwright joins repeated `Set-Cookie`
    /// fields with line feeds) split into one field per line.
    static func headerFields(_ list: [HARNameValue]) -> [HeaderField] {
        var fields: [HeaderField] = []
        fields.reserveCapacity(list.count)
        for pair in list where !pair.name.hasPrefix(":") {
            if pair.value.contains(where: \.isNewline) {
                for line in pair.value.split(whereSeparator: \.isNewline) {
                    fields.append(HeaderField(pair.name, String(line)))
                }
            } else {
                fields.append(HeaderField(pair.name, pair.value))
            }
        }
        return fields
    }

    private static func body(_ text: String, encoding: String?, field: String, bad: (String, String) -> CassetteError) throws(CassetteError) -> Data {
        switch encoding?.lowercased() {
        case nil, "", "utf-8", "utf8":
            return Data(text.utf8)
        case "base64":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw bad(field, "the text is marked base64 but does not decode")
            }
            return data
        case let other?:
            throw bad(field, "unknown body encoding '\(other)'")
        }
    }

    /// A body that Playwright wrote to its own file beside the HAR (`_file`, `content: 'attach'`).
    /// Only a plain file name in `directory` is read: a path could point anywhere.
    private static func attachedBody(_ name: String, in directory: URL?, file: String, place: String) throws(CassetteError) -> Data {
        let hint = "keep the files Playwright wrote beside the HAR, or record with content: 'embed'"
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\\") else {
            throw CassetteError(.entry, file: file, place: place, reason: "'\(name.prefix(200))' is not a plain file name beside the HAR", hint: hint)
        }
        guard let directory else {
            throw CassetteError(.entry, file: file, place: place,
                                reason: "the body is in the attached file '\(name)', which is read only when the HAR is loaded from its file", hint: hint)
        }
        let url = directory.appendingPathComponent(name)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw CassetteError(.entry, file: file, place: place, reason: "the body is in the attached file '\(name)', which cannot be read at \(url.path)",
                                hint: hint)
        }
    }

    /// HAR files from other tools keep the Content-Encoding header but usually store the decoded
    /// body; a body that starts like the named coding's stream is taken to be the wire bytes.
    static func inferredForm(_ body: Data, contentEncoding: String?) -> ResponsePlan.BodyForm {
        guard let coding = contentEncoding?.lowercased().trimmingCharacters(in: .whitespaces), ContentCoding.isDecodable(coding), !body.isEmpty else {
            return .wire
        }
        switch coding {
        case "gzip", "x-gzip": return Zlib.looksLikeGzip(body) ? .wire : .decoded
        case "deflate":
            // A zlib header: compression method 8 and a check value making the first two bytes a multiple of 31.
            guard body.count >= 2 else { return .decoded }
            let first = Int(body[body.startIndex]), second = Int(body[body.startIndex + 1])
            return first & 0x0F == 8 && (first << 8 | second) % 31 == 0 ? .wire : .decoded
        default: return .decoded
        }
    }

    /// Recorded phases; nil when the entry records none (every phase zero or not applicable).
    private static func timings(_ timings: HARTimings) -> ExchangeTimings? {
        func duration(_ milliseconds: Double?) -> Duration? {
            // Negative means "does not apply"; beyond a year is not a timing but damage (and
            // would overflow nanoseconds), so it is treated as absent too.
            guard let milliseconds, milliseconds.isFinite, milliseconds >= 0, milliseconds < 31_536_000_000 else { return nil }
            return .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
        }
        let connect = duration(timings.connect)
        if connect == nil && timings.send <= 0 && timings.wait <= 0 && timings.receive <= 0 { return nil }
        return ExchangeTimings(
            connect: connect, send: duration(timings.send) ?? .zero,
            wait: duration(timings.wait) ?? .zero, receive: duration(timings.receive) ?? .zero)
    }

    /// Invalid JSON: where the parser stopped (JSONDecoder does not say; JSONSerialization does).
    private static func syntaxError(_ data: Data, file: String) -> CassetteError {
        var detail = "the parser rejected it"
        var place = ""
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        }
        if let range = detail.range(of: #"character \d+"#, options: .regularExpression) {
            let offset = Int(detail[range].dropFirst("character ".count)) ?? 0
            let prefix = data.prefix(offset)
            let line = prefix.count { $0 == 0x0A } + 1
            let column = offset - (prefix.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 } ?? 0) + 1
            place = "line \(line), column \(column)"
        } else if detail.lowercased().contains("end of file") {
            place = "end of file (byte \(data.count))"
        }
        return CassetteError(.json, file: file, place: place, reason: "not valid JSON: \(detail)",
                             hint: "the file is damaged or cut; restore it or re-record")
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
        case let .typeMismatch(type, context):
            return CassetteError(.json, file: file, place: place(context.codingPath), reason: "expected \(type): \(context.debugDescription)")
        case let .valueNotFound(type, context):
            return CassetteError(.json, file: file, place: place(context.codingPath), reason: "expected \(type), found null")
        @unknown default:
            return CassetteError(.json, file: file, reason: "\(error)")
        }
    }
}
