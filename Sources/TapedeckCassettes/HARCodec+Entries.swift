package import Foundation
package import TapedeckHTTP

// Reading one HAR entry into an interaction: the URL, the request body, the outcome (a response
// or a failure another tool recorded) and its body bytes. Each writer's quirks are described in
// docs/cassettes.md ("Interop").

/// What reading an entry depends on beyond the entry itself.
struct ReadContext: Sendable {
    /// Who wrote the file (bodies' character sets follow the writer's rules).
    var writer: HARWriter
    /// Whether `_index` is the replay order (see ``HARCodec/indicesAreUnique(_:)``); else file order.
    var trustsIndex: Bool

    /// Tapedeck's own entries (a journal's lines).
    static let tapedeck = ReadContext(writer: .tapedeck, trustsIndex: true)
}

extension HARCodec {
    /// One of Tapedeck's own entries (a journal line) as an interaction.
    package static func interaction(from entry: HAREntry, position: Int, file: String, attachments: URL? = nil) throws(CassetteError) -> Interaction {
        var notes: [LoadNote] = []
        return try interaction(from: entry, position: position, file: file, attachments: attachments, context: .tapedeck, notes: &notes)
    }

    /// An entry of a file `context` describes as an interaction; what had to be assumed is added to `notes`.
    static func interaction(
        from entry: HAREntry, position: Int, file: String, attachments: URL?, context: ReadContext, notes: inout [LoadNote]
    ) throws(CassetteError) -> Interaction {
        func bad(_ field: String, _ reason: String) -> CassetteError {
            CassetteError(.entry, file: file, place: "entry \(position)" + (field.isEmpty ? "" : " (\(field))"), reason: reason,
                          hint: "fix or delete the entry, or re-record the cassette")
        }
        func note(_ field: String, _ text: String?) {
            guard let text else { return }
            notes.append(LoadNote(position: position, field: field, method: entry.request.method, url: entry.request.url, text: text))
        }
        if let unreadable = entry.unreadable {
            throw bad(unreadable.field, unreadable.reason)
        }
        // No client sends a fragment, so one another tool recorded (Firebug: `all.js#xfbml=1`) would
        // keep the entry from ever matching exactly. Tapedeck's own files keep the URL the client gave.
        let address = context.writer.isTapedeck ? entry.request.url : LenientURL.droppingFragment(entry.request.url)
        guard let url = LenientURL.parse(address), url.host != nil,
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
        var requestHeaders = headerFields(entry.request.headers, writer: context.writer)
        var requestBody: Data?
        if let postData = entry.request.postData {
            typeFromMimeType(postData.mimeType, into: &requestHeaders)
            let type = requestHeaders.value(for: "Content-Type") ?? postData.mimeType
            if let name = postData.file, (postData.text ?? "").isEmpty {
                // Playwright `content: 'attach'`: the body is in a file beside the HAR, `text` is "".
                requestBody = try attachedBody(name, in: attachments, file: file, place: "entry \(position) (request.postData._file)")
            } else if let bytes = insomniaFileBody(postData, contentType: type, writer: context.writer) {
                requestBody = bytes
                note("request.postData.text", "Insomnia writes a file sent as the body as base64 with no 'encoding' to say so: this "
                        + "'\(HARBodyText.essence(type))' body is read as base64")
            } else {
                let sizes = recordedSizes(bodySize: entry.request.bodySize, sizeField: "request.bodySize", headers: requestHeaders)
                let (data, text) = try HARPostBody.body(postData, contentType: type, writer: context.writer, sizes: sizes,
                                                        field: "request.postData.text", bad: bad)
                requestBody = data
                note("request.postData", text)
            }
        } else if let content = entry.request.content, let text = content.text {
            // HTTP Toolkit: a body that is not UTF-8 goes in `_content`, base64, instead of `postData`.
            let type = requestHeaders.value(for: "Content-Type") ?? ""
            let read = try bodyBytes(text, encoding: content.encoding, isBinary: nil, contentType: type, writer: context.writer,
                                     field: "request._content.text", bad: bad)
            requestBody = read.data
            note("request._content.text", read.note)
        } else if let status = entry.request.bodyStatus, status.lowercased().hasPrefix("discarded") {
            // HTTP Toolkit left the body out (over its export limit, or not decodable). The answer
            // is whole, so the entry replays; only a body rule needs what is missing.
            let size = entry.request.bodySize > 0 ? " (\(entry.request.bodySize) bytes)" : ""
            note("request._requestBodyStatus", "the writer left the request body\(size) out of the file ('\(status)'): the entry "
                    + "replays, but under a body match rule (--match-body, MatchRules(body:)) no request can match it")
        }
        if (requestBody ?? Data()).isEmpty, entry.request.bodySize > 0, entry.request.bodyStatus == nil, !context.writer.isTapedeck {
            // Playwright's embedded HAR keeps a binary upload as `text: ""` beside its real size.
            note("request.postData", "the file has no bytes for this request's body, though bodySize says \(entry.request.bodySize): the "
                    + "writer did not capture it, so the entry replays, but under a body match rule (--match-body, MatchRules(body:)) "
                    + "no request can match it")
        }
        let request = RecordedRequest(method: entry.request.method.uppercased(), url: url, headers: requestHeaders, body: requestBody)

        let response = entry.response
        if entry.wasPushed, response.status <= 0, response.headers.isEmpty, response.failureText == nil, entry.error == nil {
            // WebPageTest lists each resource a server pushed (HTTP/2 PUSH_PROMISE) once as it was
            // announced, with no response (status -2), and again with the response it got.
            throw bad("response.status", "a resource the server announced it would push (status \(response.status), `_was_pushed`), with no response "
                        + "of its own: the entry with its pushed response answers the request instead")
        }
        let failure: RecordedFailure?
        if let error = entry.error {
            // A bare message (code -1, e.g. mitmproxy's entry-level `_error`) is mapped by its text.
            let code = error.code == -1 && error.domain == NSURLErrorDomain ? ForeignFailure.code(for: error.message).rawValue : error.code
            failure = RecordedFailure(code: code, domain: error.domain, message: error.message)
        } else if response.status <= 0 || response.failureText != nil {
            // Another tool recorded a request that got no response (aborted, blocked, refused),
            // or one whose response broke off after its head (below).
            failure = ForeignFailure.failure(text: response.failureText, status: response.status)
        } else {
            failure = nil
        }
        // The response as the file gives it (its head and the body bytes it kept).
        func recordedResponse() throws(CassetteError) -> RecordedResponse {
            guard (100...999).contains(response.status) else {
                throw bad("response.status", "status \(response.status) is not an HTTP status, and the entry records no transport error")
            }
            guard response.status != 101 else {
                // mitmproxy records a WebSocket under its http(s) URL; URLSession cannot be handed an upgrade.
                throw bad("response.status", "a WebSocket upgrade (101 Switching Protocols): only HTTP requests replay, so its handshake and messages are left out")
            }
            guard response.status >= 200 else {
                // 100 Continue, 103 Early Hints: interim answers, which a request never ends with.
                throw bad("response.status", "status \(response.status) is an interim answer (1xx), not one a request ends with")
            }
            if let reason = discardedBody(response.content, writer: context.writer) {
                throw bad("response.content", reason)
            }
            var headers = headerFields(response.headers, writer: context.writer)
            if response.content.text != nil || response.content.file != nil {
                typeFromMimeType(response.content.mimeType, into: &headers)
            }
            var data = Data()
            if let wire = response.content.wire {
                // Tapedeck's own: the bytes as sent; `text` is their decoded form, for other tools.
                guard let bytes = base64Bytes(wire) else {
                    throw bad("response.content._wire", "the body as sent is not base64")
                }
                data = bytes
            } else if let text = response.content.text {
                let type = headers.value(for: "Content-Type") ?? response.content.mimeType
                let sizes = recordedSizes(bodySize: response.content.size, sizeField: "content.size", headers: headers, wireSize: response.bodySize)
                let read = try bodyBytes(text, encoding: response.content.encoding, isBinary: response.content.isBinary, contentType: type,
                                         writer: context.writer, sizes: sizes, field: "response.content.text", bad: bad)
                data = read.data
                note("response.content.text", read.note)
                // Text shorter than the Content-Length of an uncompressed body (a writer that kept
                // only the start of a large body): said, since it replays short.
                let travelled = sizes.filter { $0.travelled && $0.source == "the Content-Length header" }
                if failure == nil, !data.isEmpty, !travelled.isEmpty, response.content.size <= 0 || response.content.size > data.count,
                   travelled.allSatisfy({ $0.bytes > data.count }), entry.request.method.uppercased() != "HEAD" {
                    note("response.content.text", "the text holds \(data.count) bytes of a body that had \(travelled[0].bytes) "
                            + "(\(travelled[0].source)): the writer kept only part of it, and a replay sends that part")
                }
            } else if let name = response.content.file {
                data = try attachedBody(name, in: attachments, file: file, place: "entry \(position) (response.content._file)")
                let type = headers.value(for: "Content-Type") ?? response.content.mimeType
                let coding = headers.value(for: "Content-Encoding")?.lowercased()
                if !context.writer.isTapedeck,
                   let bytes = HARBodyText.attachedText(data, contentType: type, contentLength: headers.value(for: "Content-Length").flatMap { Int($0) },
                                                        compressed: coding != nil && coding != "identity") {
                    data = bytes
                    note("response.content._file", "the attached file holds the body's text as UTF-8 (as Playwright writes a decoded text body): "
                            + "encoded back to the charset its Content-Type names")
                }
            }
            // (A response that broke off has only the bytes that came: none is no writer's omission.)
            if data.isEmpty, (response.content.text ?? "").isEmpty, response.content.wire == nil, failure == nil,
               response.status != 304, response.status != 204, entry.request.method.uppercased() != "HEAD" {
                // The size the file gives; else, for an explicitly empty text of size 0 (not a
                // browser's redirect, which has no text and size -1), a length the head announced
                // for bytes the writer did not keep (mitmproxy past stream_large_bodies).
                let announced = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
                if response.content.size > 0 {
                    note("response.content", HARCodec.uncapturedNote + " (content.size says \(response.content.size) bytes)")
                } else if announced > 0, response.content.text == "", response.content.size == 0, !context.writer.isTapedeck,
                          !(300..<400).contains(response.status) {
                    note("response.content", HARCodec.uncapturedNote + " (its Content-Length says \(announced) bytes; mitmproxy "
                         + "writes a body it streamed past stream_large_bodies so)")
                }
            }
            let form: ResponsePlan.BodyForm
            switch response.content.bodyForm {
            case _ where response.content.wire != nil: form = .wire
            case "wire": form = .wire
            case "decoded": form = .decoded
            case nil:
                let bytes = response.content.file != nil || response.content.encoding?.lowercased() == "base64"
                let length = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                form = inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"), storedAsBytes: bytes, announced: length,
                                    complete: failure == nil)
            case let other?: throw bad("response.content._bodyForm", "'\(other)' is neither 'wire' nor 'decoded'")
            }
            var recorded = RecordedResponse(status: response.status, statusText: response.statusText, headers: headers, body: data, bodyForm: form)
            if let chunks = response.chunks {
                let total = chunks.reduce(0) { $0 + $1.bytes }
                if chunks.allSatisfy({ $0.bytes > 0 && $0.time >= 0 && $0.time.isFinite }), total == data.count {
                    recorded.chunks = chunks.map { BodyChunk(bytes: $0.bytes, at: .seconds(rounding: $0.time / 1_000)) }
                } else {
                    // The body is still good: it replays in the network's own pieces.
                    note("response._chunks", "its \(chunks.count) pieces (\(total) bytes) do not fit the body's \(data.count) bytes (or one is empty or has a negative time): ignored, the body replays in one piece")
                }
            }
            return recorded
        }
        let outcome: Interaction.Outcome
        if let failure, (200...999).contains(response.status) {
            // The head arrived and the body broke off (Chromium's ERR_CONTENT_LENGTH_MISMATCH
            // keeps the status; Tapedeck keeps a response reset or timed out mid-body so): the
            // head and the bytes that came replay, then the failure. A head that cannot replay
            // leaves the failure alone.
            if var partial = try? recordedResponse() {
                partial.interruption = failure
                outcome = .response(partial)
            } else {
                outcome = .failure(failure)
            }
        } else if let failure {
            outcome = .failure(failure)
        } else {
            outcome = .response(try recordedResponse())
        }
        return Interaction(
            index: context.trustsIndex ? entry.index ?? position : position, startedDateTime: entry.startedDateTime, request: request,
            outcome: outcome, timings: timings(entry.timings))
    }

    /// A body's bytes from its HAR text: base64, Polly.JS hex (`isBinary`), or characters encoded
    /// with the message's charset (``HARBodyText``, which `sizes` can settle); a note when the
    /// charset was a guess.
    static func bodyBytes(
        _ text: String, encoding: String?, isBinary: Bool?, contentType: String, writer: HARWriter,
        sizes: [HARBodyText.RecordedSize] = [], field: String, bad: (String, String) -> CassetteError
    ) throws(CassetteError) -> (data: Data, note: String?) {
        switch encoding?.lowercased() {
        case nil, "", "utf-8", "utf8":
            if isBinary == true {
                guard let data = pollyHex(text) else {
                    throw bad(field, "the text is marked _isBinary (Polly.JS hex) but is not hex, nor a JSON list of hex strings")
                }
                return (data, nil)
            }
            if let data = unmarkedPollyHex(text, contentType: contentType, writer: writer, sizes: sizes) { return (data, nil) }
            let read = HARBodyText.bytes(text, contentType: contentType, writer: writer, sizes: sizes)
            guard let lost = lostBytesNote(text, contentType: contentType) else { return read }
            return (read.data, read.note.map { $0 + "; " + lost } ?? lost)
        case "base64":
            // Polly.JS's node-http adapter stores a content-encoded body as a JSON list of base64
            // chunks, one per chunk received.
            guard let data = base64Bytes(text) ?? base64Chunks(text) else {
                throw bad(field, "the text is marked base64 but does not decode (only the base64 and base64url alphabets, '=' padding and line breaks "
                          + "may appear, or a JSON list of base64 chunks as Polly.JS writes)")
            }
            return (data, nil)
        case let other?:
            throw bad(field, "unknown body encoding '\(other)'")
        }
    }

    /// Base64 as writers produce it: line breaks and spaces allowed (MIME wraps lines), the
    /// URL-safe alphabet (`-`, `_`) read as the standard one, padding optional. Nil for any other
    /// character: a byte skipped silently would make a body that was never sent.
    static func base64Bytes(_ text: String) -> Data? {
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): continue
            case UInt8(ascii: "-"): cleaned.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): cleaned.append(UInt8(ascii: "/"))
            default: cleaned.append(byte)
            }
        }
        if cleaned.last != UInt8(ascii: "=") {
            cleaned.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - cleaned.count % 4) % 4))
        }
        return Data(base64Encoded: Data(cleaned))
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
        // A plain file only: a symbolic link beside a HAR from elsewhere could point anywhere, and
        // a FIFO or a device would not end.
        let type = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
        if let type, type != .typeRegular {
            throw CassetteError(.entry, file: file, place: place,
                                reason: "the attached file '\(name)' is \(type == .typeSymbolicLink ? "a symbolic link" : "not a plain file"); only a plain file beside the HAR is read",
                                hint: hint)
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw CassetteError(.entry, file: file, place: place, reason: "the body is in the attached file '\(name)', which cannot be read at \(url.path)",
                                hint: hint)
        }
    }

    /// Whether a body another tool stored is the wire bytes or decoded. Tools keep the
    /// `Content-Encoding` header but usually store the decoded body. A `Content-Length` the head
    /// announced (`announced`) other than the stored length says decoded (the wire bytes had that
    /// length: a gzip file sent gzipped, stored decoded once, still starts like gzip). Otherwise a
    /// body that starts like the last coding's stream (gzip's magic number, a zlib header, zstd's
    /// frame magic) and decodes whole is taken to be the wire bytes (`x^2 + y^2` starts like a
    /// zlib header), as is a `br` or raw `deflate` body stored as bytes (base64, an attached file)
    /// that decodes whole; anything else is decoded — including codings Tapedeck cannot decode
    /// itself (`compress`, unknown names), which no writer stores undecoded as text, so that
    /// `serve` sends such a body without the coding's label.
    package static func inferredForm(_ body: Data, contentEncoding: String?, storedAsBytes: Bool = false, announced: Int? = nil,
                                     complete: Bool = true) -> ResponsePlan.BodyForm {
        let codings = (contentEncoding ?? "").lowercased().split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "identity" }
        guard let last = codings.last, !body.isEmpty else { return .wire }
        // A body that broke off (`complete` false) is short of any length and of its stream's
        // end: the magic number alone decides.
        if complete, let announced, announced != body.count { return .decoded }
        let head = Array(body.prefix(4))
        // Past the inspection limit, the magic number alone decides (decoding it all to look costs too much).
        func reads(_ coding: String) -> Bool { !complete || body.count > Redactor.inspectionLimit || decodesWhole(body, coding: coding) }
        switch last {
        case "gzip", "x-gzip":
            return Zlib.looksLikeGzip(body) && reads("gzip") ? .wire : .decoded
        case "deflate":
            guard head.count >= 2 else { return .decoded }
            if Zlib.looksLikeZlib(body) { return reads("zlib") ? .wire : .decoded }
            // Raw deflate (no zlib header), as some servers send it: bytes that inflate whole.
            return storedAsBytes && decodesWhole(body, coding: "deflate") ? .wire : .decoded
        case "zstd":
            return head == [0x28, 0xB5, 0x2F, 0xFD] && reads("zstd") ? .wire : .decoded
        case "br":
            // Brotli has no magic number. Bytes (base64, an attached file) that decode as a whole
            // brotli stream are the wire form: a body stored decoded is never a valid stream.
            return storedAsBytes && decodesWhole(body, coding: "br") ? .wire : .decoded
        default:
            return .decoded
        }
    }

    /// Whether `body` decodes under `coding` without error (within the inspection limit).
    private static func decodesWhole(_ body: Data, coding: String) -> Bool {
        guard body.count <= Redactor.inspectionLimit else { return false }
        // zlib stops at a stream's end: bytes after a short valid prefix must not pass as wire.
        if coding == "deflate" { return Zlib.inflatesWhole(body, format: .raw, limit: Redactor.inspectionLimit) }
        if coding == "zlib" { return Zlib.inflatesWhole(body, format: .zlib, limit: Redactor.inspectionLimit) }
        return (try? ContentCoding.decode(body, contentEncoding: coding, limit: Redactor.inspectionLimit)) != nil
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
}
