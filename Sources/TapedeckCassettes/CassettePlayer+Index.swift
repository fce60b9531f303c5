import Foundation

/// Where a ``CassettePlayer`` looks for a request's matches. Every URL rule requires the method
/// (when compared) and the scheme, host, port and path to be equal, so interactions are bucketed
/// by those; within a bucket they are listed again by what the URL rule compares of the rest —
/// the query items as a multiset (the default rule), or in their order (`.exact`) — so a lookup
/// on a paginated or query-keyed API reads the few entries with the same query, not every entry
/// on the path. Every list is in recording order (`_index`, then file position).
package struct LookupIndex: Sendable {
    /// Candidate lists; a ``CassettePlayer`` keeps a cursor per list.
    package let lists: [[Int]]
    private let buckets: [String: Bucket]
    private let rules: MatchRules

    private struct Bucket: Sendable {
        /// Every interaction of the bucket (a list of ``lists``).
        var whole: Int
        /// Lists by query key.
        var byKey: [String: Int] = [:]
        /// Interactions whose query holds the redaction placeholder, which matches any value:
        /// they are candidates for every request of the bucket.
        var wildcards: [Int] = []
    }

    /// Indexes `matchable` (one request per interaction, by position); with `only`, just the
    /// interactions at those positions.
    package init(_ interactions: [Interaction], matchable: [RecordedRequest], rules: MatchRules, only: Set<Int>? = nil) {
        self.rules = rules
        let order = interactions.indices.filter { only?.contains($0) ?? true }
            .sorted { (interactions[$0].index, $0) < (interactions[$1].index, $1) }
        var lists: [[Int]] = []
        var buckets: [String: Bucket] = [:]
        for position in order {
            let request = matchable[position]
            let key = Self.bucketKey(request, rules: rules)
            if buckets[key] == nil {
                buckets[key] = Bucket(whole: lists.count)
                lists.append([])
            }
            lists[buckets[key]!.whole].append(position)
            if let queryKey = Self.queryKey(request.url, rules: rules) {
                if let list = buckets[key]!.byKey[queryKey] {
                    lists[list].append(position)
                } else {
                    buckets[key]!.byKey[queryKey] = lists.count
                    lists.append([position])
                }
            } else {
                buckets[key]!.wildcards.append(position)
            }
        }
        self.lists = lists
        self.buckets = buckets
    }

    /// The interactions that may match `live`, in recording order, and the list they are (nil:
    /// a merge made for this lookup, with no cursor of its own).
    package func candidates(for live: RecordedRequest) -> (positions: [Int], list: Int?) {
        guard let bucket = buckets[Self.bucketKey(live, rules: rules)] else { return ([], nil) }
        // A live query holding the placeholder itself could match any recorded value: read the bucket.
        guard let key = Self.queryKey(live.url, rules: rules) else { return (lists[bucket.whole], bucket.whole) }
        let keyed = bucket.byKey[key]
        if bucket.wildcards.isEmpty {
            return keyed.map { (lists[$0], $0) } ?? ([], nil)
        }
        // Merge by recording order, which is the order of the bucket's own list.
        let members = Set(bucket.wildcards).union(keyed.map { lists[$0] } ?? [])
        return (lists[bucket.whole].filter(members.contains), nil)
    }

    /// Whether any interaction has `request`'s method (when compared) and scheme, host, port and
    /// path: a cheap first test, before the request is redacted and matched.
    package func hasBucket(for request: RecordedRequest) -> Bool {
        buckets[Self.bucketKey(request, rules: rules)] != nil
    }

    private static func bucketKey(_ request: RecordedRequest, rules: MatchRules) -> String {
        let base = MatchRules.resource(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        return rules.method ? request.method.uppercased() + " " + base : base
    }

    /// What the URL rule compares beyond the bucket, as a key: equal keys match on the URL. Nil
    /// when a query value is the redaction placeholder (it matches anything).
    private static func queryKey(_ url: URL, rules: MatchRules) -> String? {
        guard rules.url != .ignoringQuery else { return "" }
        let items = MatchRules.readQueryItems(URLComponents(url: url, resolvingAgainstBaseURL: false))
        var pairs: [(String, String)] = []
        pairs.reserveCapacity(items.count)
        for item in items {
            if item.value == Redactor.placeholder { return nil }
            pairs.append((item.name, item.value))
        }
        if rules.url == .ignoringQueryOrder { pairs.sort { $0 < $1 } }
        // Unit and record separators cannot occur unescaped in a URL's query.
        return pairs.map { $0.0 + "\u{1F}" + $0.1 }.joined(separator: "\u{1E}")
    }
}
