public import Foundation
import Synchronization
public import TapedeckCassettes
import TapedeckHTTP

/// `tapedeck record`: a recording reverse proxy. Every request goes to the one upstream fixed at
/// start (never where the request says: not an open relay) through a `CassetteRecorder`, so the
/// modes, matching, redaction and crash-safe journal are the in-process recorder's own. A live
/// answer streams to the client as it arrives, all but its last piece, which waits until the
/// interaction is journalled (written and fsynced): a client never holds a complete answer the
/// journal does not.
///
/// Upstream failures (refused, timed out, reset) are recorded as failure entries and answered
/// `502` — or, when the upstream fails after its head was passed on, by resetting the client's
/// connection. Redirects are not followed: each hop is recorded and passed back, its `Location`
/// pointed at the proxy when it pointed at the upstream, so the client's next hop is recorded too.
///
/// ```swift
/// let service = try RecordService(upstream: URL(string: "http://127.0.0.1:8080")!, cassette: url)
/// let server = try TapedeckHTTPServer(service: service, options: ServerOptions())
/// // … on SIGTERM:
/// server.stopAccepting()
/// let summary = try service.finish()
/// try server.shutdown()
/// ```
public final class RecordService: ExchangeService {
    /// The upstream origin (`http://host:port`).
    public let upstream: URL
    /// The recorder every request goes through.
    public let recorder: CassetteRecorder
    /// The pooled connections to the upstream (the recorder's transport).
    public let client: UpstreamClient
    private let upstreamOrigin: String
    /// The upstream's other loopback names, whose `Location`s point back at the proxy too.
    private let upstreamAliases: [String]
    /// Where misses, refused upgrades and upstream failures that are not recorded are told (a
    /// line each), if anywhere.
    private let log: (@Sendable (String) -> Void)?
    /// Upstream failures answered `502` but not recorded (an upstream that switched protocols).
    private let unrecorded = Atomic<Int>(0)
    /// The live exchanges under way, for ``cutOff()``.
    private let exchanges = LiveExchanges()

    /// How many upstream failures were answered `502` without being recorded: an upstream that
    /// answered a plain request with `101 Switching Protocols` (no cassette can replay that).
    public var unrecordedFailures: Int { unrecorded.load(ordering: .relaxed) }

    /// A proxy to `upstream` recording into `cassette` with `options` (mode, redaction, matching;
    /// `options.live` gives the upstream timeouts, and the transport is always an ``UpstreamClient``);
    /// `trusting` adds PEM certificate authorities for an `https` upstream; `log` hears of each
    /// miss (a replaying recorder) and each refused protocol upgrade.
    public init(upstream: URL, cassette: URL, options: CassetteRecorder.Options = CassetteRecorder.Options(mode: .once),
                trusting: [Data] = [], log: (@Sendable (String) -> Void)? = nil) throws(CassetteError) {
        self.upstream = upstream
        self.log = log
        upstreamOrigin = ReplayService.origin(of: upstream) ?? upstream.absoluteString
        upstreamAliases = ReplayService.loopbackAliases(of: upstreamOrigin)
        client = UpstreamClient(upstream: upstream, options: options.live, trusting: trusting)
        var options = options
        options.transport = client
        // A client never gets an answer the journal could not keep: it gets a failure instead.
        options.answersOnlyStored = true
        // A client that went away (or a stop's cut) says nothing of the upstream: not kept.
        options.keepsCancelled = false
        recorder = try CassetteRecorder(cassette: cassette, options: options)
        // The recorder creates a missing directory; the command line wants an existing one (a typo
        // in --cassette should not make directories).
        if recorder.isRecording { try CassetteRecorder.checkWritable(cassette) }
    }

    /// The recorder's own endpoint, answered here, never forwarded nor recorded: `GET
    /// /__tapedeck/health` (a ready check a suite may share with `serve`); the rest of `serve`'s
    /// admin paths are refused with what there is. Only for requests addressed to this machine
    /// (see ``ReplayService``).
    static func admin(_ request: IncomingRequest, path: String) -> ServerAnswer {
        if let refusal = ReplayService.foreignAdminRequest(request) { return refusal }
        if path.split(separator: "?").first == "/__tapedeck/health" { return .text(200, "ok\n") }
        return .text(404, "tapedeck record: its only admin endpoint is GET /__tapedeck/health (reset, misses and faults are serve's)\n")
    }

    /// Forwards (or replays, per the mode) and answers. A protocol upgrade (a WebSocket's
    /// handshake) is refused with `501` before anything is forwarded or journalled: only HTTP
    /// exchanges are recorded, and a recorded `101` could not be replayed.
    public func handle(_ request: IncomingRequest, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        if let refusal = Self.refusesTunnel(request) {
            let target = recorder.options.redactor.redactURLText(request.target)
            log?("refused \(request.method) \(target): \(refusal.reason)")
            return answer(refusal.answer)
        }
        if let refusal = ServerAnswer.asteriskForm(request) { return answer(refusal) }
        let target = Self.originForm(request.target)
        if target.hasPrefix("/__tapedeck/") { return answer(Self.admin(request, path: target)) }
        // Only what a URL cannot hold is escaped (raw brackets, `|`, spaces); `URL(string:)` would
        // escape every `%` of such a target too, sending the upstream `%25C3%25A9` for `%C3%A9`.
        guard let url = LenientURL.parse(upstreamOrigin + target) else {
            return answer(.text(400, "tapedeck: the request target '\(request.target)' is not a URL path\n"))
        }
        let snapshot = RequestSnapshot(method: .init(request.method) ?? .get, url: url, headerFields: Self.forwardedFields(request.headers).fields,
                                       body: request.body.isEmpty ? nil : request.body)
        let host = request.headers.value(for: "Host")
        let reply = recorder.reply(to: snapshot, context: ResponderContext(exchange: request.number, transaction: 0, time: .zero))
        if case let .deferred(deferred) = reply, let reporting = deferred.startReporting, let stream = request.stream {
            let (method, redactor) = (request.method, recorder.options.redactor)
            forwardStreaming(reporting, to: stream, shown: { "\(method) \(redactor.redactURLText(target))" }, host: host, answer: answer)
        } else {
            deliver(reply, from: .cassette(acceptEncoding: request.headers.value(for: "Accept-Encoding"), origin: request.headers.value(for: "Origin")),
                    host: host, stream: request.stream, answer: answer)
        }
    }

    /// Where a reply ``deliver(_:from:host:stream:answer:)`` passes on came from.
    private enum Source {
        /// The cassette (the recorder replayed it): answered as `serve` answers it, the coding
        /// fitted to the client's `Accept-Encoding` and a loopback page's `Origin` reflected.
        case cassette(acceptEncoding: String?, origin: String?)
        /// The upstream, now: passed on as it came (the client's own fields went upstream).
        case live
    }

    /// A live exchange passed on as it arrives: the head and the body pieces go to the client at
    /// once, but for what would complete the answer (``AnswerStream``); the recorder journals the
    /// whole interaction before it delivers the final reply, and only then does the stream end. An upstream that fails
    /// before its head is answered 502 as usual; after its head, the client's connection is reset.
    /// A client that goes away stops the upstream exchange (which is then not recorded). An
    /// interim head (`101 Switching Protocols` to a plain request) is not passed on: the recorder
    /// turns it into a failure it does not keep, answered 502, logged and counted here.
    private func forwardStreaming(_ reporting: @Sendable (@escaping DeferredReply.Progress, @escaping DeferredReply.Deliver) -> DeferredReply.Cancel,
                                  to stream: AnswerStream, shown: @escaping LiveExchanges.Name, host: String?, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        guard let id = exchanges.begin(shown, stream: stream) else {
            // Stopping: the upstream exchange could be neither finished nor recorded.
            stream.note(.said("not forwarded: record was stopping"))
            return answer(.text(503, "tapedeck: record is stopping; \(shown()) was not forwarded\n", close: true))
        }
        // Cut off before its final reply, it is named by ``cutOffNotRecorded``.
        stream.note(.forwarding)
        let relay = AnswerRelay(stream) { [upstreamOrigin, upstreamAliases] head, reason in
            var plan = ResponsePlan(head: head)
            plan.reasonPhrase = reason
            return ReplayService.answer(plan, timing: .instant, origin: upstreamOrigin, aliases: upstreamAliases, served: host)
        }
        let cancel = reporting(relay.progress, { [self] final in
            // Before the end goes out: a stop that cut the answer off meanwhile names it so.
            Self.note(final, on: stream)
            exchanges.ended(id, delivered: true)
            // A response that broke off upstream breaks off here too.
            let whole: Bool
            if case let .response(plan) = final { whole = plan.interruption == nil } else { whole = false }
            guard relay.end(completed: whole) else {
                if relay.interim != 0, case let .failure(failure, _) = final {
                    unrecorded.add(1, ordering: .relaxed)
                    log?("upstream failure, answered 502 and not recorded: \(shown()): \(failure.detail ?? failure.description)")
                }
                return finished(final, host: host, stream: stream, answer: answer)
            }
            if case let .failure(failure, _) = final, failure.urlErrorCode == .cannotWriteToFile {
                // Said now, not only when the recording stops (a full disk fails every request).
                log?("not recorded, the client's answer cut short: \(shown()): \(failure.description)")
            }
        })
        exchanges.started(id, cancel: cancel)
        stream.whenClientGone { [exchanges, log] in
            // Said, or a script whose client half-closes after its request (`nc -N`, socat) sees
            // an empty reply and a stop line saying nothing was recorded, with no reason given.
            if exchanges.ended(id, delivered: false) {
                log?("not recorded, the client went before its answer: \(shown()) (its connection closed, or only its sending side, "
                        + "which record takes for its going, as nginx does; the upstream request was cancelled)")
            }
            cancel()
        }
    }

    /// What became of a live exchange's final reply, noted on its stream for a stop that cuts
    /// its answer off while it is still being written.
    private static func note(_ final: Reply, on stream: AnswerStream?) {
        switch final {
        case let .response(plan) where plan.interruption == nil:
            stream?.note(.said("the cassette holds it whole: the upstream had answered in full"))
        case .response:
            stream?.note(.said("the cassette holds it as the upstream broke it off"))
        case let .failure(failure, _) where failure.urlErrorCode == .cannotWriteToFile:
            stream?.note(.said("not recorded: the journal could not keep it"))
        case .failure:
            stream?.note(.said("recorded as the upstream's failure"))
        default:
            stream?.note(.said("not recorded"))
        }
    }

    private func deliver(_ reply: Reply, from source: Source, host: String?, stream: AnswerStream?, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        switch (source, reply) {
        case (_, .deferred): break   // noted when its final reply comes
        case (.cassette, .noMatch): stream?.note(.said("a miss, not recorded"))
        case (.cassette, _): stream?.note(.said("replayed from the cassette"))
        case (.live, _): Self.note(reply, on: stream)
        }
        switch reply {
        case let .response(plan):
            var result = ReplayService.answer(plan, timing: .instant, origin: upstreamOrigin, aliases: upstreamAliases, served: host)
            if case let .cassette(acceptEncoding, origin) = source {
                ReplayService.negotiateEncoding(&result, acceptEncoding: acceptEncoding)
                if let origin { ReplayService.reflectLoopbackOrigin(&result, requestOrigin: origin) }
            }
            answer(result)
        case let .failure(failure, _) where failure.urlErrorCode == .cannotWriteToFile:
            // Not the upstream's doing: the journal could not keep the interaction.
            log?("not recorded, answered 503: \(failure.description)")
            answer(.text(503, "tapedeck: \(failure.description)\n", headers: [HeaderField("X-Tapedeck-Failure", "journal")]))
        case let .failure(failure, _):
            if case .cassette = source {
                // Replayed as `serve` replays it: this failure was recorded, no upstream was asked now.
                answer(.text(502, "tapedeck: the recording has a transport failure here: \(failure)\n",
                             headers: [HeaderField("X-Tapedeck-Failure", "recorded")]))
            } else {
                answer(.text(502, "tapedeck: the upstream failed: \(failure.detail ?? failure.description)\n", headers: [HeaderField("X-Tapedeck-Failure", "upstream")]))
            }
        case let .noMatch(reason):
            log?("miss: " + reason)
            answer(.text(404, reason + "\n", headers: [HeaderField("X-Tapedeck-Miss", "1")]))
        case .stall:
            answer(.text(504, "tapedeck: no answer\n"))
        case let .deferred(deferred):
            // The recorder journals the interaction before it calls `deliver`.
            _ = deferred.start { [self] final in finished(final, host: host, stream: stream, answer: answer) }
        }
    }

    /// A deferred reply's final answer (which may not defer again).
    private func finished(_ final: Reply, host: String?, stream: AnswerStream?, answer: @escaping @Sendable (ServerAnswer) -> Void) {
        if case .deferred = final {
            answer(.text(500, "tapedeck: a deferred answer deferred again\n"))
        } else {
            deliver(final, from: .live, host: host, stream: stream, answer: answer)
        }
    }

    /// The path and query of a request target: an absolute-form target (`GET http://host/x?y`,
    /// as a client sends it to a proxy set in `HTTP_PROXY`) loses its scheme and authority — the
    /// request goes to the fixed upstream whatever host it names — and an empty path is `/`.
    ///
    /// ```swift
    /// RecordService.originForm("http://api.test:8080/items?id=1")   // "/items?id=1"
    /// RecordService.originForm("https://api.test?q=1")               // "/?q=1"
    /// ```
    static func originForm(_ target: String) -> String {
        // Nearly every target is already in origin form; Foundation's `range(of:)` below is slow.
        if target.utf8.first == UInt8(ascii: "/") { return target }
        var rest = Substring(target)
        if let scheme = rest.range(of: "://"), rest[..<scheme.lowerBound].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
           !rest[..<scheme.lowerBound].isEmpty {
            rest = rest[scheme.upperBound...]
            rest = rest[(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)...]
        }
        return rest.hasPrefix("/") ? String(rest) : "/" + rest
    }

    /// A `501` for a request that asks for a tunnel rather than an exchange — a protocol upgrade
    /// (a WebSocket's handshake) or `CONNECT` — with why, or nil for any other request. A tunnel
    /// carries bytes no cassette can hold or replay (and a `CONNECT` answered `200` made the client
    /// think one had opened).
    static func refusesTunnel(_ request: IncomingRequest) -> (answer: ServerAnswer, reason: String)? {
        let reason: String
        if request.method.uppercased() == "CONNECT" {
            reason = "a CONNECT asks for a tunnel, which is neither forwarded nor recorded"
        } else if let protocols = request.headers.value(for: "Upgrade"), connectionOptions(request.headers).contains("upgrade"),
                  !offersOnlyH2C(protocols) {
            // An `Upgrade` its `Connection` does not name is no offer (RFC 9110 §7.8): the request
            // is an ordinary one, forwarded without that field.
            let kind = protocols.lowercased().contains("websocket") ? " (a WebSocket)" : ""
            reason = "an upgrade to '\(protocols)'\(kind) is neither forwarded nor recorded: only HTTP/1.1 exchanges are"
        } else {
            return nil
        }
        return (.text(501, "tapedeck: \(reason)\n", headers: [HeaderField("X-Tapedeck-Failure", "upgrade")], close: true), reason)
    }

    /// Whether an `Upgrade` field offers nothing but HTTP/2 over cleartext (`h2c`), as Java's
    /// default `HttpClient` and `curl --http2` do on `http://` URLs: an offer a server may ignore
    /// (RFC 9110 §7.8), so the request is forwarded and recorded as HTTP/1.1 (`Upgrade` and
    /// `HTTP2-Settings` are the hop's, not forwarded).
    static func offersOnlyH2C(_ protocols: String) -> Bool {
        let offered = protocols.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return !offered.isEmpty && offered.allSatisfy { $0 == "h2c" }
    }

    /// A client's request fields as a proxy passes them on (`record`, and `serve`'s passthrough):
    /// in order and case, without the hop's own (``notForwarded``) and those its `Connection`
    /// field names.
    static func forwardedFields(_ headers: [HeaderField]) -> HTTPFieldsBuilder {
        let dropped = notForwarded.union(connectionOptions(headers))
        var fields = HTTPFieldsBuilder()
        for field in headers where !dropped.contains(field.name.lowercased()) {
            fields.append(field.name, field.value)
        }
        return fields
    }

    /// The fields a request's `Connection` header names (lowercased): they are for this hop only,
    /// and a proxy removes them (RFC 9110, 7.6.1).
    ///
    /// ```swift
    /// RecordService.connectionOptions([HeaderField("Connection", "keep-alive, X-Hop")])   // ["keep-alive", "x-hop"]
    /// ```
    static func connectionOptions(_ headers: [HeaderField]) -> Set<String> {
        var names: Set<String> = []
        for field in headers where field.name.equalsIgnoringASCIICase("Connection") {
            for token in field.value.split(separator: ",") {
                let name = token.trimmingCharacters(in: .whitespaces).lowercased()
                if !name.isEmpty { names.insert(name) }
            }
        }
        return names
    }

    /// Fields that are the proxy's or the connection's, not the request's.
    static let notForwarded: Set<String> = [
        "host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-connection", "proxy-authorization", "expect", "http2-settings",
    ]

    /// Stops, for good, the live exchanges still under way (after a stop's wait for them): each
    /// upstream exchange is cancelled, so the recorder keeps nothing of it — a request cut off by
    /// the proxy's own stop says nothing about the upstream, and kept as a failure it would be
    /// replayed as one — and its client's connection is reset (a cut-off answer, never a
    /// complete one). A live request arriving after this is answered `503`. Returns the exchanges
    /// cut off (method and redacted target); wait for ``settled`` before ``finish()``.
    @discardableResult
    public func cutOff() -> [String] {
        exchanges.cutOff()
    }

    /// The exchanges ``cutOff()`` stopped that nothing was recorded for: those whose upstream
    /// exchange had not completed before the cut (one that had is journalled and kept).
    public var cutOffNotRecorded: [String] {
        exchanges.notRecorded
    }

    /// Whether no live exchange is running in the recorder (each cut off one has heard of its
    /// cancel): ``finish()`` then reports none still running.
    public var settled: Bool {
        recorder.liveRequests == 0
    }

    /// Closes the upstream connections, then merges what was recorded into the cassette
    /// (`CassetteRecorder.finish(succeeded:)`). Call it before the server's event loops stop.
    @discardableResult
    public func finish() throws(CassetteError) -> CassetteRecorder.Summary {
        client.shutdown()
        return try recorder.finish()
    }

    /// A client's connection and the upstream one it uses.
    public var descriptorsPerConnection: Int { 2 }

    /// Closes the upstream connections (the server is stopping its loops).
    public func serverWillStop() {
        client.shutdown()
    }
}
