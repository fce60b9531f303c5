import Foundation
import TapedeckCassettes
import TapedeckHTTP

// What a `Set-Cookie` from a recorded (or live) origin needs to be kept by a client that reached
// that origin through this server at another host.

extension ReplayService {
    /// Drops the `Domain` attribute of each `Set-Cookie` whose domain is a recorded origin's site
    /// (`Domain=shop.test` from `http://api.shop.test`) but not one `clientHost` lies within: a
    /// browser or curl that reached this server as `127.0.0.1:8080` refuses a cookie for another
    /// domain, and a login kept in one would never come back. Without `Domain` the cookie is the
    /// host-only cookie of the host the client used (what nginx's `proxy_cookie_domain` is set up
    /// to give). A `Domain` the client's host is within, or naming a site no origin belongs to,
    /// stays as it came; the cassette keeps what the origin sent.
    ///
    /// ```swift
    /// // from http://api.shop.test: Set-Cookie: sid=1; Domain=.shop.test; Path=/
    /// // to a client whose Host is 127.0.0.1:8080:  Set-Cookie: sid=1; Path=/
    /// ```
    static func dropForeignCookieDomains(_ headers: inout [HeaderField], origins: [Origin], clientHost: String) {
        let client = Origin.hostAndPort(clientHost).host
        for index in headers.indices where headers[index].name.equalsIgnoringASCIICase("Set-Cookie") {
            let parts = headers[index].value.split(separator: ";", omittingEmptySubsequences: false)
            guard parts.count > 1 else { continue }
            let kept = parts.dropFirst().filter { attribute in
                let pair = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "domain" else { return true }
                let domain = pair[1].trimmingCharacters(in: .whitespaces)
                guard origins.contains(where: { CookieDomain.matches(host: $0.host, domain: domain) }) else { return true }
                return CookieDomain.matches(host: client, domain: domain)
            }
            guard kept.count < parts.count - 1 else { continue }
            headers[index].value = ([parts[0]] + kept).joined(separator: ";")
        }
    }
}
