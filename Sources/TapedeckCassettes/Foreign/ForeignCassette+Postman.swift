import Foundation
import TapedeckHTTP

extension ForeignCassette {
    /// Reads a Postman collection's saved example responses as interactions: each example
    /// (`item[].response[]`, folders walked in order) is the request it was saved with
    /// (`originalRequest`, else the item's `request`) and the answer it holds. Requests with no
    /// saved example have nothing to replay and are counted, not read.
    struct PostmanReader {
        let file: String
        /// `{{name}}` values: the caller's first, then the collection's `variable` list.
        private var variables: [String: String]
        private(set) var notes: [LoadNote] = []
        private(set) var withoutExamples = 0
        /// Examples whose headers or body hold a `{{name}}` with no value (`{{$guid}}`), kept as written.
        private(set) var keptDynamic = 0

        init(file: String, root: ForeignNode, variables given: [String: String]) {
            self.file = file
            var variables: [String: String] = [:]
            for item in root["variable"]?.elements ?? [] where item["disabled"]?.string != "true" {
                if let key = item["key"]?.string ?? item["id"]?.string { variables[key] = item["value"]?.string ?? "" }
            }
            self.variables = variables.merging(given) { _, given in given }
        }

        /// Every saved example under `items`, depth first, as interactions; unreadable ones skipped.
        mutating func read(_ items: [ForeignNode], into cassette: inout Cassette, position: inout Int) {
            for item in items {
                if let children = item["item"] {
                    read(children.elements, into: &cassette, position: &position)
                    continue
                }
                let examples = item["response"]?.elements ?? []
                if examples.isEmpty { withoutExamples += 1 }
                for example in examples {
                    defer { position += 1 }
                    let request = Request(saved: example["originalRequest"], item: item["request"])
                    do throws(CassetteError) {
                        var interaction = try interaction(request: request, example: example, name: item["name"]?.string ?? "", position: position)
                        interaction.index = cassette.interactions.count
                        cassette.interactions.append(interaction)
                    } catch {
                        cassette.skipped.append(SkippedEntry(position: position, method: request.method, url: Self.rawURL(request.url) ?? "", error: error))
                    }
                }
            }
        }

        /// The request an example was saved from: its `originalRequest`, each part it lacks taken
        /// from the item's request (some writers save only a part, or a bare URL string).
        struct Request {
            var url: ForeignNode?
            var method: String
            var header: ForeignNode?
            var body: ForeignNode?

            init(saved: ForeignNode?, item: ForeignNode?) {
                func part(_ key: String) -> ForeignNode? {
                    for request in [saved, item] {
                        guard let request else { continue }
                        if request.string != nil { if key == "url" { return request } else { continue } }   // a bare URL: GET it
                        if let value = request[key], !value.isNull { return value }
                    }
                    return nil
                }
                url = part("url")
                method = (part("method")?.string ?? "GET").uppercased()
                header = part("header")
                body = part("body")
            }
        }

        private mutating func interaction(request: Request, example: ForeignNode, name: String, position: Int) throws(CassetteError) -> Interaction {
            let (file, title) = (file, name.isEmpty ? "" : " '\(name)'")
            let bad = { (field: String, reason: String, hint: String) -> CassetteError in
                CassetteError(.entry, file: file, place: "example \(position)\(title) (\(field))", reason: reason, hint: hint)
            }
            guard var urlText = Self.rawURL(request.url) else { throw bad("originalRequest.url", "the request has no URL", "give the request a URL") }
            // Path variables first: their values may hold `{{names}}` too.
            urlText = Self.pathVariables(urlText, request.url?["variable"])
            urlText = try substituted(urlText, field: "originalRequest.url", bad: bad)
            if !urlText.contains("://") { urlText = "http://" + urlText }   // as Postman sends a URL without a scheme
            guard let url = LenientURL.parse(urlText), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil else {
                throw bad("originalRequest.url", "the URL is not an absolute http or https URL once its variables are set",
                          "check the collection's base URL variable")
            }
            let method = request.method
            var headers: [HeaderField] = []
            var dynamic = false
            for field in Self.fields(request.header) {
                headers.append(HeaderField(field.name, try substituted(field.value, field: "originalRequest.header", keepingDynamic: &dynamic, bad: bad)))
            }
            let body = try requestBody(request.body, headers: &headers, position: position, method: method, url: url.absoluteString, dynamic: &dynamic, bad: bad)
            if dynamic { keptDynamic += 1 }
            guard let status = example["code"]?.int, (200...999).contains(status) else {
                throw bad("code", "the example has no final status code (\(example["code"]?.string ?? "none"))", "set the example's status in Postman")
            }
            var responseHeaders = Self.fields(example["header"])
            let text = example["body"]?.string ?? ""
            if text.unicodeScalars.contains("\u{FFFD}") {
                notes.append(LoadNote(position: position, field: "body", method: method, url: url.absoluteString,
                                      text: "Postman keeps a saved body as text, and this one has U+FFFD where bytes were not text: it replays changed"))
            }
            // A Postman body is the decoded text, and the headers saved with it often are not its
            // own (a gzip coding, the wire length): the coding goes, the length becomes the text's.
            responseHeaders.removeAll { $0.name.equalsIgnoringASCIICase("Content-Encoding") }
            Redactor.setContentLength(&responseHeaders, text.utf8.count)
            let response = RecordedResponse(status: status, statusText: example["status"]?.string ?? "", headers: responseHeaders,
                                            body: Data(text.utf8), bodyForm: .wire)
            let timings = example["responseTime"]?.double.flatMap { $0 > 0 && $0 < 1e9 ? ExchangeTimings(wait: .milliseconds($0)) : nil }
            return Interaction(index: position, request: RecordedRequest(method: method, url: url, headers: headers, body: body),
                               outcome: .response(response), timings: timings)
        }

        /// The request body each `mode` gives; a form with files or a file body, whose bytes the
        /// collection does not hold, is left empty with a note.
        private mutating func requestBody(_ body: ForeignNode?, headers: inout [HeaderField], position: Int, method: String, url: String,
                                          dynamic: inout Bool, bad: (String, String, String) -> CassetteError) throws(CassetteError) -> Data? {
            guard let body, body["disabled"]?.string != "true" else { return nil }
            switch body["mode"]?.string ?? "raw" {
            case "raw":
                guard let raw = body["raw"]?.string, !raw.isEmpty else { return nil }
                if headers.value(for: "Content-Type") == nil, body["options"]?["raw"]?["language"]?.string == "json" {
                    headers.append(HeaderField("Content-Type", "application/json"))   // as Postman adds it
                }
                return Data(try substituted(raw, field: "originalRequest.body.raw", keepingDynamic: &dynamic, bad: bad).utf8)
            case "urlencoded":
                var items: [String] = []
                for item in body["urlencoded"]?.elements ?? [] where item["disabled"]?.string != "true" {
                    let key = try substituted(item["key"]?.string ?? "", field: "originalRequest.body.urlencoded", keepingDynamic: &dynamic, bad: bad)
                    let value = try substituted(item["value"]?.string ?? "", field: "originalRequest.body.urlencoded", keepingDynamic: &dynamic, bad: bad)
                    items.append(ForeignCassette.formEscaped(key) + "=" + ForeignCassette.formEscaped(value))
                }
                if headers.value(for: "Content-Type") == nil { headers.append(HeaderField("Content-Type", "application/x-www-form-urlencoded")) }
                return Data(items.joined(separator: "&").utf8)
            case "graphql":
                let query = body["graphql"]?["query"]?.string ?? ""
                let variables = body["graphql"]?["variables"]?.string.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } ?? "{}"
                if headers.value(for: "Content-Type") == nil { headers.append(HeaderField("Content-Type", "application/json")) }
                return Data(("{\"query\":" + ForeignNode.quoted(query, asciiOnly: false) + ",\"variables\":" + variables + "}").utf8)
            case "formdata" where (body["formdata"]?.elements ?? []).allSatisfy({ $0["disabled"]?.string == "true" || $0["type"]?.string != "file" }):
                // Text fields only: the whole form is known, sent as multipart as Postman sends it.
                let fields = (body["formdata"]?.elements ?? []).filter { $0["disabled"]?.string != "true" }
                guard !fields.isEmpty else { return nil }
                let boundary = "tapedeck-postman-form"
                var text = ""
                for field in fields {
                    let name = try substituted(field["key"]?.string ?? "", field: "originalRequest.body.formdata", keepingDynamic: &dynamic, bad: bad)
                    let value = try substituted(field["value"]?.string ?? "", field: "originalRequest.body.formdata", keepingDynamic: &dynamic, bad: bad)
                    text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name.replacingOccurrences(of: "\"", with: "%22"))\"\r\n\r\n\(value)\r\n"
                }
                if headers.value(for: "Content-Type") == nil { headers.append(HeaderField("Content-Type", "multipart/form-data; boundary=\(boundary)")) }
                return Data((text + "--\(boundary)--\r\n").utf8)
            case let mode:
                // A form with files, or a file body: the collection names files it does not hold
                // (a file body that names none is no body at all).
                let named = mode == "file" ? !(body["file"]?["src"]?.string ?? "").isEmpty
                    : (body[mode]?.elements ?? []).contains { $0["disabled"]?.string != "true" }
                guard named else { return nil }
                notes.append(LoadNote(position: position, field: "originalRequest.body", method: method, url: url,
                                      text: "a '\(mode)' body is not in the collection (Postman keeps only the names of its files): the request replays without it"))
                return nil
            }
        }

        /// `text` with every `{{name}}` set from the variables. A name with no value — one nobody
        /// gave, or one of Postman's dynamic values (`{{$guid}}`: each send draws a new one) — is
        /// an error naming it in a URL, which matching reads, and kept as written in a header or
        /// body (`keepingDynamic` then set), which matching does not read by default.
        private func substituted(_ text: String, field: String, bad: (String, String, String) -> CassetteError) throws(CassetteError) -> String {
            var ignored = false
            return try substituted(text, field: field, keepsDynamic: false, keepingDynamic: &ignored, bad: bad)
        }

        private func substituted(_ text: String, field: String, keepingDynamic kept: inout Bool,
                                 bad: (String, String, String) -> CassetteError) throws(CassetteError) -> String {
            try substituted(text, field: field, keepsDynamic: true, keepingDynamic: &kept, bad: bad)
        }

        private func substituted(_ text: String, field: String, keepsDynamic: Bool, keepingDynamic kept: inout Bool, depth: Int = 0,
                                 bad: (String, String, String) -> CassetteError) throws(CassetteError) -> String {
            guard text.contains("{{") else { return text }
            var out = ""
            var rest = Substring(text)
            while let open = rest.range(of: "{{") {
                guard let close = rest[open.upperBound...].range(of: "}}") else { break }
                let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                if variables[name] == nil, keepsDynamic {
                    kept = true
                    out += rest[..<close.upperBound]
                    rest = rest[close.upperBound...]
                    continue
                }
                guard var value = variables[name] else {
                    throw bad(field, "'{{\(name)}}' has no value in the collection", name.hasPrefix("$")
                              ? "Postman draws a new value for '\(name)' on every send: put the value the example was saved with in its place"
                              : "give it one: --variable \(name)=VALUE, or --environment FILE (a Postman environment export)")
                }
                if value.contains("{{") {
                    // A value naming other variables (`baseUrl: {{host}}/api`), as Postman resolves it.
                    guard depth < 10 else {
                        throw bad(field, "'{{\(name)}}' names variables that name it back (or nest past ten levels)", "give one of them a plain value")
                    }
                    value = try substituted(value, field: field, keepsDynamic: keepsDynamic, keepingDynamic: &kept, depth: depth + 1, bad: bad)
                }
                out += rest[..<open.lowerBound] + value
                rest = rest[close.upperBound...]
            }
            return out + rest
        }

        /// A request's URL as text: Postman writes it as a string, or as an object whose `raw`
        /// is the whole URL (else its parts: protocol, host list, port, path list, query list).
        static func rawURL(_ node: ForeignNode?) -> String? {
            guard let node else { return nil }
            if let text = node.string { return text }
            if let raw = node["raw"]?.string, !raw.isEmpty { return raw }
            // Each part a list or a string; a path segment a string or a `{type, value}` object.
            func joined(_ key: String, _ separator: String) -> String {
                guard let part = node[key] else { return "" }
                if let text = part.string { return text }
                return part.elements.compactMap { $0.string ?? $0["value"]?.string }.joined(separator: separator)
            }
            let host = joined("host", ".")
            guard !host.isEmpty else { return nil }
            var path = joined("path", "/")
            if path.hasPrefix("/") { path.removeFirst() }
            let query = (node["query"]?.elements ?? []).filter { $0["disabled"]?.string != "true" }
                .map { ($0["key"]?.string ?? "") + ($0["value"]?.string.map { "=" + $0 } ?? "") }
            return "\(node["protocol"]?.string.map { $0 + "://" } ?? "")\(host)\(node["port"]?.string.map { ":" + $0 } ?? "")"
                + (path.isEmpty ? "" : "/" + path) + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        }

        /// `:name` path segments set from the URL's `variable` list, as Postman sends them.
        private static func pathVariables(_ url: String, _ list: ForeignNode?) -> String {
            let values = (list?.elements ?? []).compactMap { item -> (String, String)? in
                guard let key = item["key"]?.string ?? item["id"]?.string, let value = item["value"]?.string else { return nil }
                return (key, value)
            }
            guard !values.isEmpty else { return url }
            let (beforeQuery, query) = url.firstIndex(of: "?").map { (String(url[..<$0]), String(url[$0...])) } ?? (url, "")
            let segments = beforeQuery.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
                guard segment.hasPrefix(":"), let value = values.first(where: { $0.0 == segment.dropFirst() })?.1 else { return String(segment) }
                return value
            }
            return segments.joined(separator: "/") + query
        }

        /// Header fields from Postman's list of `{key, value, disabled}` (or a `Name: value` text).
        static func fields(_ node: ForeignNode?) -> [HeaderField] {
            if let text = node?.string {
                return text.split(whereSeparator: \.isNewline).compactMap { line in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return HeaderField(line[..<colon].trimmingCharacters(in: .whitespaces), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
            }
            return (node?.elements ?? []).flatMap { item -> [HeaderField] in
                if item.string != nil { return fields(item) }   // a list of `Name: value` strings
                guard item["disabled"]?.string != "true", let key = item["key"]?.string, !key.isEmpty else { return [] }
                return [HeaderField(key, item["value"]?.string ?? "")]
            }
        }
    }
}
