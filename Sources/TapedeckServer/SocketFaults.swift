public import Foundation
public import TapedeckScenarios
import Synchronization
public import TapedeckCassettes
import TapedeckHTTP
import TapedeckScheduling

/// The scenario fault catalogue (`FaultSite`) mapped onto real sockets, seeded.
///
/// As in a scenario run, each site is enabled or not for the whole run (the same seed stream,
/// `fault.NAME.enabled`, so a seed enables the same sites in `tapedeck run` and `tapedeck serve`).
/// Whether an enabled site fires is a pure function of the seed, the site, the request (method and
/// URL) and its occurrence number (the n-th identical request: a retry is occurrence 2) — not of
/// which connection or thread it came on — so a client that sends the same requests in the same
/// order gets the same faults whatever the timing. Sites restricted by `exchanges` use the
/// server's arrival order, and `window` uses wall time since start: those are only as
/// deterministic as the client makes them.
///
/// ```swift
/// let faults = SocketFaults(plan: try FaultPlan.load(url), seed: 7)
/// var answer = ServerAnswer.text(200, "ok")
/// let fired = faults.apply(method: "GET", url: URL(string: "http://api.test/items")!, exchange: 1, to: &answer)
/// ```
public final class SocketFaults: Sendable {
    /// A fault that fired on a request.
    public struct Fired: Hashable, Sendable, CustomStringConvertible {
        /// The site's name.
        public var site: String
        /// The kind's name with what it was given (`latency 2s`, `status 503, Retry-After 2s`).
        public var kind: String
        /// The request it struck (`GET http://…`), or `connection N` for a drop at accept.
        public var target: String
        /// The occurrence number of that request (or the connection number).
        public var occurrence: Int

        /// `fault NAME (KIND) on TARGET #OCCURRENCE`, the occurrence said: `, the 2nd time that
        /// request came` (for a drop at accept, the connection's number is its target already).
        public var description: String {
            let suffix = occurrence % 100 / 10 == 1 ? "th" : [1: "st", 2: "nd", 3: "rd"][occurrence % 10] ?? "th"
            let which = target.hasPrefix("connection ") ? "" : ", the \(occurrence)\(suffix) time that request came"
            return "fault \(site) (\(kind)) on \(target) #\(occurrence)\(which)"
        }
    }

    /// The sites, as given.
    public let sites: [FaultSite]
    /// The seed.
    public let seed: UInt64
    /// Kinds the plan names that sockets cannot show (a client-side effect): ignored, listed here.
    public let unsupported: [String]
    private let enabled: [Bool]
    private let random: SimulationRandom
    private let state = Mutex<State>(State())

    /// Counts since the start or the last ``reset(afterExchange:afterConnection:)``: exchange and connection numbers, as the
    /// plan's `exchanges` ranges and accept-time faults see them, are relative to the reset.
    private struct State {
        var occurrences: [String: Int] = [:]
        var fired = RecentLog<Fired>(capacity: SocketFaults.keptFirings)
        var started = ContinuousClock.now
        var lastExchange = 0, exchangeBase = 0
        var lastConnection = 0, connectionBase = 0
    }

    /// Starts the time windows now, counts kept: call it when the server starts accepting, so
    /// that loading a large cassette does not eat into a `window: {until: 2s}`.
    public func startClock() {
        state.withLock { $0.started = .now }
    }

    /// Starts the plan over, as a fresh server with the same seed would: occurrence counts,
    /// exchange and connection numbers and the time windows from zero, the firing log emptied
    /// (`POST /__tapedeck/reset`, SIGHUP). `exchange` and `connection` are the numbers the
    /// server gave the reset request itself, if it came as one (the next request is exchange 1).
    /// Requests under way when it runs may count on either side.
    public func reset(afterExchange exchange: Int = 0, afterConnection connection: Int = 0) {
        state.withLock { state in
            state.occurrences.removeAll()
            state.fired = RecentLog<Fired>(capacity: SocketFaults.keptFirings)
            state.started = .now
            state.lastExchange = max(state.lastExchange, exchange)
            state.lastConnection = max(state.lastConnection, connection)
            state.exchangeBase = state.lastExchange
            state.connectionBase = state.lastConnection
        }
    }

    /// Faults of `plan` drawn from `seed`.
    public init(plan: FaultPlan, seed: UInt64) {
        sites = plan.faults
        self.seed = seed
        random = SimulationRandom(seed: seed)
        enabled = plan.faults.map { site in
            var stream = SimulationRandom(seed: seed).stream("fault.\(site.name).enabled")
            return stream.chance(site.enabledPerMille, in: 1_000)
        }
        unsupported = plan.faults.filter { !Self.isSocketLevel($0.kind) }.map { "\($0.name) (\($0.kind.name))" }
    }

    /// Whether sockets can show `kind` (metrics, duplicate completions, token expiry, DNS and
    /// offline errors are a client's own experience: a server cannot cause them).
    public static func isSocketLevel(_ kind: FaultKind) -> Bool {
        switch kind {
        case .latency, .bandwidth, .stall, .refused, .connectionLost, .reset, .truncate, .corruptGzip, .status: true
        case .hostNotFound, .notConnected, .metrics, .duplicateCompletion, .tokenExpiry: false
        }
    }

    /// How many firings ``fired`` keeps: a long-running server forgets older ones.
    public static let keptFirings = 1_000

    /// The faults fired so far, in order: the last ``keptFirings`` of them.
    public var fired: [Fired] { state.withLock { $0.fired.entries } }

    /// How many faults fired in all, including those ``fired`` no longer keeps.
    public var firedCount: Int { state.withLock { $0.fired.total } }

    private func fires(_ index: Int, key: String, occurrence: Int) -> Bool {
        guard enabled[index] else { return false }
        var stream = random.stream("fault.\(sites[index].name).fire.\(key).\(occurrence)")
        return stream.chance(sites[index].probabilityPerMille, in: 1_000)
    }

    /// Whether connection number `connection` is dropped at accept: a `refused` site without a
    /// route (a route cannot be known before the request is read).
    public func dropsConnection(_ connection: Int) -> Bool {
        droppedConnection(connection) != nil
    }

    /// ``dropsConnection(_:)``, saying which site dropped it and under which number the plan
    /// counts the connection (numbers start again after a reset), nil when none does.
    public func droppedConnection(_ connection: Int) -> Fired? {
        let connection = state.withLock { state -> Int in
            state.lastConnection = max(state.lastConnection, connection)
            return connection - state.connectionBase
        }
        for (index, site) in sites.enumerated() {
            guard case .refused = site.kind, site.pattern == nil, inWindow(site),
                  site.exchanges.map({ $0.contains(connection) }) ?? true,
                  fires(index, key: "connection", occurrence: connection) else { continue }
            let fired = Fired(site: site.name, kind: site.kind.summary, target: "connection \(connection)", occurrence: connection)
            record(fired)
            return fired
        }
        return nil
    }

    private func inWindow(_ site: FaultSite) -> Bool {
        let elapsed = state.withLock { $0.started }.duration(to: .now)
        if let from = site.from, elapsed < from { return false }
        if let until = site.until, elapsed >= until { return false }
        return true
    }

    private func record(_ fired: Fired) {
        state.withLock { $0.fired.append(fired) }
    }

    /// Applies the sites that fire on request number `exchange` (`method` `url`) to `answer`:
    /// delays, a pace, a cut, a status override or a corrupt gzip. As in a scenario run, sites are
    /// tried in file order — a routed `refused` first, since it strikes before the connection — and
    /// those that fire combine as `FaultStack` says (after a refusal nothing is tried: no head comes): a
    /// latency and a status make a slow 503. Returns what fired, in order, each naming its request
    /// with `redactor`'s secret query items replaced (the log reaches a terminal and CI logs, as
    /// the miss log does).
    @discardableResult
    public func apply(method: String, url: URL, exchange: Int, to answer: inout ServerAnswer, redactor: Redactor = Redactor()) -> [Fired] {
        // As the matcher reads the request: clients that spell one URL differently (query order,
        // `%c3` or `%C3`) meet the same draws and occurrence counts.
        let key = "\(method.uppercased()) \(MatchRules.canonicalURL(url))"
        let (occurrence, exchange) = state.withLock { state -> (Int, Int) in
            state.occurrences[key, default: 0] += 1
            state.lastExchange = max(state.lastExchange, exchange)
            return (state.occurrences[key]!, exchange - state.exchangeBase)
        }
        var fired: [Fired] = []
        // The point before the connection (a routed `refused`), then the response head: the order
        // in which a run meets them.
        let ordered = sites.indices.filter { if case .refused = sites[$0].kind { true } else { false } }
            + sites.indices.filter { if case .refused = sites[$0].kind { false } else { true } }
        var stack = FaultStack()
        for index in ordered where Self.isSocketLevel(sites[index].kind) && stack.admits(sites[index].kind) {
            let site = sites[index]
            if let pattern = site.pattern, !pattern.matches(method: method, url: url) { continue }
            if let attempts = site.attempts, !attempts.contains(occurrence) { continue }
            if let exchanges = site.exchanges, !exchanges.contains(exchange) { continue }
            guard inWindow(site) else { continue }
            if case .refused = site.kind, site.pattern == nil { continue }   // decided at accept
            // A cut at or past the body's end cuts nothing: not a firing, and the sites after it
            // are still tried (as in a scenario run).
            if site.kind.cutsNothing(ofBody: Self.bodyBytes(of: answer, method: method)) { continue }
            guard fires(index, key: key, occurrence: occurrence) else { continue }
            Self.apply(site.kind, name: site.name, seed: random, key: key, occurrence: occurrence, to: &answer)
            // Shown as the client sent it (the key holds decoded text: a line break, an escape), secrets out.
            fired.append(Fired(site: site.name, kind: site.kind.summary, target: "\(method.uppercased()) \(redactor.redactURLText(url.absoluteString))",
                               occurrence: occurrence))
            stack.fired(site.kind)
            if case .refused = site.kind { break }   // struck before the connection: no head comes to delay
        }
        if !fired.isEmpty { state.withLock { $0.fired.append(contentsOf: fired) } }
        return fired
    }

    /// The bytes of body `answer` carries to a `method` request: none for HEAD, a 204, a 304 or
    /// an interim status, whatever the recording kept.
    static func bodyBytes(of answer: ServerAnswer, method: String) -> Int {
        if method.uppercased() == "HEAD" || answer.status == 204 || answer.status == 304 || (100..<200).contains(answer.status) { return 0 }
        return answer.body.count
    }

    private static func apply(_ kind: FaultKind, name: String, seed: SimulationRandom, key: String, occurrence: Int, to answer: inout ServerAnswer) {
        switch kind {
        case let .latency(delay, jitter):
            var extra = Duration.zero
            if jitter > .zero {
                var stream = seed.stream("fault.\(name).draw.\(key).\(occurrence)")
                extra = .nanoseconds(Int64(stream.next(below: max(1, Int(jitter.wholeNanoseconds)))))
            }
            answer.delivery.headDelay += delay + extra
        case let .bandwidth(rate):
            answer.delivery.bytesPerSecond = rate
        case .stall:
            answer.delivery.stall = true
        case .refused, .connectionLost:
            answer.delivery.cut = .beforeResponse
        case let .reset(bytes):
            answer.delivery.cut = .reset(afterBytes: bytes)
        case let .truncate(bytes):
            answer.delivery.cut = .truncate(afterBytes: bytes)
        case .corruptGzip:
            answer.headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Encoding") }
            answer.headers.append(.init("Content-Encoding", "gzip"))
            // A gzip magic number followed by bytes no inflater accepts.
            answer.body = Data([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0xff, 0xff, 0xff, 0xff]) + answer.body.prefix(64)
        case let .status(status, headers, retryAfter, retryAfterDate):
            answer.status = status
            answer.reasonPhrase = ""   // the new status's own phrase, not the recorded one
            // The fault's fields replace the recorded ones of the same names (as in a scenario),
            // so a client never reads two Content-Types or two Retry-Afters.
            var replaced = Set(headers.map { $0.name.lowercased() })
            let setsRetryAfter = retryAfter != nil || retryAfterDate != nil
            if setsRetryAfter { replaced.insert("retry-after") }
            answer.headers.removeAll { replaced.contains($0.name.lowercased()) }
            // `retryAfter:` wins over a Retry-After among the fault's own fields.
            for header in headers where !(setsRetryAfter && header.name.lowercased() == "retry-after") {
                answer.headers.append(.init(header.name, header.value))
            }
            if let retryAfter {
                answer.headers.append(.init("Retry-After", String(Int((retryAfter.timeInterval).rounded(.up)))))
            } else if let retryAfterDate {
                // The date is read against the answer's own `Date` (as a client does): both now,
                // not the recorded Date, which would put the retry minutes or days away.
                let (date, retry) = HTTPDate.retryAfterFields(now: Date(), after: retryAfterDate)
                answer.headers.removeAll { $0.name.equalsIgnoringASCIICase("Date") }
                answer.headers.append(.init("Date", date))
                answer.headers.append(.init("Retry-After", retry))
            }
        case .hostNotFound, .notConnected, .metrics, .duplicateCompletion, .tokenExpiry:
            break
        }
    }
}
