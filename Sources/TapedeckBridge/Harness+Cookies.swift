import Foundation
import HTTPTypes
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
