/// RFC 6265's domain matching (§5.1.3), as the recorders, the replay server and the bridge's
/// cookie clock ask it: whether a host may hold a cookie of a domain.
///
/// ```swift
/// CookieDomain.matches(host: "api.shop.test", domain: ".Shop.test")   // true
/// CookieDomain.matches(host: "127.0.0.1", domain: "shop.test")        // false
/// ```
public enum CookieDomain {
    /// Whether `host` is `domain` or lies within it (case-insensitive; a leading `.` of the
    /// domain, as old `Set-Cookie` fields write it, ignored). An empty domain matches nothing.
    public static func matches(host: String, domain: String) -> Bool {
        var domain = domain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        guard !domain.isEmpty else { return false }
        let host = host.lowercased()
        return host == domain || host.hasSuffix("." + domain)
    }
}
