import Foundation
import TapedeckCassettes
import TapedeckHTTP

// How a recorded or live answer becomes what the server sends: a body stored decoded goes out
// decoded, a `Location` naming a recorded origin points back at the server, recorded timings
// become delays.

extension ReplayService {
    /// What a live exchange (passthrough, recording) answers the client.
    static func liveAnswer(_ live: LiveForwarder.Result) -> ServerAnswer {
        switch live.outcome {
        case let .response(response):
            return answer(response, timings: nil, timing: .instant)
        case let .failure(failure):
            return .text(502, "tapedeck: upstream failed: \(failure.message)\n", headers: [HeaderField("X-Tapedeck-Failure", "upstream")])
        }
    }

    /// What follows the origin in an absolute `Location` (its path, query and fragment) when that
    /// origin is one of `origins` — compared as origins are, so `https://host:443/` is
    /// `https://host/`; nil for a relative `Location` or another origin.
    static func pathAfterOrigin(_ value: String, among origins: [Origin]) -> Substring? {
        guard namedOrigin(value, among: origins) != nil, let separator = value.range(of: "//") else { return nil }
        let authority = value[separator.upperBound...]
        return authority[(authority.firstIndex(where: { "/?#".contains($0) }) ?? authority.endIndex)...]
    }

    /// The origin an absolute `Location` names when it is one of `origins` (in its own scheme; a
    /// protocol-relative `//host:port/path` in whichever scheme of theirs it names), else nil.
    static func namedOrigin(_ value: String, among origins: [Origin]) -> Origin? {
        let candidates = value.hasPrefix("//") ? ["http:" + value, "https:" + value] : value.contains("://") ? [value] : []
        for candidate in candidates {
            guard let url = URL(string: candidate), let named = Origin(url) else { continue }
            if origins.contains(where: { $0.scheme == named.scheme && $0.serves(host: named.host, port: named.port) }) { return named }
        }
        return nil
    }

    /// `host[:port]` of `origin`, the port left out when it is its scheme's default, an IPv6
    /// host in brackets.
    static func authority(_ origin: Origin) -> String {
        let host = origin.host.contains(":") && !origin.host.hasPrefix("[") ? "[\(origin.host)]" : origin.host
        guard let port = origin.port, port != origin.defaultPort else { return host }
        return "\(host):\(port)"
    }

    /// Whether two absolute URLs name the same thing as a client compares them: scheme and host in
    /// any case, a default port spelt out or not, the rest as written.
    static func sameURL(_ a: String, _ b: String) -> Bool {
        func parts(_ text: String) -> (String, String, Substring)? {
            guard let url = URL(string: text), let origin = Origin(url), let separator = text.range(of: "://") else { return nil }
            let afterScheme = text[separator.upperBound...]
            return (origin.scheme, Self.authority(origin), afterScheme[(afterScheme.firstIndex(where: { "/?#".contains($0) }) ?? afterScheme.endIndex)...])
        }
        guard let left = parts(a), let right = parts(b) else { return a == b }
        // An empty path is `/` (`http://h?x=1` is `http://h/?x=1`)
        func path(_ rest: Substring) -> String { rest.hasPrefix("/") ? String(rest) : "/" + rest }
        return left.0 == right.0 && left.1 == right.1 && path(left.2) == path(right.2)
    }

    /// A CORS answer recorded for a page served from the recording machine (`record`'s own
    /// address, a dev server on localhost) names that page's origin in `Access-Control-Allow-Origin`;
    /// replayed to a page on this machine at another address (`serve` on another port), it names
    /// the requesting page's origin instead, or the browser would refuse it. Origins elsewhere,
    /// and `*`, stay as recorded.
    ///
    /// ```swift
    /// // recorded: Access-Control-Allow-Origin: http://localhost:18302; request Origin: http://localhost:8080
    /// ReplayService.reflectLoopbackOrigin(&answer, requestOrigin: "http://localhost:8080")   // now names :8080
    /// ```
    static func reflectLoopbackOrigin(_ answer: inout ServerAnswer, requestOrigin: String) {
        func isLocal(_ text: String) -> Bool {
            guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), url.scheme != nil, var host = url.host else { return false }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return ServerOptions.isLoopback(host)
        }
        guard isLocal(requestOrigin) else { return }
        for index in answer.headers.indices where answer.headers[index].name.equalsIgnoringASCIICase("Access-Control-Allow-Origin") {
            let value = answer.headers[index].value
            if value != requestOrigin, isLocal(value) { answer.headers[index].value = requestOrigin }
        }
    }

    /// The answer a recorded response gives: a body stored decoded goes out decoded (its
    /// `Content-Encoding` dropped), and `Location` pointing at the recorded origin — or at one of
    /// `aliases`: the same origin by another name, or another origin of the cassette (its next hop
    /// is replayed here too) — points here; a cookie for the origin's site is kept for the host
    /// the client used (``dropForeignCookieDomains(_:origins:clientHost:)``).
    static func answer(_ plan: ResponsePlan, timing: Timing, origin: String?, aliases: [String] = [], served host: String?) -> ServerAnswer {
        let rewritable = plan.head.headerFields.contains {
            $0.name.rawName.equalsIgnoringASCIICase("Location") || $0.name.rawName.equalsIgnoringASCIICase("Set-Cookie")
        }
        let names = rewritable && origin != nil ? ([origin!] + aliases).compactMap { URL(string: $0).flatMap(Origin.init) } : []
        return answer(plan, timing: timing, origins: names, served: host)
    }

    /// The `served` host meaning: each `Location` naming a recorded origin keeps its own host and
    /// port, in `http` (the client reaches every recorded origin here by its name). It holds a
    /// NUL, which no `Host` field can: a client cannot ask for it.
    static let eachLocationsOwnHost = "\u{0}each Location's own host"

    /// ``answer(_:timing:origin:aliases:served:)`` with the origins a `Location` may name already
    /// taken apart (a replay server works them out once, not per answer); `requested`, the URL the
    /// client asked for (serve's answers: a rewritten permanent redirect is made uncacheable).
    static func answer(_ plan: ResponsePlan, timing: Timing, origins names: [Origin], served host: String?, requested: String? = nil) -> ServerAnswer {
        var headers: [HeaderField] = []
        for field in plan.head.headerFields {
            headers.append(HeaderField(field.name.rawName, field.value))
        }
        var response = RecordedResponse(status: plan.head.status, statusText: plan.reasonPhrase, headers: headers, body: plan.body,
                                        bodyForm: plan.bodyForm)
        response.interruption = plan.interruption.map { RecordedFailure(code: $0.urlErrorCode.rawValue, message: "\($0)") }
        if let sizes = plan.chunkSizes, let offsets = plan.chunkOffsets, sizes.count == offsets.count {
            response.chunks = zip(sizes, offsets).map { BodyChunk(bytes: $0, at: $1) }
        }
        if !names.isEmpty, let host, response.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Location") }) {
            var rewritten = false
            response.headers = response.headers.map { field in
                guard field.name.equalsIgnoringASCIICase("Location"), let rest = pathAfterOrigin(field.value, among: names) else { return field }
                let value: String
                if host == eachLocationsOwnHost {
                    // The Location's own host and port, in `http` (this server's scheme): its scheme's
                    // default port left out (`https://h:443/` is `http://h/`, not plain HTTP to 443)
                    guard let named = namedOrigin(field.value, among: names) else { return field }
                    value = "http://" + Self.authority(named) + rest
                } else {
                    value = "http://\(host)" + rest
                }
                // One that already said this is not rewritten (a client reaching the origin by its name).
                if value != field.value { rewritten = true }
                return HeaderField(field.name, value)
            }
            // A permanent redirect pointed here by `serve` (`requested` given; `record` passes the
            // live one on as it came) is this replay's, not the site's: not to be cached.
            // One that now names the very URL it answers (http → https of one site, www → apex,
            // opened at this server's address) is answered as its temporary twin (301 → 302,
            // 308 → 307: the same method rules): a browser follows a permanent redirect to the
            // same URL from memory, looping, and the cassette's next hop would never play.
            if rewritten, requested != nil, response.status == 301 || response.status == 308 {
                response.headers.removeAll { $0.name.equalsIgnoringASCIICase("Cache-Control") || $0.name.equalsIgnoringASCIICase("Expires") }
                response.headers.append(HeaderField("Cache-Control", "no-store"))
                if let requested, let location = response.headers.value(for: "Location"), Self.sameURL(location, requested) {
                    response.statusText = response.status == 301 ? "Found" : "Temporary Redirect"
                    response.status = response.status == 301 ? 302 : 307
                }
            }
        }
        if !names.isEmpty, let host, host != eachLocationsOwnHost {
            dropForeignCookieDomains(&response.headers, origins: names, clientHost: host)
        }
        return answer(response, timings: plan.timings, timing: timing)
    }

    static func answer(_ response: RecordedResponse, timings: ExchangeTimings?, timing: Timing) -> ServerAnswer {
        var headers = response.headers
        if response.bodyForm == .decoded {
            headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Encoding") }
        }
        var answer = ServerAnswer(status: response.status, headers: headers, body: response.body)
        answer.reasonPhrase = response.statusText
        if response.interruption != nil {
            // The recording broke off: the head, the bytes that came, then the end — short of the
            // length the server announced, or chunked with no last chunk when it announced none
            // (or its length was of the encoded body, which goes decoded).
            answer.delivery.cut = .brokenOff(afterBytes: response.body.count)
            let announced = response.bodyForm == .decoded ? nil
                : headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            answer.delivery.framing = announced.map { $0 > response.body.count ? .announced($0) : .sent } ?? .unannounced
        }
        if let timings, timing.factor > 0 {
            let scaled = timings.scaled(by: timing.factor)
            answer.delivery.headDelay = (scaled.connect ?? .zero) + scaled.send + scaled.wait
            if let chunks = response.chunks, chunks.reduce(0, { $0 + $1.bytes }) == response.body.count {
                // A stream goes out in its recorded pieces at their recorded pace.
                answer.delivery.pieces = chunks.map { BodyChunk(bytes: $0.bytes, at: .seconds(rounding: $0.at.timeInterval * timing.factor)) }
                // One that broke off breaks off when it did, after its last piece; one that
                // finished ends when it did (an event stream often holds still before its end),
                // with a piece of no bytes.
                if let last = answer.delivery.pieces?.last, scaled.receive > last.at {
                    if response.interruption != nil {
                        answer.delivery.cutDelay = scaled.receive - last.at
                    } else {
                        answer.delivery.pieces?.append(BodyChunk(bytes: 0, at: scaled.receive))
                    }
                }
            } else if response.interruption != nil {
                // The bytes that came are sent at once; the failure came at the end of the
                // receive time (a silence past the timeout, say).
                answer.delivery.cutDelay = scaled.receive
            } else {
                answer.delivery.bodyDelay = scaled.receive
            }
        }
        return answer
    }
}
