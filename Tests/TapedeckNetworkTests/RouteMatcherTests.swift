import Foundation
import Testing
import TapedeckHTTP
import TapedeckNetwork

@Suite("Simulated network: which requests a route answers")
struct RouteMatcherTests {
    private func get(_ url: String) -> RequestSnapshot {
        RequestSnapshot(method: .get, url: URL(string: url)!)
    }

    @Test("a route whose path ends in / (a WebDAV collection) answers that path with its /; one without answers either; a prefix sees the / as written")
    func trailingSlash() {
        let collection = RouteMatcher(method: .get, path: "/dav/files/bob/")
        #expect(collection.matches(get("http://api.test/dav/files/bob/")))
        #expect(!collection.matches(get("http://api.test/dav/files/bob")))
        let plain = RouteMatcher(path: "/items")
        #expect(plain.matches(get("http://api.test/items")) && plain.matches(get("http://api.test/items/")))
        let prefix = RouteMatcher(path: "/dav/*")
        #expect(prefix.matches(get("http://api.test/dav/")) && prefix.matches(get("http://api.test/dav/x?y=1")))
        #expect(!prefix.matches(get("http://api.test/dav")) && !prefix.matches(get("http://api.test/davx")))
        #expect(RouteMatcher(path: "/").matches(get("http://api.test")) && RouteMatcher(path: "/*").matches(get("http://api.test")))
        #expect(RouteMatcher(path: "/caf%C3%A9/").matches(get("http://api.test/caf%C3%A9/")) == false, "paths compare decoded, as before")
        #expect(RouteMatcher(path: "/café/").matches(get("http://api.test/caf%C3%A9/")))
    }
}
