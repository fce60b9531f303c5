import Foundation
import TapedeckHTTP

// Talkback (Node.js) tapes: one JSON5 file per request, `{meta: {host, resHumanReadable, …},
// req: {url, method, headers, body}, res: {status, headers, body}}`; a folder of them is a library.

extension ForeignCassette {
    /// Whether `root` is a Talkback tape: `meta`, a `req` with a `url`, and a `res`.
    static func isTalkback(_ root: ForeignNode) -> Bool {
        root["meta"] != nil && root["req"]?["url"] != nil && root["res"] != nil
    }

    /// Reads a tape's one interaction (left out, with the reason, when it cannot replay).
    static func talkback(_ root: ForeignNode, file: String) -> Reading {
        var cassette = Cassette()
        do throws(CassetteError) {
            cassette.interactions = [try talkbackInteraction(root, file: file)]
        } catch {
            cassette.skipped = [SkippedEntry(position: 0, method: root["req"]?["method"]?.string?.uppercased() ?? "",
                                             url: (root["meta"]?["host"]?.string ?? "") + (root["req"]?["url"]?.string ?? ""), error: error)]
        }
        return Reading(cassette: cassette, format: .talkback)
    }

    private static func talkbackInteraction(_ root: ForeignNode, file: String) throws(CassetteError) -> Interaction {
        func bad(_ field: String, _ reason: String) -> CassetteError {
            CassetteError(.entry, file: file, place: field, reason: reason, hint: "fix the tape, or record it again")
        }
        let meta = root["meta"]
        guard let request = root["req"], let response = root["res"] else { throw bad("", "a tape needs 'req' and 'res'") }
        let host = meta?["host"]?.string ?? ""
        let path = request["url"]?.string ?? "/"
        let whole = path.lowercased().hasPrefix("http://") || path.lowercased().hasPrefix("https://") ? path
            : host.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + (path.hasPrefix("/") ? path : "/" + path)
        guard let url = LenientURL.parse(whole), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil else {
            throw bad("meta.host", "'\(whole)' is not an absolute http or https URL (meta.host gives the origin, req.url the path)")
        }
        let method = request["method"]?.string?.uppercased() ?? "GET"
        let requestHeaders = EntryReader.headerFields(request["headers"])
        let requestBody = talkbackBody(request["body"], readable: meta?["reqHumanReadable"]?.boolean == true)
        guard let status = response["status"]?.int, (200...999).contains(status) else {
            throw bad("res.status", "the status is missing or not one a request ends with")
        }
        var headers = EntryReader.headerFields(response["headers"])
        let bodyNode = response["body"]
        let data = talkbackBody(bodyNode, readable: meta?["resHumanReadable"]?.boolean == true) ?? Data()
        if bodyNode?.string == nil, bodyNode?.isNull == false, headers.value(for: "Content-Encoding") == nil, headers.value(for: "Content-Length") != nil {
            // A JSON body kept as its value: the text rebuilt from it is spaced otherwise.
            Redactor.setContentLength(&headers, data.count)
        }
        // `resUncompressed`: the body was decoded for reading, its Content-Encoding kept.
        let decoded = meta?["resUncompressed"]?.boolean == true && headers.value(for: "Content-Encoding") != nil
        let length = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let form = decoded ? .decoded
            : HARCodec.inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"), storedAsBytes: meta?["resHumanReadable"]?.boolean != true, announced: length)
        let latency = meta?["latency"]?.double ?? meta?["latency"]?.elements.first?.double
        let started = meta?["createdAt"]?.string ?? ForeignDates.epoch
        return Interaction(index: 0, startedDateTime: started,
                           request: RecordedRequest(method: method, url: url, headers: requestHeaders, body: requestBody?.isEmpty == true ? nil : requestBody),
                           outcome: .response(RecordedResponse(status: status, headers: headers, body: data, bodyForm: form)),
                           timings: latency.flatMap { $0 > 0 && $0 < 86_400_000 ? ExchangeTimings(wait: .milliseconds(Int64($0))) : nil })
    }

    /// A tape's body: text as written, or a JSON value's text, when the tape is human-readable;
    /// else base64 (text that is not base64 is kept as text).
    private static func talkbackBody(_ node: ForeignNode?, readable: Bool) -> Data? {
        switch node {
        case nil, .null?: return nil
        case let .text(text, _, _)?:
            if !readable, let bytes = ForeignNode.base64(text) { return bytes }
            return Data(text.utf8)
        case let node?:
            return Data(node.jsonText().utf8)
        }
    }
}
