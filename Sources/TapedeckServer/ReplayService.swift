public import Foundation
public import TapedeckCassettes
import Synchronization
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tapedeck serve`: answers from a cassette with the in-process replay's matching and in-order
/// consumption (a `CassettePlayer`), recorded timings on the wall clock, seeded socket faults,
/// a "no match" answer that names the closest entries, and an admin endpoint.
///
/// A request's URL for matching is a recorded origin (scheme, host, port) plus the request
/// target, so a cassette recorded from `http://api.test` is served at `http://127.0.0.1:PORT`
/// unchanged. The origin is the one the `Host` field names (any recorded origin when it names
/// none); among several (one host recorded under http and https), `X-Forwarded-Proto`, then
/// ``Options/preferredScheme``, then the origin with the earliest unplayed entry matching the
/// request, then one with a played match, then the first, decide. An absolute-form target
/// (`GET http://host/path`, a client using the server as its proxy) is matched as it stands —
/// but for a cassette of one origin (what `tapedeck record` writes), which answers it by its path
/// when it names another host.
///
/// Admin (never matched against the cassette): `GET /__tapedeck/health`, `POST /__tapedeck/reset`
/// (every interaction unplayed again, the miss log emptied), `GET /__tapedeck/misses` (one
/// explanation per miss, blank-line separated), `GET /__tapedeck/faults` (faults fired so far).
///
/// ```swift
/// let service = try ReplayService(contentsOf: url, options: .init(timing: .instant))
/// let server = try TapedeckHTTPServer(service: service, options: ServerOptions())
/// ```
public final class ReplayService: ExchangeService {
    /// How recorded timings are replayed.
    public enum Timing: Hashable, Sendable {
        /// As recorded.
        case recorded
        /// At once.
        case instant
        /// Recorded durations times this factor.
        case scaled(Double)

        /// Parses `recorded`, `instant` or `scale=X`.
        public init?(parsing text: String) {
            switch text {
            case "recorded": self = .recorded
            case "instant": self = .instant
            default:
                guard text.hasPrefix("scale="), let factor = Double(text.dropFirst(6)), factor >= 0, factor.isFinite else { return nil }
                self = .scaled(factor)
            }
        }

        var factor: Double {
            switch self {
            case .recorded: 1
            case .instant: 0
            case let .scaled(factor): factor
            }
        }
    }

    /// What to answer when nothing in the cassette matches.
    public enum OnMiss: Hashable, Sendable {
        /// `404 Not Found` with the explanation.
        case notFound
        /// `502 Bad Gateway` with the explanation.
        case badGateway
        /// Forward to this origin (not recorded), the explanation logged.
        case passthrough(URL)

        /// Parses `404`, `502` or `passthrough=URL`.
        public init?(parsing text: String) {
            switch text {
            case "404": self = .notFound
            case "502": self = .badGateway
            default:
                guard text.hasPrefix("passthrough="), let url = URL(string: String(text.dropFirst(12))), ReplayService.isOrigin(url) else { return nil }
                self = .passthrough(url)
            }
        }
    }

    /// Whether the request is a `CONNECT` (asking for a tunnel).
    static func isConnect(_ request: IncomingRequest) -> Bool { request.method.uppercased() == "CONNECT" }

    /// Whether `url` is an http(s) origin: a scheme and host, maybe a port (1–65535), nothing
    /// after but a `/` — what `--upstream` and `passthrough=` take. A path would not be put before the
    /// request's (the request goes to the same path on the upstream), so one is refused rather
    /// than silently dropped.
    ///
    /// ```swift
    /// ReplayService.isOrigin(URL(string: "http://127.0.0.1:8080")!)          // true
    /// ReplayService.isOrigin(URL(string: "http://127.0.0.1:8080/api/v2")!)   // false
    /// ReplayService.isOrigin(URL(string: "http://127.0.0.1:70000")!)         // false
    /// ```
    public static func isOrigin(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else { return false }
        // Foundation reads `:70000` as a port; a socket would take it modulo 65,536 (port 4464).
        if let port = url.port, !(1...65_535).contains(port) { return false }
        let path = url.path(percentEncoded: true)
        return (path.isEmpty || path == "/") && url.query == nil && url.fragment == nil && url.user == nil
    }

    /// How the service behaves.
    public struct Options: Sendable {
        /// How recorded timings are replayed.
        public var timing: Timing = .recorded
        /// What to answer on a miss.
        public var onMiss: OnMiss = .notFound
        /// How requests are matched.
        public var rules = MatchRules()
        /// Applied to both sides of matching (as in-process replay does).
        public var redactor = Redactor()
        /// Socket faults (nil: none).
        public var faults: SocketFaults?
        /// Told about every miss and every fault, as a line (the CLI prints them to stderr).
        public var log: (@Sendable (String) -> Void)?
        /// The scheme (`http` or `https`) to match a request as when its `Host` names a host
        /// recorded under both and no `X-Forwarded-Proto` field says which (nil: decided by the
        /// recorded entries, see ``ReplayService``).
        public var preferredScheme: String?

        /// Recorded timings, 404 on a miss, default matching and redaction, no faults.
        public init(timing: Timing = .recorded, onMiss: OnMiss = .notFound, faults: SocketFaults? = nil) {
            self.timing = timing
            self.onMiss = onMiss
            self.faults = faults
        }
    }

    /// The cassette served.
    public let cassette: Cassette
    /// The options.
    public let options: Options
    /// The recorded origins (`http://host:port`), in order of first appearance.
    public let origins: [String]
    /// ``origins`` taken apart, for matching against `Host`.
    let parsedOrigins: [Origin]
    private let source: String
    let player: Mutex<CassettePlayer>
    private let missLog = Mutex(RecentLog<String>(capacity: ReplayService.keptMisses))
    /// Exchanges answered (admin requests are not exchanges), as a fault plan numbers them.
    private let exchanges = Atomic<Int>(0)
    /// Interactions played and misses before the last reset, and how many resets there were.
    private let earlier = Mutex<(played: Int, misses: Int, resets: Int)>((0, 0, 0))
    let forwarder: UpstreamClient?
    /// Every recorded origin and its loopback aliases (see ``loopbackAliases(of:)``), worked out once: a `Location` naming any of them is
    /// rewritten to this server, so a redirect to another recorded origin (http to https, the
    /// apex to `www`) is followed here, not to the real site.
    private let allOrigins: [Origin]

    /// Serves `cassette`; `source` names it in miss explanations.
    public init(cassette: Cassette, source: String = "cassette", options: Options = Options()) {
        self.cassette = cassette
        self.options = options
        self.source = source
        var seen = Set<String>()
        // (A stub matching by pattern names no origin: its request is only a stand-in.)
        origins = cassette.interactions.filter { $0.pattern == nil }.compactMap { Self.origin(of: $0.request.url) }.filter { seen.insert($0).inserted }
        parsedOrigins = origins.compactMap { URL(string: $0).flatMap(Origin.init) }
        allOrigins = origins.flatMap { [$0] + Self.loopbackAliases(of: $0) }.compactMap { URL(string: $0).flatMap(Origin.init) }
        player = Mutex(Self.makePlayer(cassette, source: source, options: options))
        if case let .passthrough(url) = options.onMiss {
            forwarder = UpstreamClient(upstream: url)
        } else {
            forwarder = nil
        }
    }

    /// Reads the cassette at `url` (recovering an interrupted recording's journal first).
    public convenience init(contentsOf url: URL, options: Options = Options()) throws(CassetteError) {
        try CassetteJournal.recover(cassette: url)
        self.init(cassette: try CassetteFile.read(url, foreign: .convert), source: url.path, options: options)
    }

    private static func makePlayer(_ cassette: Cassette, source: String, options: Options) -> CassettePlayer {
        CassettePlayer(cassette: cassette, rules: options.rules, afterLast: .repeatLast, redactor: options.redactor, source: source)
    }

    /// Every interaction unplayed again, the miss log emptied, and the fault plan started over
    /// (``SocketFaults/reset(afterExchange:afterConnection:)``) (`POST /__tapedeck/reset`, SIGHUP): the server answers the next
    /// requests as a fresh one with the same seed would.
    public func reset() {
        reset(after: nil)
        options.log?("reset: every interaction unplayed again, the fault plan started over")
    }

    /// ``reset()``, asked by request `request` (whose numbers the fault plan then counts from).
    private func reset(after request: IncomingRequest?) {
        let played = player.withLock { player in
            defer { player = Self.makePlayer(cassette, source: source, options: options) }
            return player.consumedCount
        }
        let missed = missLog.withLock { log in
            defer { log.removeAll() }
            return log.total
        }
        earlier.withLock { $0 = (played: $0.played + played, misses: $0.misses + missed, resets: $0.resets + 1) }
        options.faults?.reset(afterExchange: exchanges.load(ordering: .relaxed), afterConnection: request?.connection ?? 0)
    }

    /// How many misses ``misses`` keeps: a long-running server forgets older ones.
    public static let keptMisses = 1_000

    /// The misses so far, explained: the last ``keptMisses`` of them.
    public var misses: [String] { missLog.withLock { $0.entries } }

    /// How many misses there were in all since the last reset, including those no longer kept.
    public var missCount: Int { missLog.withLock { $0.total } }

    /// How many recorded interactions have been played since the last reset.
    public var playedCount: Int { player.withLock { $0.consumedCount } }

    /// What the server did since it started, resets and all: interactions played, misses, resets.
    public var lifetimeCounts: (played: Int, misses: Int, resets: Int) {
        let before = earlier.withLock { $0 }
        return (before.played + playedCount, before.misses + missCount, before.resets)
    }

    /// Drops a connection at accept when a `refused` fault says so.
    public func dropsConnection(_ connection: Int) -> Bool {
        guard let faults = options.faults, let fired = faults.droppedConnection(connection) else { return false }
        // Numbered as the plan counts connections (from the last reset), as the firing log is.
        options.log?("\(fired.description): dropped at accept")
        return true
    }

    /// The host (and port) a `Location` naming a recorded origin is rewritten to: the `Host` the
    /// client named. A proxy-style client (an absolute target) reaches every origin through this
    /// server, so its Locations stay as recorded — unless it named an origin other than the one a
    /// `tapedeck record` cassette holds (its upstream's): then they name the origin it named, as
    /// `record` gave them to it live.
    private func servedName(_ request: IncomingRequest) -> String? {
        guard let absolute = Self.absoluteTarget(request) else {
            // A client that reaches this server by a recorded origin's own name (a browser's
            // `MAP *` host-resolver rule) is taken to reach the cassette's other origins by name
            // too: their Locations keep their hosts (in `http`), or a hop to another of them
            // would go back to the host asked.
            guard let host = request.headers.value(for: "Host") else { return nil }
            return namesRecordedOrigin(host) ? Self.eachLocationsOwnHost : host
        }
        guard parsedOrigins.count == 1, let named = Origin(absolute), named.scheme == "http",
              !allOrigins.contains(where: { $0.scheme == named.scheme && $0.serves(host: named.host, port: named.port) }) else { return nil }
        let host = named.host.contains(":") && !named.host.hasPrefix("[") ? "[\(named.host)]" : named.host
        return named.port.map { "\(host):\($0)" } ?? host
    }

    /// Whether a `Host` field names one of the cassette's origins by a name (not an address),
    /// port and all (none: the origin's scheme's default). An `https` origin is named over plain
    /// HTTP too (port 80 or none): a client whose resolver maps the site's names here asks for the
    /// https-only apex of a site as `http://apex/`, and its hop to `www` must keep `www`.
    private func namesRecordedOrigin(_ host: String) -> Bool {
        let (name, port) = Origin.hostAndPort(host)
        // An address (`127.0.0.1:8080`, `localhost`, `[::1]`) is how a client reaches this server
        // itself, not a name mapped to it: serve standing in for a dev server on its old port
        // must not send the client to the cassette's other hosts for real.
        let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
        if ServerOptions.isLoopback(bare) || ServerOptions.isIPv4Address(bare) || bare.contains(":") { return false }
        return allOrigins.contains { origin in
            origin.serves(host: name, port: port) || (origin.scheme == "https" && port == 80 && origin.serves(host: name, port: nil))
        }
    }

    /// Answers from the cassette (or the admin endpoint, or the miss policy).
    public func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        if request.target.hasPrefix("/__tapedeck/") { return answer(admin(request)) }
        if let refusal = ServerAnswer.asteriskForm(request) { return answer(refusal) }
        // Numbered among the exchanges a fault plan sees: admin requests (a readiness poll, a
        // look at the misses) are not, so they never shift which request an `exchanges` site hits.
        let exchange = exchanges.add(1, ordering: .relaxed).newValue
        guard let url = matchURL(for: request) else { return answer(.text(400, "tapedeck: the request target '\(request.target)' is not a URL path\n")) }
        let snapshot = snapshot(request, url: url)
        let reply = player.withLock { $0 }.reply(to: snapshot, context: ResponderContext(exchange: request.number, transaction: 0, time: .zero))
        var result: ServerAnswer
        var isMiss = false
        switch reply {
        case let .response(plan):
            let origin = Self.origin(of: url)
            result = Self.answer(plan, timing: options.timing, origins: origin == nil ? [] : allOrigins, served: servedName(request),
                                 requested: Self.absoluteTarget(request)?.absoluteString
                                    ?? request.headers.value(for: "Host").map { "http://\($0)\(request.target)" })
            Self.negotiateEncoding(&result, acceptEncoding: request.headers.value(for: "Accept-Encoding"))
            if let pageOrigin = request.headers.value(for: "Origin") { Self.reflectLoopbackOrigin(&result, requestOrigin: pageOrigin) }
            if Self.isConnect(request) {
                // A recorded tunnel that opened cannot be replayed (what went through it was
                // encrypted): a 2xx here would leave the client talking TLS to a plain server.
                if (200..<300).contains(result.status) {
                    // NIO sends no body with an answer to CONNECT: the reason goes to the log too.
                    options.log?("CONNECT \(request.target): a recorded tunnel cannot be replayed (serve speaks plain HTTP): answered 502")
                    result = .text(502, "tapedeck: a recorded CONNECT tunnel to \(request.target) cannot be replayed: serve speaks plain HTTP; "
                                   + "point the client at this server directly (not as its proxy)\n",
                                   headers: [HeaderField("X-Tapedeck-Failure", "tunnel")], close: true)
                } else {
                    result.close = true
                }
            }
        case let .failure(failure, after):
            result = .text(502, "tapedeck: the recording has a transport failure here: \(failure)\n",
                           headers: [HeaderField("X-Tapedeck-Failure", "recorded")])
            // As late as the failure came when recorded (a timeout after its wait), scaled.
            if options.timing.factor > 0 { result.delivery.headDelay = .seconds(rounding: after.timeInterval * options.timing.factor) }
        case let .noMatch(reason):
            if let preflight = preflightAnswer(request, url: url) {
                options.log?("preflight: OPTIONS \(url.path) answered from the CORS fields of entry \(preflight.entry) (the recording has no preflight)")
                result = preflight.answer
                break
            }
            missLog.withLock { $0.append(reason) }
            options.log?("miss: " + reason)
            // A miss is this server's own explanation, not the service's answer: no fault may
            // hide it (a 503 a client retries, a reset). It still counts as an exchange.
            isMiss = true
            switch options.onMiss {
            case .notFound:
                // An answer to CONNECT has no body (the client would take it for the tunnel's
                // first bytes): the connection closes after the head instead.
                result = .text(404, reason + "\n", headers: [HeaderField("X-Tapedeck-Miss", "1")], close: Self.isConnect(request))
            case .badGateway:
                result = .text(502, reason + "\n", headers: [HeaderField("X-Tapedeck-Miss", "1")], close: Self.isConnect(request))
            case .passthrough:
                if let refusal = RecordService.refusesTunnel(request) { return answer(refusal.answer) }
                let outgoing = RequestSnapshot(method: snapshot.method, url: snapshot.url,
                                               headerFields: RecordService.forwardedFields(request.headers).fields, body: snapshot.body)
                return passThrough(outgoing, stream: request.stream, served: servedName(request), answer: answer)
            }
        case .stall:
            result = ServerAnswer(status: 200)
            result.delivery.stall = true
        case .deferred:
            result = .text(500, "tapedeck: a deferred answer cannot be served\n")
        }
        if let faults = options.faults, !isMiss {
            for fired in faults.apply(method: request.method, url: url, exchange: exchange, to: &result, redactor: options.redactor) {
                options.log?(fired.description)
            }
        }
        answer(result)
    }

    private func admin(_ request: IncomingRequest) -> ServerAnswer {
        if let refusal = Self.foreignAdminRequest(request) { return refusal }
        let path = request.target.split(separator: "?").first.map(String.init) ?? request.target
        switch (request.method, path) {
        case (_, "/__tapedeck/health"):
            return .text(200, "ok\n")
        case ("POST", "/__tapedeck/reset"), ("PUT", "/__tapedeck/reset"):
            reset(after: request)
            options.log?("reset: every interaction unplayed again, the fault plan started over")
            return .text(200, "reset\n")
        case ("GET", "/__tapedeck/misses"):
            let (misses, count) = missLog.withLock { ($0.entries, $0.total) }
            let earlier = count > misses.count ? "(\(count - misses.count) earlier misses not kept; the last \(misses.count) follow)\n\n" : ""
            return .text(200, misses.isEmpty ? "" : earlier + misses.joined(separator: "\n\n") + "\n", headers: [HeaderField("X-Tapedeck-Misses", String(count))])
        case ("GET", "/__tapedeck/faults"):
            let fired = options.faults?.fired ?? [], count = options.faults?.firedCount ?? 0
            let earlier = count > fired.count ? "(\(count - fired.count) earlier firings not kept; the last \(fired.count) follow)\n" : ""
            return .text(200, earlier + fired.map(\.description).joined(separator: "\n") + (fired.isEmpty ? "" : "\n"),
                         headers: [HeaderField("X-Tapedeck-Faults", String(count))])
        default:
            return .text(404, "tapedeck admin: GET /__tapedeck/health, POST /__tapedeck/reset, GET /__tapedeck/misses, GET /__tapedeck/faults\n")
        }
    }

    /// A `403` for an admin request a web page could have made: one addressed to a domain name
    /// (`Host`), which DNS rebinding can point at this machine, or sent by a page at all
    /// (`Origin`, `null` included: a sandboxed or `data:` page), which a form may POST to `reset`
    /// without asking — unless the page is this machine's own (a loopback origin). A `Host` that is
    /// an IP address or `localhost` passes (curl, a test suite, another machine by address with
    /// `--allow-non-loopback`); one that does not parse does not.
    static func foreignAdminRequest(_ request: IncomingRequest) -> ServerAnswer? {
        func refused(_ field: String, _ value: String) -> ServerAnswer {
            .text(403, "tapedeck: admin endpoints answer only requests addressed to an IP address or localhost, from no page but this machine's (\(field): \(value))\n")
        }
        if let host = request.headers.value(for: "Host") {
            guard let name = URL(string: "http://" + host)?.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased() else { return refused("Host", host) }
            let isAddress = ServerOptions.isLoopback(name) || ServerOptions.isIPv4Address(name) || name.contains(":")
            if !isAddress { return refused("Host", host) }
        }
        if let origin = request.headers.value(for: "Origin") {
            let name = URL(string: origin)?.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
            guard let name, ServerOptions.isLoopback(name) else { return refused("Origin", origin) }
        }
        return nil
    }

    /// A client's connection, and with `passthrough=` the upstream one a miss may use.
    public var descriptorsPerConnection: Int {
        if case .passthrough = options.onMiss { 2 } else { 1 }
    }

    /// Closes the passthrough upstream's connections (the server is stopping its loops).
    public func serverWillStop() {
        forwarder?.shutdown()
    }
}
