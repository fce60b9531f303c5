import Foundation
import TapedeckHTTP

// ExVCR (Elixir) cassettes: a JSON list of `{request: {url, method, headers, body, options},
// response: {status_code, headers, body, type, binary}}`, as its adapters (hackney, httpc, ibrowse,
// Finch, HTTPoison) record them.

extension ForeignCassette {
    /// Whether `root` is an ExVCR cassette: a list whose first interaction's request has a `url`
    /// and whose response has a `status_code` or a `type` (`ok`, `error`).
    static func isExVCR(_ root: ForeignNode) -> Bool {
        guard case let .list(elements, _) = root, let first = elements.first, let response = first["response"] else { return false }
        return first["request"]?["url"] != nil && (response["status_code"] != nil || response["type"] != nil)
    }

    /// Reads ExVCR's interactions in the file's order (it replays identical requests in turn too).
    static func exVCR(_ root: ForeignNode, file: String) -> Reading {
        var cassette = Cassette()
        for (position, entry) in root.elements.enumerated() {
            do throws(CassetteError) {
                var interaction = try exVCRInteraction(entry, position: position, file: file)
                interaction.index = cassette.interactions.count
                cassette.interactions.append(interaction)
            } catch {
                cassette.skipped.append(SkippedEntry(position: position, method: entry["request"]?["method"]?.string?.uppercased() ?? "",
                                                     url: entry["request"]?["url"]?.string ?? "", error: error))
            }
        }
        return Reading(cassette: cassette, format: .exvcr)
    }

    private static func exVCRInteraction(_ entry: ForeignNode, position: Int, file: String) throws(CassetteError) -> Interaction {
        func bad(_ field: String, _ reason: String) -> CassetteError {
            CassetteError(.entry, file: file, place: "entry \(position) (\(field))", reason: reason, hint: "fix or delete this interaction in the ExVCR cassette")
        }
        guard let request = entry["request"], let response = entry["response"] else { throw bad("", "an interaction needs a 'request' and a 'response'") }
        guard let urlText = request["url"]?.string, let url = LenientURL.parse(urlText), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil else {
            throw bad("request.url", unreadableURLReason(request["url"]?.string))
        }
        let method = (request["method"]?.string ?? "get").uppercased()
        let requestBodyText = [request["request_body"], request["body"]].compactMap { $0?.string }.first { !$0.isEmpty }
        let recordedRequest = RecordedRequest(method: method, url: url, headers: EntryReader.headerFields(request["headers"]),
                                              body: requestBodyText.map { Data($0.utf8) })
        if response["type"]?.string == "error" {
            // The reason Erlang gave (`:timeout`, `:nxdomain`, `%Mint.TransportError{reason: :econnrefused}`).
            let reason = response["body"].map { $0.string ?? $0.jsonText() } ?? "error"
            return Interaction(index: position, startedDateTime: ForeignDates.epoch, request: recordedRequest,
                               outcome: .failure(RecordedFailure(code: ForeignFailure.code(for: reason).rawValue, message: reason)))
        }
        // httpc keeps the status line as a list: ["HTTP/1.1", 200, "OK"].
        let statusNode = response["status_code"]
        let status = statusNode?.int ?? statusNode?.elements.compactMap(\.int).first ?? -1
        guard (200...999).contains(status) else { throw bad("response.status_code", "status '\(statusNode.map { $0.string ?? $0.jsonText() } ?? "none")' is not one a request ends with") }
        let reason = statusNode?.elements.last?.string ?? ""
        let headers = EntryReader.headerFields(response["headers"])
        var data = Data()
        var asBytes = false
        switch response["body"] {
        case let .text(text, _, _)? where response["binary"]?.boolean == true:
            guard let bytes = ForeignNode.base64(text), let body = erlangBinary(bytes) else {
                throw bad("response.body", "'binary' is true, but the body is not an Erlang binary term in base64")
            }
            (data, asBytes) = (body, true)
        case let .text(text, _, _)?:
            data = Data(text.utf8)
        case let .list(pieces, _)?:
            data = Data(pieces.compactMap(\.string).joined().utf8)   // an iolist of strings
        case .map?, .null?, nil:
            break
        }
        let length = headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let form = HARCodec.inferredForm(data, contentEncoding: headers.value(for: "Content-Encoding"), storedAsBytes: asBytes, announced: length)
        return Interaction(index: position, startedDateTime: ForeignDates.epoch, request: recordedRequest,
                           outcome: .response(RecordedResponse(status: status, statusText: reason, headers: headers, body: data, bodyForm: form)))
    }

    /// The bytes of an Erlang binary in the external term format (`term_to_binary`: 131, then
    /// `BINARY_EXT` 109, a 32-bit length, the bytes), as ExVCR stores a body that is not text.
    static func erlangBinary(_ term: Data) -> Data? {
        let bytes = [UInt8](term)
        guard bytes.count >= 6, bytes[0] == 131, bytes[1] == 109 else { return nil }
        let length = Int(bytes[2]) << 24 | Int(bytes[3]) << 16 | Int(bytes[4]) << 8 | Int(bytes[5])
        guard bytes.count == 6 + length else { return nil }
        return Data(bytes[6...])
    }
}
