import Foundation
import HTTPTypes
import Synchronization
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Cookies, as corelibs' URLSession handles them. corelibs puts the stored cookies on a request
// when it creates a task, but stores a response's `Set-Cookie` fields only in its libcurl
// transfer's header callback, which a custom URLProtocol never reaches: without the bridge, a
// client on the simulated network never got its cookies back. So the bridge does what that
// callback does, for every response head including each redirect hop, and what corelibs does to
// a redirect it follows without asking a delegate (the stored cookies replace the `Cookie` field).
extension Harness {
    /// Stores the `Set-Cookie` fields of `head` (received for `url`) in the session's cookie
    /// storage, one field at a time, unless the configuration has no storage or never accepts
    /// cookies — as corelibs does for each header line of a real response. A cookie's lifetime
    /// runs on virtual time (see ``CookieClock``): one with `Max-Age`, or with `Expires` and a
    /// `Date` on its response, is stored without an expiry and dropped when the simulation's
    /// clock passes it; one whose lifetime is already over deletes the stored cookie it names.
    func storeCookies(of head: ResponseHead, from url: URL, configuration: URLSessionConfiguration) {
        guard configuration.httpCookieAcceptPolicy != .never, let storage = configuration.httpCookieStorage,
              head.headerFields.contains(where: { $0.name == .setCookie }) else { return }
        let sent = head.headerFields[.date].flatMap(HTTPDate.date(from:))
        for field in head.headerFields where field.name == .setCookie {
            for cookie in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field.value], for: url) {
                // A cookie for another site is refused (the storage would refuse it too): it must
                // not delete that site's cookie, nor stop its expiry.
                guard CookieClock.domain(of: cookie, matches: url) else { continue }
                let key = CookieClock.Key(cookie)
                guard let lifetime = CookieClock.lifetime(of: cookie, sent: sent) else {
                    // A session cookie, or an `Expires` with no `Date` to measure it from:
                    // Foundation's own rules (the wall clock).
                    storage.setCookies([cookie], for: url, mainDocumentURL: nil)
                    if !CookieClock.stored(key, cookie.value, in: storage).isEmpty { cookieClock.withLock { $0.forget(key, in: storage) } }
                    continue
                }
                guard lifetime > .zero else {
                    cookieClock.withLock { $0.forget(key, in: storage) }
                    for stored in CookieClock.stored(key, in: storage) { storage.deleteCookie(stored) }
                    continue
                }
                guard let timeless = CookieClock.withoutExpiry(cookie) else { continue }
                storage.setCookies([timeless], for: url, mainDocumentURL: nil)
                // Kept only if the storage took it (its accept policy may refuse another domain's).
                guard !CookieClock.stored(key, timeless.value, in: storage).isEmpty else { continue }
                let expiry = scheduler.now.advanced(by: lifetime)
                cookieClock.withLock { $0.track(timeless, in: storage, until: expiry) }
            }
        }
    }

    /// Deletes the cookies whose virtual lifetime is over (the simulation's clock reached their
    /// expiry), and records each in the trace. Runs when the simulation is quiescent, before an
    /// exchange starts and before a redirect is followed, so a cookie is gone from the first
    /// request sent at or after its expiry.
    func expireCookies() {
        let now = scheduler.now
        let due = cookieClock.withLock { $0.takeDue(at: now) }
        for entry in due {
            for stored in CookieClock.stored(entry.key, entry.value, in: entry.storage) { entry.storage.deleteCookie(stored) }
            scheduler.record("bridge.cookie.expired", entry.key.name)
        }
    }

    /// `request` without the pairs of cookies that expired on virtual time (corelibs put the
    /// storage's cookies on the request when its task was made, which may be before the expiry
    /// the bridge applied since), unless the storage holds that very cookie again.
    func withoutExpiredCookies(_ request: RequestSnapshot, configuration: URLSessionConfiguration) -> RequestSnapshot {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
              let value = request.headerFields[.cookie] else { return request }
        let gone = cookieClock.withLock { $0.expiredPairs(in: storage, for: request.url) }
        guard !gone.isEmpty else { return request }
        let current = Set((storage.cookies(for: request.url) ?? []).map { "\($0.name)=\($0.value)" })
        let pairs = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let kept = pairs.filter { !gone.contains($0) || current.contains($0) }
        guard kept.count < pairs.count else { return request }
        var request = request
        if kept.isEmpty { request.headerFields[fields: .cookie] = [] } else { Self.setOrderedCookie(kept.joined(separator: "; "), in: &request.headerFields) }
        return request
    }

    /// `request` with the stored cookies for its URL in its `Cookie` field (replacing the one it
    /// had), when the configuration sets cookies and has any for that URL; otherwise unchanged.
    func withStoredCookies(_ request: RequestSnapshot, configuration: URLSessionConfiguration) -> RequestSnapshot {
        expireCookies()
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
              let cookies = storage.cookies(for: request.url), !cookies.isEmpty,
              let value = HTTPCookie.requestHeaderFields(with: cookies)["Cookie"], !value.isEmpty else { return request }
        var request = request
        Self.setOrderedCookie(value, in: &request.headerFields)
        return request
    }
}

/// Cookie lifetimes on the simulation's clock. Foundation measures a cookie's `Expires` against
/// the wall clock — a cassette recorded today would replay without its cookies once the date it
/// recorded has passed — and corelibs ignores `Max-Age` altogether (the cookie never expires, and
/// `Max-Age=0` deletes nothing). So the bridge stores such a cookie without an expiry and keeps
/// its virtual expiry here: `Max-Age` seconds from when it arrived, or `Expires` less the
/// response's `Date` (the lifetime the server meant, whenever it is replayed).
///
/// ```swift
/// var clock = CookieClock()
/// clock.track(cookie, in: storage, until: .zero.advanced(by: .seconds(60)))
/// clock.takeDue(at: .zero.advanced(by: .seconds(61)))   // that cookie's entry, to delete
/// ```
struct CookieClock {
    /// What identifies a stored cookie: name, domain and path, as a storage replaces them.
    struct Key: Hashable {
        /// The cookie's name.
        var name: String
        /// Its domain, lower-cased.
        var domain: String
        /// Its path.
        var path: String

        /// The key of `cookie`.
        init(_ cookie: HTTPCookie) {
            name = cookie.name
            domain = cookie.domain.lowercased()
            path = cookie.path
        }
    }

    /// A tracked cookie: where it is stored, which it is, and when it expires.
    struct Entry {
        /// The storage holding it.
        var storage: HTTPCookieStorage
        /// Its key.
        var key: Key
        /// Its value (an entry deletes only the cookie it tracked, not a later one of that key).
        var value: String
        /// The virtual instant it expires at.
        var expiry: VirtualInstant
    }

    private var entries: [Entry] = []
    /// `name=value` of each cookie that expired, by storage and domain.
    private var expired: [ObjectIdentifier: [String: Set<String>]] = [:]

    /// The lifetime `cookie` was given, on its own terms: `Max-Age` (which wins), else `Expires`
    /// less `sent` (its response's `Date`); nil for a session cookie, or an `Expires` with no
    /// `Date` to measure it from.
    static func lifetime(of cookie: HTTPCookie, sent: Date?) -> Duration? {
        if let text = (cookie.properties?[.maximumAge] as? String)?.trimmingCharacters(in: .whitespaces),
           let first = text.first, first == "-" || first.isASCII && first.isNumber,
           text.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), text != "-" {
            // Digits, with a `-` at most (RFC 6265 §5.2.2: anything else, `+60` too, is no
            // Max-Age); too many digits are the longest lifetime, or none left.
            return .seconds(Int(text).map { min($0, longest) } ?? (first == "-" ? -1 : longest))
        }
        guard let expires = cookie.expiresDate, let sent else { return nil }
        return .seconds(rounding: min(expires.timeIntervalSince(sent), Double(longest)))
    }

    /// The longest lifetime kept, in seconds (fifty years; `Expires=31 Dec 9999` would not fit
    /// the virtual clock): a cookie living that long outlives any simulation.
    static let longest = 50 * 365 * 86_400

    /// Whether `cookie` may be set by a response from `url` (RFC 6265 §5.3: the host is its
    /// domain, or within it).
    static func domain(of cookie: HTTPCookie, matches url: URL) -> Bool {
        url.host.map { CookieDomain.matches(host: $0, domain: cookie.domain) } ?? false
    }

    /// The cookies of `key` that `storage` holds (with `value`, when given).
    static func stored(_ key: Key, _ value: String? = nil, in storage: HTTPCookieStorage) -> [HTTPCookie] {
        (storage.cookies ?? []).filter { Key($0) == key && (value == nil || $0.value == value) }
    }

    /// `cookie` with no `Expires` or `Max-Age` (nil if Foundation will not make it).
    static func withoutExpiry(_ cookie: HTTPCookie) -> HTTPCookie? {
        guard var properties = cookie.properties else { return nil }
        properties[.expires] = nil
        properties[.maximumAge] = nil
        return HTTPCookie(properties: properties)
    }

    /// Tracks `cookie`, stored in `storage`, to expire at `expiry` (replacing any entry of its key).
    mutating func track(_ cookie: HTTPCookie, in storage: HTTPCookieStorage, until expiry: VirtualInstant) {
        let key = Key(cookie)
        forget(key, in: storage)
        entries.append(Entry(storage: storage, key: key, value: cookie.value, expiry: expiry))
    }

    /// Stops tracking the cookie of `key` in `storage` (a later `Set-Cookie` replaced it).
    mutating func forget(_ key: Key, in storage: HTTPCookieStorage) {
        guard !entries.isEmpty else { return }
        entries.removeAll { $0.key == key && $0.storage === storage }
    }

    /// Removes and returns the entries whose expiry is at or before `now`, in the order they
    /// were tracked; their pairs are remembered for ``expiredPairs(in:for:)``.
    mutating func takeDue(at now: VirtualInstant) -> [Entry] {
        guard entries.contains(where: { $0.expiry <= now }) else { return [] }
        let due = entries.filter { $0.expiry <= now }
        entries.removeAll { $0.expiry <= now }
        for entry in due { expired[ObjectIdentifier(entry.storage), default: [:]][entry.key.domain, default: []].insert("\(entry.key.name)=\(entry.value)") }
        return due
    }

    /// `name=value` of every cookie of `storage` that expired and would have gone to `url` (its
    /// domain is the host's, or the host is within it): a pair that expired for another site is
    /// no business of this request.
    func expiredPairs(in storage: HTTPCookieStorage, for url: URL) -> Set<String> {
        guard let host = url.host, let byDomain = expired[ObjectIdentifier(storage)] else { return [] }
        var pairs: Set<String> = []
        for (domain, gone) in byDomain where CookieDomain.matches(host: host, domain: domain) { pairs.formUnion(gone) }
        return pairs
    }
}

/// In-memory cookie storages that finished harnesses left behind, handed to later harnesses
/// once emptied. corelibs makes one only through `URLSessionConfiguration.ephemeral`, which also
/// builds a `URLCache` that looks up the XDG cache directory (the process environment, the file
/// system): a third of a one-request scenario run's time (`tools/bench scenarios`). A storage is
/// handed out again only when the pool holds its last reference — the sessions and
/// configurations of its simulation are gone, and no test kept it — so no cookie of one
/// simulation reaches another. Apple platforms build an ephemeral configuration cheaply, and
/// Swift never reports an Objective-C object as uniquely referenced: nothing is pooled there.
final class CookieStoragePool: Sendable {
    /// The pool every harness uses.
    static let shared = CookieStoragePool(limit: 8)

    private let returned = Mutex<[HTTPCookieStorage]>([])
    private let limit: Int

    /// A pool keeping at most `limit` storages (the oldest goes when a new one comes back).
    init(limit: Int) {
        self.limit = limit
    }

    /// An empty in-memory storage accepting every cookie: a returned one nothing else holds any
    /// more, or a new one.
    func take() -> HTTPCookieStorage {
        #if canImport(FoundationNetworking)
        let reusable: HTTPCookieStorage? = returned.withLock { storages in
            guard let index = storages.indices.last(where: { isKnownUniquelyReferenced(&storages[$0]) }) else { return nil }
            return storages.remove(at: index)
        }
        if let reusable {
            for cookie in reusable.cookies ?? [] { reusable.deleteCookie(cookie) }
            reusable.cookieAcceptPolicy = .always
            return reusable
        }
        #endif
        return URLSessionConfiguration.ephemeral.httpCookieStorage!
    }

    /// Takes `storage` back from a harness that is done with it; ``take()`` hands it out again
    /// once nothing else holds it. Its cookies stay until then, for whoever still does.
    func giveBack(_ storage: HTTPCookieStorage) {
        #if canImport(FoundationNetworking)
        returned.withLock { storages in
            if storages.count == limit { storages.removeFirst() }
            storages.append(storage)
        }
        #endif
    }
}
