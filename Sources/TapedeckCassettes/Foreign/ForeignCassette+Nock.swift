import Foundation
import TapedeckHTTP

// nock (Node.js) recordings: `nock.recorder.rec({output_objects: true})` and nockBack fixtures, a
// JSON list of definitions `{scope, method, path, body, status, response, rawHeaders, reqheaders}`.

extension ForeignCassette {
    /// Whether `root` is a list of nock definitions (each names a `scope` and a `method`).
    static func isNock(_ root: ForeignNode) -> Bool {
        guard case let .list(elements, _) = root, let first = elements.first else { return false }
        return first["scope"]?.string != nil && first["method"] != nil && (first["status"] != nil || first["response"] != nil || first["path"] != nil)
    }

    /// Reads nock's definitions, one interaction each, in the file's order (nock answers
    /// identical requests with its definitions in turn, as Tapedeck's replay does).
    static func nock(_ root: ForeignNode, file: String) -> Reading {
        var cassette = Cassette()
        for (position, definition) in root.elements.enumerated() {
            let method = definition["method"]?.string?.uppercased() ?? ""
            let url = (definition["scope"]?.string ?? "") + (definition["path"]?.string ?? "")
            do throws(CassetteError) {
                var interaction = try nockInteraction(definition, position: position, file: file, notes: &cassette.notes)
                interaction.index = cassette.interactions.count
                cassette.interactions.append(interaction)
            } catch {
                cassette.skipped.append(SkippedEntry(position: position, method: method, url: url, error: error))
            }
        }
        return Reading(cassette: cassette, format: .nock)
    }

    private static func nockInteraction(_ definition: ForeignNode, position: Int, file: String, notes: inout [LoadNote]) throws(CassetteError) -> Interaction {
        func bad(_ field: String, _ reason: String) -> CassetteError {
            CassetteError(.entry, file: file, place: "entry \(position) (\(field))", reason: reason, hint: "check the definition nock recorded")
        }
        guard case .map = definition else { throw bad("", "a definition is an object with 'scope', 'method' and 'path'") }
        guard let scope = definition["scope"]?.string, !scope.isEmpty else { throw bad("scope", "there is no scope (the origin nock intercepted)") }
        let method = definition["method"]?.string?.uppercased() ?? "GET"
        let path = definition["path"]?.string ?? "/"
        guard let url = LenientURL.parse(withoutDefaultPort(scope) + (path.hasPrefix("/") ? path : "/" + path)) else {
            throw bad("path", "'\(scope)\(path)' is not a URL")
        }
        var requestHeaders: [HeaderField] = []
        for (name, value) in definition["reqheaders"]?.pairs ?? [] {
            if let text = value.string { requestHeaders.append(HeaderField(name, text)) }
        }
        var requestBody: Data?
        if let body = definition["body"], !body.isNull {
            let text = body.string ?? body.jsonText()
            if !text.isEmpty { requestBody = Data(text.utf8) }
        }
        let request = RecordedRequest(method: method, url: url, headers: requestHeaders, body: requestBody)

        let statusNode = definition["status"]
        let status = statusNode == nil ? 200 : statusNode?.int ?? -1
        guard (200...999).contains(status) else { throw bad("status", "status '\(statusNode?.string ?? "?")' is not one a request ends with") }
        var headers = nockHeaders(definition)
        var data = Data()
        var asBytes = false
        let response = definition["response"]
        switch response {
        case nil, .null?:
            break
        case let .text(text, _, _)? where definition["responseIsBinary"]?.boolean == true:
            guard let bytes = HARCodec.pollyHex(text) else { throw bad("response", "responseIsBinary says hex, but the response is not hex") }
            (data, asBytes) = (bytes, true)
        case let .list(chunks, _)? where headers.value(for: "Content-Encoding") != nil && !chunks.isEmpty && chunks.allSatisfy({ $0.string.map(isHex) ?? false }):
            // Older nock: a compressed answer as a list of hex chunks, one per chunk received.
            guard let bytes = HARCodec.pollyHex(chunks.compactMap(\.string).joined()) else { throw bad("response", "the hex chunks do not decode") }
            (data, asBytes) = (bytes, true)
        case let .text(text, _, _)?:
            data = Data(text.utf8)
        case let node?:
            // A JSON answer nock kept as its value: the text is rebuilt, so a recorded length is not its length.
            data = Data(node.jsonText().utf8)
            if headers.value(for: "Content-Encoding") == nil, headers.value(for: "Content-Length") != nil { Redactor.setContentLength(&headers, data.count) }
        }
        if !asBytes, let coding = headers.value(for: "Content-Encoding"), !["", "identity"].contains(coding.lowercased()) {
            notes.append(LoadNote(position: position, field: "response", method: method, url: url.absoluteString,
                                  text: "the answer is said to be '\(coding)' but nock kept it as text: replayed as that text"))
        }
        let length = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let form = HARCodec.inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"), storedAsBytes: asBytes, announced: length)
        let recorded = RecordedResponse(status: status, headers: headers, body: data, bodyForm: form)
        return Interaction(index: position, startedDateTime: ForeignDates.epoch, request: request, outcome: .response(recorded))
    }

    /// The response's header fields: `rawHeaders` (a flat list `[name, value, …]`, or a mapping in
    /// newer nock) or `headers`.
    private static func nockHeaders(_ definition: ForeignNode) -> [HeaderField] {
        if case let .list(raw, _) = definition["rawHeaders"] {
            var fields: [HeaderField] = []
            var index = 0
            while index + 1 < raw.count {
                if let name = raw[index].string, let value = raw[index + 1].string { fields.append(HeaderField(name, value)) }
                index += 2
            }
            return fields
        }
        return EntryReader.headerFields(definition["rawHeaders"] ?? definition["headers"])
    }

    /// `https://api.test:443` as `https://api.test` (nock writes the port always).
    private static func withoutDefaultPort(_ scope: String) -> String {
        let trimmed = scope.hasSuffix("/") ? String(scope.dropLast()) : scope
        if trimmed.hasPrefix("https://"), trimmed.hasSuffix(":443") { return String(trimmed.dropLast(4)) }
        if trimmed.hasPrefix("http://"), trimmed.hasSuffix(":80") { return String(trimmed.dropLast(3)) }
        return trimmed
    }

    private static func isHex(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count % 2 == 0 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
    }
}
