public import Foundation
import Synchronization
import TapedeckCassettes
import TapedeckHTTP

// Which recorded origin a request is matched against (see ReplayService's notes): absolute-form
// and CONNECT targets, the Host field, X-Forwarded-Proto and --scheme, and the recorded entries.

extension ReplayService {
    /// The URL the request is matched as: the recorded origin it names plus its target (see the
    /// type's notes).
    public func matchURL(for request: IncomingRequest) -> URL? {
        var target = request.target.hasPrefix("/") ? request.target : "/" + request.target
        var host = request.headers.value(for: "Host").map(Origin.hostAndPort)
        if let absolute = Self.absoluteTarget(request) {
            // A recorded origin it names is matched as it stands. In a cassette of one origin —
            // what `record` writes: it stores the upstream's origin whatever host a proxy-style
            // client named — another origin's path and query are matched against that one. (With
            // several origins, another host is a miss: it must not take one of theirs' answers.)
            let named = Origin(absolute)
            guard request.method.uppercased() != "CONNECT", let named, parsedOrigins.count == 1,
                  !parsedOrigins.contains(where: { $0.scheme == named.scheme && $0.serves(host: named.host, port: named.port) }) else {
                return absolute
            }
            target = RecordService.originForm(request.target)
            host = nil
        }
        var candidates = parsedOrigins.filter { origin in host.map { origin.serves(host: $0.host, port: $0.port) } ?? false }
        if candidates.isEmpty { candidates = parsedOrigins }
        let forwarded = request.headers.value(for: "X-Forwarded-Proto")?.split(separator: ",").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for scheme in [forwarded, options.preferredScheme?.lowercased()] {
            guard let scheme else { continue }
            let chosen = candidates.filter { $0.scheme == scheme }
            if !chosen.isEmpty { candidates = chosen; break }
        }
        guard candidates.count > 1 else {
            let origin = candidates.first?.text ?? "http://\(request.headers.value(for: "Host")?.lowercased() ?? "localhost")"
            return LenientURL.parse(origin + target)
        }
        // Several origins: the one whose matching entry comes first among the unplayed ones, so a
        // redirect from http to https on one host replays hop by hop; else one with a match.
        let player = player.withLock { $0 }
        var best: (url: URL, order: (Int, Int))?
        var played: URL?
        for origin in candidates {
            guard let url = LenientURL.parse(origin.text + target),
                  let found = player.nextMatch(for: snapshot(request, url: url)) else { continue }
            let order = (cassette.interactions[found.position].index, found.position)
            if found.unplayed {
                if best.map({ order < $0.order }) ?? true { best = (url, order) }
            } else if played == nil {
                played = url
            }
        }
        return best?.url ?? played ?? LenientURL.parse(candidates[0].text + target)
    }

    /// The same origin by its other loopback names: `http://127.0.0.1:8080` is also
    /// `http://localhost:8080` and `http://[::1]:8080` (an upstream started on one may name itself
    /// by another in its redirects); none for any other host.
    ///
    /// ```swift
    /// ReplayService.loopbackAliases(of: "http://127.0.0.1:8080")   // ["http://localhost:8080", "http://[::1]:8080"]
    /// ```
    static func loopbackAliases(of origin: String) -> [String] {
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return [] }
        let names = ["127.0.0.1", "localhost", "[::1]"]
        let own = host.utf8.contains(UInt8(ascii: ":")) && !host.hasPrefix("[") ? "[\(host)]" : host
        guard names.contains(own) else { return [] }
        let port = url.port.map { ":\($0)" } ?? ""
        return names.filter { $0 != own }.map { "\(scheme)://\($0)\(port)" }
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), var host = url.host?.lowercased() else { return nil }
        // An IPv6 literal keeps its brackets (`URL.host` drops them): `http://[::1]:8080`.
        if host.utf8.contains(UInt8(ascii: ":")), !host.hasPrefix("[") { host = "[\(host)]" }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    /// The URL of an absolute-form target (`GET http://host/path`, as sent to a proxy), or of a
    /// `CONNECT host:port` (https unless the port is 80); nil for an origin-form target.
    static func absoluteTarget(_ request: IncomingRequest) -> URL? {
        let target = request.target
        let lower = target.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            return LenientURL.parse(target)
        }
        if request.method.uppercased() == "CONNECT", !target.hasPrefix("/"), !target.isEmpty {
            let port = Origin.hostAndPort(target).port
            return URL(string: (port == 80 ? "http://" : "https://") + target + "/")
        }
        return nil
    }

    /// What the player is asked: the request as read, at `url`.
    func snapshot(_ request: IncomingRequest, url: URL) -> RequestSnapshot {
        var fields = HTTPFieldsBuilder()
        for field in request.headers { fields.append(field.name, field.value) }
        return RequestSnapshot(method: .init(request.method) ?? .get, url: url, headerFields: fields.fields,
                               body: request.body.isEmpty ? nil : request.body)
    }
}

/// A recorded origin, taken apart for matching a `Host` field against it.
struct Origin: Sendable {
    var text: String
    var scheme: String
    var host: String
    var port: Int?

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        text = url.absoluteString
        self.scheme = scheme
        self.host = host
        port = url.port
    }

    /// The scheme's default port (80, 443), nil for another scheme.
    var defaultPort: Int? { scheme == "https" ? 443 : scheme == "http" ? 80 : nil }

    /// Whether `Host: host[:port]` names this origin (no port: the scheme's default).
    func serves(host: String, port: Int?) -> Bool {
        guard host == self.host || host == "[\(self.host)]" || "[\(host)]" == self.host else { return false }
        return (port ?? defaultPort) == (self.port ?? defaultPort)
    }

    /// A `Host` value (or an authority) taken apart: lower-cased host (IPv6 in brackets) and port.
    static func hostAndPort(_ value: String) -> (host: String, port: Int?) {
        let text = value.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            return (String(text[...close]), rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        guard let colon = text.lastIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), Int(text[text.index(after: colon)...]))
    }
}
