import Foundation
import HTTPTypes
import Synchronization
import TapedeckHTTP
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
    /// cookies — as corelibs does for each header line of a real response.
    static func storeCookies(of head: ResponseHead, from url: URL, configuration: URLSessionConfiguration) {
        guard configuration.httpCookieAcceptPolicy != .never, let storage = configuration.httpCookieStorage else { return }
        for field in head.headerFields where field.name == .setCookie {
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field.value], for: url)
            if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
        }
    }

    /// `request` with the stored cookies for its URL in its `Cookie` field (replacing the one it
    /// had), when the configuration sets cookies and has any for that URL; otherwise unchanged.
    static func withStoredCookies(_ request: RequestSnapshot, configuration: URLSessionConfiguration) -> RequestSnapshot {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
              let cookies = storage.cookies(for: request.url), !cookies.isEmpty,
              let value = HTTPCookie.requestHeaderFields(with: cookies)["Cookie"], !value.isEmpty else { return request }
        var request = request
        setOrderedCookie(value, in: &request.headerFields)
        return request
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
