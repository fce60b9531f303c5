import Foundation

// Why a request matched nothing: the closest entries, found by a cheap rank first and compared
// in full only as far as needed.

extension CassettePlayer {
    /// How far a recorded request is from the live one by what is cheap to compare: path,
    /// scheme, host, port, and the method when the rules compare it, in the weights
    /// ``explainMiss(_:)`` gives them (`base`); and whether the query and the body surely differ
    /// (each a reason the full comparison will give). Together never more than the full distance.
    func roughParts(_ live: RoughKey, _ recorded: RoughKey) -> (base: Int, query: Bool, body: Bool) {
        var total = Self.pathDistance(live.path, recorded.path)
        if live.scheme != recorded.scheme { total += 300 }
        if live.host != recorded.host { total += 300 }
        if live.port != recorded.port { total += 200 }
        if rules.method, live.method != recorded.method { total += 100 }
        // Another query (as a multiset: a lower bound whatever the URL rule) weighs what the full
        // comparison gives it, so that among many entries of one path the ones with the
        // request's query are compared in full first.
        var query = false
        if rules.url != .ignoringQuery, let liveQuery = live.query, let recordedQuery = recorded.query { query = liveQuery != recordedQuery }
        // Likewise bodies compared byte for byte (a GraphQL endpoint's hundreds of posts).
        var body = false
        if let liveBody = live.body, let recordedBody = recorded.body { body = liveBody != recordedBody }
        return (total, query, body)
    }

    /// What ``roughParts(_:_:)`` compares of a request, taken out of its URL once.
    struct RoughKey: Sendable {
        /// Scheme and host, lower-cased; the port as written.
        var scheme: String?, host: String?, port: Int?
        /// The path as written (escapes kept), as bytes.
        var path: [UInt8]
        /// The method, upper-cased.
        var method: String
        /// The query items as `name=value`, sorted; nil when one is the redaction placeholder
        /// (which matches any value).
        var query: [String]?
        /// A hash of the body's contents, when bodies are compared byte for byte (different
        /// hashes are different bodies).
        var body: UInt64?

        /// The key of `request`; `rawBody`: hash its body too.
        init(_ request: RecordedRequest, rawBody: Bool = false) {
            scheme = request.url.scheme?.lowercased()
            host = request.url.host?.lowercased()
            port = request.url.port
            path = Array(request.url.path(percentEncoded: true).utf8)
            method = request.method.uppercased()
            let items = MatchRules.readQueryItems(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
            query = items.contains { $0.value == Redactor.placeholder } ? nil : items.map { $0.name + "=" + $0.value }.sorted()
            if rawBody {
                // FNV-1a over every byte.
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in request.content ?? Data() { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                body = hash
            }
        }
    }

    /// Every entry's ``RoughKey``, made at the first miss and kept (a server answering many misses
    /// on a large cassette would otherwise take every URL apart again for each).
    var roughKeys: [RoughKey] {
        roughKeyCache.withLock { cache in
            if let cache { return cache }
            let raw = rules.body == .raw
            let keys = matchable.map { RoughKey($0, rawBody: raw) }
            cache = keys
            return keys
        }
    }

    /// "No match" text: the request, and the closest recorded entries with why each did not match.
    /// Every entry is ranked by path, scheme, host, port and method; entries are then compared in
    /// full (query, body, fields) in that order until the next one's rank alone is past the third
    /// closest found, so a miss on a cassette of 50,000 entries costs a pass over their URLs, not
    /// 50,000 full comparisons (at most `fullComparisons`, 1,000, are compared in full).
    public func explainMiss(_ live: RecordedRequest) -> String {
        let consumedAll = state.withLock { $0.consumed }
        let liveKey = RoughKey(live, rawBody: rules.body == .raw)
        let parts = roughKeys.map { roughParts(liveKey, $0) }
        let rough = parts.map { $0.base + ($0.query ? 10 : 0) + ($0.body ? 5 : 0) }
        // Closest first: another path weighs most (a path more like the request's less), then
        // another scheme, host or port, then another method, the query, the body and header fields
        // (a DELETE of a recorded GET's path is closer than a POST elsewhere; the same path on
        // another host closer than another path).
        func distance(_ position: Int, _ reasons: [String]) -> Int {
            // The query and body weigh by the full comparison's reasons (the rank's guess at them
            // is not counted twice).
            var total = parts[position].base
            for reason in reasons {
                if ["path ", "URL ", "scheme ", "host ", "port ", "method "].contains(where: reason.hasPrefix) { continue }   // counted above
                total += reason.hasPrefix("query ") ? 10 : reason.hasPrefix("body") ? 5 : 1
            }
            return total
        }
        // Among entries as far apart by these counts (many on one path, each with another body),
        // the one whose body is more like the request's comes first.
        var closest: [(position: Int, reasons: [String], distance: Int, bodyGap: Int)] = []
        var twins: [Int: [Int]] = [:]
        // A stub matching by pattern is no recorded request to compare with: listed after these.
        let stubs = Set(patterned)
        for (compared, position) in rough.indices.filter({ !stubs.contains($0) }).sorted(by: { (rough[$0], $0) < (rough[$1], $1) }).enumerated() {
            // The rank is a lower bound of the full distance: past the third closest, none can be closer.
            if closest.count == 3, rough[position] > closest[2].distance { break }
            if compared == Self.fullComparisons { break }
            let reasons = rules.mismatches(live, matchable[position]) + [Self.cannotAnswer(live, with: cassette.interactions[position])].compactMap { $0 }
            // An entry that says what a listed one says (the same request recorded again) is
            // named beside it rather than taking a place of its own.
            if let twin = closest.first(where: { $0.reasons == reasons && matchable[$0.position].method == matchable[position].method
                && matchable[$0.position].url == matchable[position].url && matchable[$0.position].content == matchable[position].content }) {
                twins[twin.position, default: []].append(position)
                continue
            }
            let gap = reasons.contains(where: { $0.hasPrefix("body") })
                ? rules.bodyGap(live, matchable[position]) : 0
            closest.append((position, reasons, distance(position, reasons), gap))
            closest.sort { ($0.distance, $0.bodyGap, $0.position) < ($1.distance, $1.bodyGap, $1.position) }
            if closest.count > 3 { closest.removeLast() }
        }
        // Shown without secrets (the text goes to a 404 body, a miss log, a test's failure).
        let shown = SecretFreeText(adding: redactor)
        var lines = ["\(source): no recorded interaction matches \(live.method) \(shown.url(live.url))"]
        if cassette.interactions.isEmpty, !cassette.skipped.isEmpty {
            lines.append("  every entry of the cassette (\(cassette.skipped.count)) was skipped when it was read: \(cassette.skipped[0])")
        } else if cassette.interactions.isEmpty {
            let missing = source.contains("/") && !FileManager.default.fileExists(atPath: source)
            // `x.har` asked for while `x.har.gz` is there (or the other way round): a name slip.
            let sibling = source.hasSuffix(".har.gz") ? String(source.dropLast(3)) : source.hasSuffix(".har") ? source + ".gz" : nil
            if missing, let sibling, FileManager.default.fileExists(atPath: sibling) {
                lines.append("  the cassette does not exist, but \((sibling as NSString).lastPathComponent) is beside it — did you mean that one?")
            } else {
                lines.append("  the cassette \(missing ? "does not exist" : "is empty") — record it first (tapedeck record, tapedeck run --record once, or TAPEDECK_RECORD=once in a test)")
            }
        }
        // An entry for this very resource that was skipped when the file was read (its body left
        // out by the writer, say): the likeliest reason for the miss, so it is named with its reason.
        for skip in cassette.skipped.lazy.filter({ Self.isSkippedCandidate($0, for: live) }).prefix(3) {
            lines.append("  entry \(skip.position) \(skip.method) \(shown.url(skip.url).prefix(200)): skipped when the cassette was read, so it cannot "
                         + "answer: \(skip.error.reason)")
        }
        for (position, reasons, _, _) in closest {
            let recorded = cassette.interactions[position].request
            let why = reasons.isEmpty ? (consumedAll[position] ? "matches, but was already played" : "matches")
                : reasons.map { shown.reason($0, live: live.url, recorded: recorded.url) }.joined(separator: "; ")
            // Numbered as `tapedeck cassette inspect` numbers them (entries skipped at load count).
            let same = (twins[position] ?? []).prefix(3).map { String(cassette.interactions[$0].index) }
            let also = same.isEmpty ? "" : " (and \(same.joined(separator: ", "))\((twins[position]?.count ?? 0) > 3 ? ", …" : ""), the same)"
            lines.append("  entry \(cassette.interactions[position].index)\(also) \(recorded.method) \(shown.url(recorded.url)): \(why)")
        }
        // The stubs that came closest first (the body differs before the path does), each saying where it failed.
        let tried = patterned.compactMap { position in cassette.interactions[position].pattern?.mismatch(live).map { (position, $0) } }
            .enumerated().sorted { ($0.element.1.depth, -$0.offset) > ($1.element.1.depth, -$1.offset) }.map(\.element)
        for (position, miss) in tried.prefix(3) {
            lines.append("  entry \(cassette.interactions[position].index), a stub matching by pattern (\(cassette.interactions[position].pattern?.shown ?? "")): "
                         + miss.part)
        }
        if patterned.count > 3 { lines.append("  … and \(patterned.count - 3) more stubs matching by pattern") }
        return lines.joined(separator: "\n")
    }
}
