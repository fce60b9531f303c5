import Foundation
import TapedeckHTTP

// Hoverfly simulations (`hoverctl export`): each pair whose matchers are exact is an interaction.

extension ForeignCassette.StubReader {
    /// Pair `position` as an interaction (its index is set by the caller).
    mutating func hoverfly(_ pair: ForeignNode, position: Int) throws(CassetteError) -> Interaction {
        current = (position, "", "")
        guard case .map = pair, let request = pair["request"], let response = pair["response"] else {
            throw bad("", pair, "a pair needs a 'request' and a 'response'")
        }
        if keepsPatterns, Self.hoverflyMatchesByPattern(request) {
            // Answers what it matches; its request, at the origin's root, only shows it.
            let pattern = try hoverflyPattern(request, position: position)
            current = (position, pattern.method ?? "ANY", pattern.shown)
            let shownRequest = RecordedRequest(method: pattern.method ?? "GET", url: LenientURL.parse(origin + "/") ?? URL(fileURLWithPath: "/"))
            var interaction = try answer(response, to: shownRequest)
            interaction.pattern = pattern
            return interaction
        }
        let scheme = try exact(request["scheme"], field: "request.scheme")?.lowercased() ?? "http"
        let exactPath = try exact(request["path"], field: "request.path")
        let path = exactPath ?? "/"
        let destination = try exact(request["destination"], field: "request.destination")
        if destination == nil { usedOrigin = true }
        let base = destination.map { "\(scheme)://\($0)" } ?? origin
        let query = try hoverflyQuery(request["query"])
        guard let url = LenientURL.parse(base + (path.hasPrefix("/") ? path : "/" + path) + (query.isEmpty ? "" : "?" + query)) else {
            throw bad("request.path", request["path"], "'\(base)\(path)' is not a URL")
        }
        var method = try exact(request["method"], field: "request.method")?.uppercased() ?? ""
        current = (position, method.isEmpty ? "GET" : method, url.absoluteString)
        if method.isEmpty {
            method = "GET"
            note("request.method", "no method (any method) imported as GET")
        }
        if exactPath == nil {
            note("request.path", "no path (any path) imported as / (read as it is, by serve or a scenario, the pair answers any path)")
        }
        var headers: [HeaderField] = []
        for (name, matchers) in request["headers"]?.pairs ?? [] {
            // v1/v2: a list of values; v3 on: a list of matchers.
            for element in matchers.elements {
                if let value = element.string { headers.append(HeaderField(name, value)) }
                else if element["matcher"]?.string?.lowercased() == "exact", let value = element["value"]?.string { headers.append(HeaderField(name, value)) }
            }
        }
        let body: Data?
        do throws(CassetteError) {
            body = try exact(request["body"], field: "request.body", jsonToo: true).flatMap { $0.isEmpty ? nil : Data($0.utf8) }
        } catch {
            note("request.body", "the body is matched by a pattern: imported without one (replay does not match bodies unless told to)")
            body = nil
        }
        return try answer(response, to: RecordedRequest(method: method, url: url, headers: headers, body: body))
    }

    /// A pair's response as the answer to `recordedRequest`.
    private mutating func answer(_ response: ForeignNode, to recordedRequest: RecordedRequest) throws(CassetteError) -> Interaction {
        let status = response["status"]?.int ?? 200
        guard (200...999).contains(status) else { throw bad("response.status", response["status"], "status \(status) is not one a request ends with") }
        var data = Data()
        var asBytes = false
        if let text = response["body"]?.string, !text.isEmpty {
            if response["encodedBody"]?.string == "true" {
                guard let bytes = ForeignNode.base64(text) else { throw bad("response.body", response["body"], "'encodedBody' is true but the body is not base64") }
                (data, asBytes) = (bytes, true)
            } else {
                data = Data(text.utf8)
            }
        } else if let name = response["bodyFile"]?.string, !name.isEmpty {
            (data, asBytes) = (try bodyFile(name, field: "response.bodyFile", node: response["bodyFile"]), true)
        }
        if response["templated"]?.string == "true" {
            note("response.templated", "a template ({{ Request.… }} helpers): replays as written, not filled in")
        }
        let delay = response["fixedDelay"]?.double.flatMap { $0 > 0 && $0 < 86_400_000 ? Duration.milliseconds(Int64($0)) : nil }
        return Interaction(index: current.position, startedDateTime: ForeignDates.epoch, request: recordedRequest,
                           outcome: .response(recordedResponse(status, "", ForeignCassette.EntryReader.headerFields(response["headers"]), data, asBytes: asBytes)),
                           timings: delay.map { ExchangeTimings(wait: $0) })
    }

    /// The one value a Hoverfly field matches exactly: a string (v1), `{exactMatch: …}` (v2),
    /// or a list of matchers whose `exact` one (`json` too, for a body) gives it (v3 on).
    /// Nil when absent; an error when only a pattern matches it.
    private func exact(_ node: ForeignNode?, field: String, jsonToo: Bool = false) throws(CassetteError) -> String? {
        guard let node, !node.isNull else { return nil }
        if let text = node.string { return text }
        if let text = node["exactMatch"]?.string { return text }
        if case .map = node { throw byPattern(field, node, "it matches by a pattern (\(node.pairs.map(\.key).joined(separator: ", "))), not one value") }
        if node.elements.isEmpty { return nil }
        for matcher in node.elements {
            let kind = matcher["matcher"]?.string?.lowercased() ?? ""
            if kind == "exact" || (jsonToo && kind == "json"), let value = matcher["value"]?.string { return value }
        }
        let kinds = node.elements.compactMap { $0["matcher"]?.string }.joined(separator: ", ")
        throw byPattern(field, node, "it matches by a pattern (\(kinds.isEmpty ? "no exact matcher" : kinds)), not one value")
    }

    /// Hoverfly's query: a string or exact matcher (`a=1&b=2`, before v5), or a mapping of
    /// names to matchers (v5).
    private func hoverflyQuery(_ node: ForeignNode?) throws(CassetteError) -> String {
        guard let node, !node.isNull else { return "" }
        // A string or a list of matchers (before v5), or v2's `{exactMatch: …}` / `{globMatch: …}`.
        guard case .map = node, !node.pairs.contains(where: { $0.key.hasSuffix("Match") }) else {
            return try exact(node, field: "request.query") ?? ""
        }
        var items: [String] = []
        for (name, matchers) in node.pairs {
            guard let value = try exact(matchers, field: "request.query.\(name)") else { continue }
            items.append(ForeignCassette.formEscaped(name) + "=" + ForeignCassette.formEscaped(value))
        }
        return items.joined(separator: "&")
    }
}
