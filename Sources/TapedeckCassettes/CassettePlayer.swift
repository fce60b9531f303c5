public import Foundation
public import TapedeckHTTP
import Synchronization

/// Replays a cassette as a `Responder`: each request is matched against the recorded ones, in
/// recording order; a matched interaction is consumed, so identical requests get the recorded
/// answers one after another. Recorded timings travel with the answer (the route's
/// `Latency.recorded(scale:)` replays them instantly, as recorded, or scaled).
///
/// ```swift
/// let player = try CassettePlayer(contentsOf: url)
/// network.add(Route(.any, responder: player, options: RouteOptions(latency: .recorded(scale: 1))))
/// ```
public final class CassettePlayer: Responder {
    /// What to answer once every interaction matching a request has been used.
    public enum AfterLast: Hashable, Sendable {
        /// Once every match is consumed, keep answering with the last one.
        case repeatLast
        /// Once every match is consumed, answer "no match".
        case noMatch
        /// Ignore consumption: always answer with the first match.
        case alwaysFirst
    }

    /// The cassette being replayed.
    public let cassette: Cassette
    /// How requests are matched against the recorded ones.
    public let rules: MatchRules
    /// What to answer once the matches are used up.
    public let afterLast: AfterLast
    /// Applied to the recorded requests and to live ones before they are compared.
    public let redactor: Redactor
    /// Where the cassette came from (in "no match" reasons).
    public let source: String
    let state: Mutex<State>
    /// Interactions by method and URL without query, each bucket in recording order: every rule
    /// requires these to be equal. Within a bucket, interactions are indexed again by what the
    /// URL rule compares of the query, so a lookup reads only the entries that can match.
    private let index: LookupIndex
    /// The recorded requests as matching sees them: redacted with the player's rules, so an
    /// unredacted recording (another tool's HAR) and a redacted live request still agree.
    let matchable: [RecordedRequest]
    /// The recorded requests that redaction changes (another tool's HAR holding real tokens),
    /// indexed as recorded: where the client's real values pick one of several entries that are
    /// the same once redacted (see ``choose(_:raw:consuming:)``). Nil when redaction changes none
    /// (a cassette Tapedeck recorded is stored redacted).
    private let unredactedIndex: LookupIndex?
    /// The positions of the stubs that match by pattern (``Interaction/pattern``), in the order
    /// they are tried: after every recorded interaction.
    let patterned: [Int]
    /// ``roughKeys``, once made.
    let roughKeyCache = Mutex<[RoughKey]?>(nil)
    /// How many entries a miss explanation compares in full, closest by ``roughParts(_:_:)``
    /// first: enough to rank the entries of one path by query and body (a server answering misses
    /// on the event loop must not stall its other connections for long).
    static let fullComparisons = 1_000

    struct State {
        var consumed: [Bool]
        /// Per candidate list of ``LookupIndex``: how many of its first entries are all consumed
        /// (a lookup starts there, so using up many identical entries stays linear overall).
        var cursors: [Int]
        /// The same, per list of `unredactedIndex`.
        var unredactedCursors: [Int]
    }

    /// What a player works out from a cassette, its rules and its redactor before any request —
    /// the recorded requests redacted, the indexes — made once and shared by every player of
    /// them (a scenario explored over thousands of seeds builds a player per run).
    package final class Prepared: Sendable {
        let cassette: Cassette
        let rules: MatchRules
        let redactor: Redactor
        let matchable: [RecordedRequest]
        let index: LookupIndex
        let unredactedIndex: LookupIndex?
        /// The positions of the stubs that match by pattern, in the order they are tried.
        let patterned: [Int]

        package init(cassette: Cassette, rules: MatchRules, redactor: Redactor) {
            self.cassette = cassette
            self.rules = rules
            self.redactor = redactor
            let matchable = cassette.interactions.map { redactor.redact($0.request) }
            self.matchable = matchable
            let patterned = cassette.interactions.indices.filter { cassette.interactions[$0].pattern != nil }
                .enumerated().sorted { (cassette.interactions[$0.element].pattern!.priority, -$0.offset) < (cassette.interactions[$1.element].pattern!.priority, -$1.offset) }
                .map(\.element)
            self.patterned = patterned
            // A pattern stub's request only shows it: it is no recorded request to match.
            let recorded = patterned.isEmpty ? nil : Set(cassette.interactions.indices).subtracting(patterned)
            index = LookupIndex(cassette.interactions, matchable: matchable, rules: rules, only: recorded)
            let changed = Set(cassette.interactions.indices.filter { matchable[$0] != cassette.interactions[$0].request && recorded?.contains($0) != false })
            unredactedIndex = changed.isEmpty ? nil
                : LookupIndex(cassette.interactions, matchable: cassette.interactions.map(\.request), rules: rules, only: changed)
        }
    }

    /// A player replaying `cassette`; `source` names it in "no match" explanations.
    public convenience init(cassette: Cassette, rules: MatchRules = MatchRules(), afterLast: AfterLast = .repeatLast,
                            redactor: Redactor = Redactor(), source: String = "cassette") {
        self.init(prepared: Prepared(cassette: cassette, rules: rules, redactor: redactor), afterLast: afterLast, source: source)
    }

    /// A fresh player (nothing played) of what `prepared` holds.
    package init(prepared: Prepared, afterLast: AfterLast = .repeatLast, source: String = "cassette") {
        cassette = prepared.cassette
        rules = prepared.rules
        redactor = prepared.redactor
        matchable = prepared.matchable
        index = prepared.index
        unredactedIndex = prepared.unredactedIndex
        patterned = prepared.patterned
        self.afterLast = afterLast
        self.source = source
        state = Mutex(State(consumed: Array(repeating: false, count: cassette.interactions.count),
                            cursors: Array(repeating: 0, count: index.lists.count),
                            unredactedCursors: Array(repeating: 0, count: unredactedIndex?.lists.count ?? 0)))
    }

    /// Reads `url` (recovering an interrupted recording's journal first). Entries that cannot be
    /// replayed are skipped (listed in `cassette.skipped`) unless `strict` makes them an error.
    /// Another tool's cassette (vcrpy, VCR, go-vcr, DVR, Postman, WireMock, Hoverfly) is read as it is.
    public convenience init(contentsOf url: URL, rules: MatchRules = MatchRules(), afterLast: AfterLast = .repeatLast,
                            redactor: Redactor = Redactor(), strict: Bool = false) throws(CassetteError) {
        try CassetteJournal.recover(cassette: url)
        self.init(cassette: try CassetteFile.read(url, strict: strict, foreign: .convert), rules: rules, afterLast: afterLast, redactor: redactor, source: url.path)
    }

    /// How many recorded interactions have been used so far (stubs matching by pattern, which are
    /// never used up, not counted).
    public var consumedCount: Int {
        state.withLock { state in cassette.interactions.indices.count { state.consumed[$0] && cassette.interactions[$0].pattern == nil } }
    }

    /// Recorded interactions never used (for "all interactions played" checks); stubs matching by
    /// pattern are not recordings and are never listed.
    public var unplayed: [Interaction] {
        state.withLock { state in
            cassette.interactions.indices.filter { !state.consumed[$0] && cassette.interactions[$0].pattern == nil }.map { cassette.interactions[$0] }
        }
    }

    /// The next unused recorded answer matching `request` (by ``rules``), or a "no match" reply
    /// naming the closest entries and why they differ.
    ///
    /// A `HEAD` of a URL no `HEAD` was recorded for gets the head of the `GET` it would have
    /// matched, without its body and without using it up: what a server answers to a `HEAD`
    /// (RFC 9110 §9.3.2).
    public func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        let raw = RecordedRequest(request)
        let live = redactor.redact(raw)
        if let chosen = choose(live, raw: raw, consuming: true)?.position {
            return Self.answering(Self.reply(for: cassette.interactions[chosen]), to: live)
        }
        if let get = asGet(live), !index.hasBucket(for: RecordedRequest(method: "HEAD", url: live.url)),
           let position = choose(get, consuming: false)?.position,
           case var .response(plan) = Self.answering(Self.reply(for: cassette.interactions[position]), to: get) {
            // The length the GET's answer has as it is sent (a decoded body goes out decoded);
            // for a GET that broke off, the length its server announced, if any — a HEAD has no
            // body to break off, so it completes.
            if plan.interruption == nil { plan.head.headerFields[.contentLength] = String(plan.body.count) }
            plan.interruption = nil
            plan.body = Data()
            plan.chunkSizes = nil
            plan.chunkOffsets = nil
            return .response(plan)
        }
        if let position = patternMatch(raw) {
            return Self.answering(Self.reply(for: cassette.interactions[position]), to: live)
        }
        return .noMatch(reason: explainMiss(live))
    }

    /// The first stub matching by pattern whose pattern matches `raw` (the request as the client
    /// sent it: a pattern is written against real requests, not redacted ones).
    private func patternMatch(_ raw: RecordedRequest) -> Int? {
        patterned.first { cassette.interactions[$0].pattern?.matches(raw) == true }
    }

    /// `live` as a `GET`, when it is a `HEAD`.
    private func asGet(_ live: RecordedRequest) -> RecordedRequest? {
        guard live.method.uppercased() == "HEAD" else { return nil }
        var get = live
        get.method = "GET"
        return get
    }

    /// The interaction ``reply(to:context:)`` would answer `request` with now, without using it
    /// up: its position, and whether it is still unplayed (false: a used one that `afterLast`
    /// repeats, or a stub matching by pattern, which comes after every recorded one). Nil when
    /// nothing matches.
    package func nextMatch(for request: RequestSnapshot) -> (position: Int, unplayed: Bool)? {
        // Redaction leaves method and path alone: a request no bucket holds is not redacted first.
        let raw = RecordedRequest(request)
        if index.hasBucket(for: raw), let match = choose(redactor.redact(raw), raw: raw, consuming: false) { return match }
        // A HEAD answered by the head of a GET (see reply(to:context:)), which it never uses up.
        if request.method == .head, index.hasBucket(for: RecordedRequest(method: "GET", url: request.url)),
           !index.hasBucket(for: RecordedRequest(method: "HEAD", url: request.url)),
           let get = asGet(redactor.redact(raw)), let match = choose(get, consuming: false) {
            return (match.position, false)
        }
        // Then a stub matching by pattern, which answers any number of times (ranked as played).
        return patternMatch(raw).map { ($0, false) }
    }

    /// The first unplayed candidate that matches (marked played when `consuming`), else what
    /// `afterLast` says. Matching, which may run a custom closure, happens outside the lock.
    ///
    /// `live` is the request redacted; `raw`, when given, as the client sent it. When redaction
    /// changed it, an unplayed entry whose request as recorded matches `raw` is preferred: two
    /// entries that differ only in a value the redactor hides (`?key=alpha`, `?key=beta`) are
    /// the same request once redacted, and the one the client asked for is the one it meant.
    private func choose(_ live: RecordedRequest, raw: RecordedRequest? = nil, consuming: Bool) -> (position: Int, unplayed: Bool)? {
        let (candidates, list) = index.candidates(for: live)
        func matches(_ position: Int) -> Bool {
            rules.mismatches(live, matchable[position]).isEmpty && Self.cannotAnswer(live, with: cassette.interactions[position]) == nil
        }
        if unredactedIndex != nil, afterLast != .alwaysFirst, candidates.count > 1, let raw, raw != live,
           let exact = claimUnredactedMatch(raw, consuming: consuming) {
            return (exact, true)
        }
        if afterLast == .alwaysFirst {
            guard let first = candidates.first(where: matches) else { return nil }
            let later = candidates.drop { $0 != first }.dropFirst()
            let chosen = sameSpelling(live, as: first, among: later, matches: matches) ?? sameRange(live, as: first, among: later, matches: matches) ?? first
            return (chosen, !state.withLock { $0.consumed[chosen] })
        }
        var offset = list.map { list in state.withLock { $0.cursors[list] } } ?? 0
        var prefixPlayed = true
        while offset < candidates.count {
            let position = candidates[offset]
            let played = state.withLock { $0.consumed[position] }
            if !played && matches(position) {
                let unplayed = { (position: Int) in !self.state.withLock { $0.consumed[position] } && matches(position) }
                let later = candidates[(offset + 1)...]
                let chosen = sameSpelling(live, as: position, among: later, matches: unplayed) ?? sameRange(live, as: position, among: later, matches: unplayed)
                    ?? position
                let claimed: Bool = state.withLock { state in
                    guard !state.consumed[chosen] else { return false }
                    if consuming { state.consumed[chosen] = true }
                    return true
                }
                if claimed {
                    if consuming, prefixPlayed, chosen == position, let list { state.withLock { $0.cursors[list] = max($0.cursors[list], offset + 1) } }
                    return (chosen, true)
                }
                continue   // another request took it meanwhile: look at it again as played
            }
            if played, prefixPlayed, let list {
                state.withLock { $0.cursors[list] = max($0.cursors[list], offset + 1) }
            } else {
                prefixPlayed = false
            }
            offset += 1
        }
        guard afterLast == .repeatLast, let last = candidates.last(where: matches) else { return nil }
        return (last, false)
    }

    /// When the URL rule ignores the query's order (the default) and the entry at `first`
    /// spells its query otherwise than `live` does (`?tag=b&tag=a` for `?tag=a&tag=b`, `a+b` for
    /// `a%20b`), the first of `later` that `matches` and spells it as `live` does: of two entries
    /// the rule finds equal, the one recorded as the client asked is its answer. Nil otherwise.
    private func sameSpelling(_ live: RecordedRequest, as first: Int, among later: ArraySlice<Int>, matches: (Int) -> Bool) -> Int? {
        guard rules.url == .ignoringQueryOrder, !later.isEmpty else { return nil }
        let wanted = live.url.query
        guard matchable[first].url.query != wanted else { return nil }
        return later.first { matchable[$0].url.query == wanted && matches($0) }
    }

    /// When `live` asks for a `Range` the entry at `first` was not recorded with (a plain GET's
    /// 200 matches a range request too, by the default rules), the first of `later` that
    /// `matches` and was recorded for that very range: the 206 the client's range got. Nil otherwise.
    private func sameRange(_ live: RecordedRequest, as first: Int, among later: ArraySlice<Int>, matches: (Int) -> Bool) -> Int? {
        guard let wanted = Self.rangeAsked(live), !later.isEmpty, Self.rangeAsked(matchable[first]) != wanted else { return nil }
        return later.first { Self.rangeAsked(matchable[$0]) == wanted && matches($0) }
    }

    /// The first unplayed interaction whose request as recorded (not redacted by this player)
    /// matches `raw`, claimed when `consuming`: looked up in `unredactedIndex`, so only entries
    /// with the client's real values are read (a token that changed since the recording finds
    /// none at once), from their list's cursor (the entries before it are all played).
    private func claimUnredactedMatch(_ raw: RecordedRequest, consuming: Bool) -> Int? {
        guard let unredactedIndex else { return nil }
        let (candidates, list) = unredactedIndex.candidates(for: raw)
        var offset = list.map { list in state.withLock { $0.unredactedCursors[list] } } ?? 0
        var prefixPlayed = true
        while offset < candidates.count {
            let position = candidates[offset]
            if state.withLock({ $0.consumed[position] }) {
                if prefixPlayed, let list { state.withLock { $0.unredactedCursors[list] = max($0.unredactedCursors[list], offset + 1) } }
                offset += 1
                continue
            }
            prefixPlayed = false
            let interaction = cassette.interactions[position]
            if rules.mismatches(raw, interaction.request).isEmpty, Self.cannotAnswer(raw, with: interaction) == nil {
                let claimed: Bool = state.withLock { state in
                    guard !state.consumed[position] else { return false }
                    if consuming { state.consumed[position] = true }
                    return true
                }
                if claimed { return position }
                continue   // another request took it meanwhile: look at it again as played
            }
            offset += 1
        }
        return nil
    }

    /// The answer a recorded interaction gives.
    public static func reply(for interaction: Interaction) -> Reply {
        switch interaction.outcome {
        case let .response(response):
            var fields = HTTPFieldsBuilder()
            for field in response.headers { fields.append(field.name, field.value) }
            var plan = ResponsePlan(
                head: ResponseHead(status: response.status, headerFields: fields.fields),
                body: response.body, bodyForm: response.bodyForm, timings: interaction.timings)
            plan.reasonPhrase = response.statusText
            if let chunks = response.chunks, chunks.reduce(0, { $0 + $1.bytes }) == response.body.count {
                plan.chunkSizes = chunks.map(\.bytes)
                plan.chunkOffsets = chunks.map(\.at)
            }
            plan.interruption = response.interruption.map { .urlError(urlErrorCode($0.code), detail: $0.message) }
            return .response(plan)
        case let .failure(failure):
            let total = interaction.timings.map { ($0.connect ?? .zero) + $0.send + $0.wait } ?? .zero
            return .failure(.urlError(urlErrorCode(failure.code), detail: failure.message), after: total)
        }
    }
}

/// The URLError code for a recorded number (unknown numbers become `.unknown`).
func urlErrorCode(_ raw: Int) -> URLError.Code {
    #if canImport(FoundationNetworking)
    URLError.Code(rawValue: raw) ?? .unknown
    #else
    URLError.Code(rawValue: raw)
    #endif
}
