// VCR's (Ruby) cassettes from before its 2.0 format, read into the 1.x shape the entry reader
// knows: Ruby 1.9's YAML of VCR 1.x spelled every key as a symbol (`:request:`, `:uri:`), and VCR
// 0.x kept `Net::HTTP` response objects (`method`, `uri`, `response: {code, header, body}`).

extension ForeignNode {
    /// This document with an old VCR cassette's entries in VCR 1.x's usual shape (`request.uri`,
    /// `response.status.code`, `response.headers`); any other document as it is.
    func modernisingOldVCR() -> ForeignNode {
        guard case let .list(elements, line) = self, let first = elements.first else { return self }
        if first[":request"] != nil, first[":response"] != nil {
            return .list(elements.map { $0.withoutSymbolColons() }, line: line)
        }
        if first["request"] == nil, first["uri"] != nil, first["response"]?["code"] != nil {
            return .list(elements.map { $0.recordedResponseAsInteraction() }, line: line)
        }
        return self
    }

    /// A mapping whose keys were Ruby symbols (`:status`) with plain keys (`status`), all the way
    /// down except inside header mappings, whose names are the server's (an HTTP/2 `:authority`
    /// stays what it is, and the header reader leaves it out).
    private func withoutSymbolColons() -> ForeignNode {
        switch self {
        case let .map(pairs, line):
            return .map(pairs.map { pair in
                let key = Self.isRubySymbol(pair.key) ? String(pair.key.dropFirst()) : pair.key
                return (key, key == "headers" ? pair.value : pair.value.withoutSymbolColons())
            }, line: line)
        case let .list(elements, line):
            return .list(elements.map { $0.withoutSymbolColons() }, line: line)
        case .text, .null:
            return self
        }
    }

    private static func isRubySymbol(_ key: String) -> Bool {
        key.count > 1 && key.first == ":" && key.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// VCR 0.x's `VCR::RecordedResponse` (`method`, `uri`, and a `Net::HTTPResponse` with `code`,
    /// `message`, `header` and `body`) as a 1.x interaction. Such a cassette kept no request
    /// headers or body.
    private func recordedResponseAsInteraction() -> ForeignNode {
        guard case .map = self, let response = self["response"] else { return self }
        var request: [(key: String, value: ForeignNode)] = []
        if let method = self["method"] { request.append(("method", method)) }
        if let uri = self["uri"] { request.append(("uri", uri)) }
        var status: [(key: String, value: ForeignNode)] = []
        if let code = response["code"] { status.append(("code", code)) }
        if let message = response["message"] { status.append(("message", message)) }
        var answer: [(key: String, value: ForeignNode)] = [("status", .map(status, line: response.line))]
        if let header = response["header"] { answer.append(("headers", header)) }
        if let body = response["body"] { answer.append(("body", body)) }
        return .map([("request", .map(request, line: line)), ("response", .map(answer, line: response.line))], line: line)
    }
}
