import Foundation
import TapedeckHTTP

extension ForeignCassette {
    /// Reads one interaction of another tool's cassette at a time, collecting what it assumed.
    struct EntryReader {
        let file: String
        let format: Format
        /// What was assumed about entries that were read.
        private(set) var notes: [LoadNote] = []
        /// The entry being read (position, method, URL), for its notes.
        private var current = (position: 0, method: "", url: "")
        private let dates = ForeignDates()

        init(file: String, format: Format) {
            self.file = file
            self.format = format
        }

        /// Entry `position` as an interaction (its index is set by the caller).
        mutating func interaction(_ entry: ForeignNode, position: Int) throws(CassetteError) -> Interaction {
            let place = { (field: String, node: ForeignNode?) -> String in
                "entry \(position)" + (field.isEmpty ? "" : " (\(field))") + (node?.line.map { ", line \($0)" } ?? "")
            }
            let (file, title) = (file, format.title)
            let bad = { (field: String, node: ForeignNode?, reason: String) -> CassetteError in
                CassetteError(.entry, file: file, place: place(field, node), reason: reason, hint: "fix or delete this interaction in the \(title) cassette")
            }
            guard case .map = entry, let request = entry["request"], let response = entry["response"] else {
                throw bad("", entry, "an interaction needs a 'request' and a 'response' mapping")
            }
            // The request.
            let urlNode = format == .vcr || format == .vcrpy ? request["uri"] ?? request["url"] : request["url"] ?? request["uri"]
            guard let urlText = urlNode?.string ?? Self.pieceTogetherURL(request), let url = LenientURL.parse(urlText), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil else {
                // (The URL itself is in the warning's label, its secrets redacted; not repeated here.)
                if format == .vcr, let text = urlNode?.string, text.hasPrefix("/"), text.contains("\\"),
                   text.range(of: #"/[imxo]*$"#, options: .regularExpression) != nil {
                    // VCR's `!ruby/regexp /example\.com/`: a pattern a hand-written cassette matched on.
                    throw bad("request.uri", urlNode, "the URI is a Ruby regular expression, which names no one URL to replay")
                }
                throw bad("request.\(format == .vcr || format == .vcrpy ? "uri" : "url")", urlNode, ForeignCassette.unreadableURLReason(urlNode?.string))
            }
            // (VCR 1.x wrote Ruby symbols: `:get`.)
            guard let method = request["method"]?.string?.trimmingCharacters(in: .whitespaces).drop(while: { $0 == ":" }), !method.isEmpty,
                  method.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else {
                throw bad("request.method", request["method"], "the method is missing or not a token")
            }
            current = (position, String(method).uppercased(), url.absoluteString)
            let requestHeaders = Self.headerFields(request["headers"])
            var requestBody = try body(request["body"], headers: requestHeaders, field: "request.body", bad: bad)
            if requestBody?.isEmpty != false, format == .goVCR, let form = request["form"], !form.pairs.isEmpty,
               Self.formMayBeBody(form, request: request, method: String(method).uppercased(), url: url) {
                // go-vcr keeps a form's fields beside (or instead of) its body.
                requestBody = Data(formBody(form).utf8)
            }
            let recordedRequest = RecordedRequest(method: String(method).uppercased(), url: url, headers: requestHeaders, body: requestBody?.isEmpty == true ? nil : requestBody)
            // The response.
            // go-vcr: `code`; vcrpy, VCR, Betamax: `status.code`; R's vcr before 1.0: `status.status_code`;
            // Betamax before 0.5: `status_code`; DVR: `status`.
            let statusNode = format == .goVCR ? response["code"] ?? response["status"]
                : response["status"]?["code"] ?? response["status"]?["status_code"] ?? response["status_code"] ?? response["status"]
            let status: Int
            if let code = statusNode?.int ?? statusNode?.string.flatMap({ Int($0.prefix(3)) }) {
                status = code
            } else if format == .dvr, statusNode?.isNull != false {
                // DVR's early files kept no status (nor headers) for a response; it replays one as 200.
                note("response.status", "the response records no status (early DVR files kept none): imported as 200, the status DVR replays it with")
                status = 200
            } else {
                throw bad("response.status", statusNode, "the response has no status code" + Self.unreadableStatus(statusNode))
            }
            guard (200...999).contains(status) else {
                throw bad("response.status", statusNode, (100..<200).contains(status)
                          ? "status \(status) is an interim answer (1xx), not one a request ends with"
                          : "status \(status) is not an HTTP status")
            }
            let reason = statusText(response, status: status)
            var headers = Self.headerFields(response["headers"])
            if response["status"]?["status_code"] != nil {
                // R's vcr before 1.0 also kept the status line among the headers (`status: HTTP/1.1 200 OK`).
                headers.removeAll { $0.name.lowercased() == "status" && $0.value.hasPrefix("HTTP/") }
            }
            // (vcrpy's httpx adapter once wrote the decoded text as `content`.)
            let bodyNode = response["body"] ?? response["content"]
            let data = try body(bodyNode, headers: headers, field: "response.body", bad: bad) ?? Data()
            var length = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            if format == .dvr, let bodyNode, bodyNode.string == nil, !bodyNode.isNull, let stale = length, stale != data.count,
               headers.value(for: "Content-Encoding") == nil {
                // DVR kept a JSON body as its value: the text rebuilt from it is spaced differently,
                // and the recorded length would cut it short (or leave the client waiting).
                Redactor.setContentLength(&headers, data.count)
                length = data.count
            }
            let form = HARCodec.inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"),
                                             storedAsBytes: storedAsBytes(bodyNode), announced: length)
            let recorded = RecordedResponse(status: status, statusText: reason, headers: headers, body: data, bodyForm: form)
            return Interaction(index: position, startedDateTime: startedDateTime(entry) ?? ForeignDates.epoch,
                               request: recordedRequest, outcome: .response(recorded), timings: timings(response))
        }

        // MARK: Parts

        /// vcrpy before 1.0 kept a request's URL in pieces: `protocol`, `host`, `port`, `path`.
        private static func pieceTogetherURL(_ request: ForeignNode) -> String? {
            guard let host = request["host"]?.string, let path = request["path"]?.string else { return nil }
            let scheme = request["protocol"]?.string ?? "http"
            let port = request["port"]?.int.flatMap { ($0 == 80 && scheme == "http") || ($0 == 443 && scheme == "https") ? nil : $0 }
            return "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path.hasPrefix("/") ? "" : "/")\(path)"
        }

        /// Header fields from a mapping of names to a value or a list of values (every format's
        /// shape), in the file's order; HTTP/2 pseudo-headers left out. vcrpy before 1.0 wrote a
        /// list instead: of `name: value` lines, or of `[name, value]` pairs (a frozenset of tuples).
        /// A value stored as bytes (vcrpy's `!!binary`, as botocore's headers are) is its text.
        static func headerFields(_ node: ForeignNode?) -> [HeaderField] {
            if case let .list(elements, _) = node { return Self.listedFields(elements) }
            var fields: [HeaderField] = []
            for (name, value) in node?.pairs ?? [] where !name.hasPrefix(":") && !name.isEmpty {
                switch value {
                case let .list(values, _):
                    for value in values { if let text = headerText(value) { fields.append(HeaderField(name, text)) } }
                case .text:
                    if let text = headerText(value) { fields.append(HeaderField(name, text)) }
                case .map, .null:
                    continue
                }
            }
            return fields
        }

        /// A header value's text: a scalar as written, or the bytes a binary-tagged scalar holds
        /// (`!!binary |` then `YXBwbGljYXRpb24vanNvbg==`: `application/json`), read as UTF-8, else
        /// as ISO-8859-1 (a header's historical charset). Nil for anything that is not a scalar.
        static func headerText(_ node: ForeignNode) -> String? {
            guard case let .text(text, kind, _) = node else { return nil }
            guard kind == .binary, let bytes = ForeignNode.base64(text) else { return text }
            return String(data: bytes, encoding: .utf8) ?? String(data: bytes, encoding: .isoLatin1) ?? text
        }

        private static func listedFields(_ elements: [ForeignNode]) -> [HeaderField] {
            var fields: [HeaderField] = []
            for element in elements {
                switch element {
                case let .text(line, _, _):
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = line[..<colon].trimmingCharacters(in: .whitespaces)
                    if !name.isEmpty { fields.append(HeaderField(name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))) }
                case let .list(pair, _):
                    if pair.count == 2, let name = pair[0].string, let value = headerText(pair[1]) {
                        fields.append(HeaderField(name, value))
                    } else if pair.count == 2, let name = pair[0].string, case let .list(values, _) = pair[1] {
                        // vcrpy's tornado stub: `!!python/tuple [name, [values]]`.
                        for value in values { if let text = headerText(value) { fields.append(HeaderField(name, text)) } }
                    } else {
                        fields += listedFields(pair)
                    }
                case .map, .null:
                    continue
                }
            }
            return fields
        }

        /// The body a node holds, in any of the formats' forms: a string, base64 under a binary
        /// tag, vcr's `{encoding, string | base64_string}`, vcrpy's `{string: …}`, DVR's JSON
        /// value or base64 (by the `Content-Type`). Nil when there is none.
        private mutating func body(_ node: ForeignNode?, headers: [HeaderField], field: String,
                                   bad: (String, ForeignNode?, String) -> CassetteError) throws(CassetteError) -> Data? {
            guard let node, !node.isNull else { return nil }
            switch node {
            case .null:
                return nil
            case let .text(text, kind, _):
                if kind == .binary {
                    guard let data = ForeignNode.base64(text) else { throw bad(field, node, "the body is tagged binary but is not base64") }
                    return data
                }
                if format == .dvr { return dvrBody(text, headers: headers, field: field) }
                if text.unicodeScalars.contains("\u{FFFD}") {
                    // Betamax without preserve_exact_body_bytes, among others: bytes decoded as text, lossily.
                    note(field, "stored as text with U+FFFD in place of bytes that were not UTF-8: it replays changed "
                         + "(record again with the tool's exact-bytes option: Betamax's preserve_exact_body_bytes, VCR's preserve_exact_body_bytes)")
                }
                return Data(text.utf8)
            case .map:
                let string = node["string"]
                // VCR and Betamax may give both; Betamax's request prefers a text that is there.
                let preferText = field.hasPrefix("request") && !(string?.string ?? "").isEmpty
                if !preferText, let base64 = node["base64_string"], let text = base64.string {
                    if let data = ForeignNode.base64(text) { return data }
                    // A hand-edited cassette (`base64_string: imagecontent`): its text is the body.
                    note(field + ".base64_string", "is not base64 (a hand edit?): its text is taken as the body")
                    return Data(text.utf8)
                }
                if let string {
                    let data = try body(string, headers: headers, field: field + ".string", bad: bad)
                    guard let data else { return nil }
                    return encoded(data, string: string, declared: node["encoding"]?.string, field: field + ".string")
                }
                if let state = node["state"]?.elements.first {
                    // vcrpy's request body read from a stream: `!!python/object/new:_io.BytesIO {state: [bytes, …]}`.
                    return try body(state, headers: headers, field: field + ".state", bad: bad)
                }
                if format == .dvr { return Data(node.jsonText().utf8) }   // a JSON body DVR stored as its value
                return nil
            case .list:
                if format == .dvr { return Data(node.jsonText().utf8) }
                throw bad(field, node, "the body is a list, which no cassette format writes")
            }
        }

        /// A text body VCR or Betamax stored with the charset it was decoded with (`encoding:
        /// ISO-8859-1`, `windows-1252`): written in the file as text, sent as that charset's bytes.
        /// Ruby's `ASCII-8BIT` (bytes as they are) and UTF-8 keep the text's UTF-8 bytes.
        private mutating func encoded(_ data: Data, string: ForeignNode, declared: String?, field: String) -> Data {
            guard case .text(let text, .string, _) = string, let declared = declared?.trimmingCharacters(in: .whitespaces).lowercased(),
                  !declared.isEmpty, !["ascii-8bit", "binary", "utf-8", "utf8"].contains(declared),
                  text.unicodeScalars.contains(where: { !$0.isASCII }) else { return data }
            guard let (bytes, problem) = HARBodyText.bytes(text, inCharset: declared) else {
                note(field, "the text was decoded as '\(declared)', a charset Tapedeck does not encode: it is stored as UTF-8, "
                     + "so its non-ASCII characters replay as other bytes than were sent")
                return data
            }
            if let problem { note(field, problem) }
            return bytes
        }

        /// DVR's body text: the text itself for `text/*`, else base64 (DVR writes a JSON body as
        /// its value, read above).
        private mutating func dvrBody(_ text: String, headers: [HeaderField], field: String) -> Data {
            // DVR looks its Content-Type up by that exact spelling: a `content-type` field made it write base64.
            let type = headers.first { $0.name == "Content-Type" }?.value.lowercased() ?? ""
            if type.hasPrefix("text/") { return Data(text.utf8) }
            if let data = Data(base64Encoded: text) { return data }
            note(field, "DVR stores a body that is not text/* as base64, and this one is not base64: its text is taken as the body")
            return Data(text.utf8)
        }

        /// Notes `text` about `field` of the entry being read.
        private mutating func note(_ field: String, _ text: String) {
            notes.append(LoadNote(position: current.position, field: field, method: current.method, url: current.url, text: text))
        }

        /// Whether a body was stored as bytes (base64) rather than text: then a compressed body
        /// whose stream decodes whole is the wire bytes.
        private func storedAsBytes(_ node: ForeignNode?) -> Bool {
            guard let node else { return false }
            if case .text(_, .binary, _) = node { return true }
            if node["base64_string"] != nil { return true }
            if let string = node["string"], case .text(_, .binary, _) = string { return true }
            if format == .dvr, case .text = node { return true }
            return false
        }

        /// go-vcr's form fields as an `application/x-www-form-urlencoded` body.
        private func formBody(_ form: ForeignNode) -> String {
            var items: [String] = []
            for (name, values) in form.pairs {
                let list = values.elements.isEmpty ? [values] : values.elements
                for value in list { items.append(ForeignCassette.formEscaped(name) + "=" + ForeignCassette.formEscaped(value.string ?? "")) }
            }
            return items.joined(separator: "&")
        }

        /// Whether go-vcr's `form` can stand for an empty body: Go's `Request.Form` holds the URL's
        /// query too, so recorders (Scaleway's among them) write it for a GET whose query it is.
        /// Not for GET or HEAD, a `content_length` of 0, or a form that is just the URL's query.
        private static func formMayBeBody(_ form: ForeignNode, request: ForeignNode, method: String, url: URL) -> Bool {
            if method == "GET" || method == "HEAD" { return false }
            if request["content_length"]?.int == 0 { return false }
            var fields: [String] = []
            for (name, values) in form.pairs {
                for value in values.elements.isEmpty ? [values] : values.elements { fields.append(name + "=" + (value.string ?? "")) }
            }
            return fields.sorted() != queryItems(url).sorted()
        }

        /// The URL's query items as `name=value`, decoded as Go's `url.ParseQuery` decodes them
        /// (`+` is a space).
        private static func queryItems(_ url: URL) -> [String] {
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            let decode = { (text: Substring) -> String in
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return query.split(separator: "&").map { item in
                guard let equals = item.firstIndex(of: "=") else { return decode(item) + "=" }
                return decode(item[..<equals]) + "=" + decode(item[item.index(after: equals)...])
            }
        }

        /// What an unreadable status held, for the error (empty when there was none).
        private static func unreadableStatus(_ node: ForeignNode?) -> String {
            switch node {
            case nil, .null?:
                return ""
            case let .text(text, _, _)?:
                let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
                return ": its status is '\(shown)', which does not start with a number"
            case let .map(pairs, _)?:
                let keys = pairs.prefix(5).map { "'\($0.key)'" }.joined(separator: ", ")
                return pairs.isEmpty ? ": its status is an empty mapping" : ": its status is a mapping of \(keys), none of them a code"
            case .list?:
                return ": its status is a list"
            }
        }

        /// The reason phrase: vcr's `status.message`, go-vcr's `status` ("200 OK" → "OK").
        private func statusText(_ response: ForeignNode, status: Int) -> String {
            if let message = response["status"]?["message"]?.string { return message }
            if format == .goVCR, let line = response["status"]?.string, line.hasPrefix(String(status)) {
                return line.dropFirst(String(status).count).trimmingCharacters(in: .whitespaces)
            }
            return ""
        }

        /// When the interaction was recorded, as ISO 8601 (HAR's form): vcr's RFC 1123 date,
        /// Betamax's ISO date, DVR's seconds since 1970.
        private func startedDateTime(_ entry: ForeignNode) -> String? {
            // (`recorded` is Betamax for Java's.)
            guard let node = entry["recorded_at"] ?? entry["recorded"] else { return nil }
            let date: Date?
            if let seconds = node.double, case .text(_, .number, _) = node {
                // (Years 1 to 9999 only: a hand-edited 1e300 is no instant.)
                date = seconds.isFinite && abs(seconds) < 2.5e11 ? Date(timeIntervalSince1970: seconds) : nil
            } else if let text = node.string {
                date = dates.date(text)
            } else {
                date = nil
            }
            return date.map(ForeignDates.iso8601)
        }

        /// go-vcr's `duration`, as the time the response took (HAR's `wait`).
        private func timings(_ response: ForeignNode) -> ExchangeTimings? {
            guard format == .goVCR, let node = response["duration"], let duration = ForeignDates.goDuration(node), duration > .zero else { return nil }
            return ExchangeTimings(wait: duration)
        }
    }
}
