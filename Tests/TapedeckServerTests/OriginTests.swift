import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckServer

/// Which recorded origin `serve` matches an ordinary (origin-form) request against.
@Suite("Server: recorded origins, IPv6 literals included")
struct OriginTests {
    private func service(_ urls: [String]) -> ReplayService {
        let interactions = urls.enumerated().map { index, url in
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: url)!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("ok".utf8))))
        }
        return ReplayService(cassette: Cassette(interactions: interactions))
    }

    @Test("an origin recorded as an IPv6 literal answers a request for its path, with its Host or with the server's own")
    func ipv6Origin() throws {
        let single = service(["http://[::1]:8080/v6"])
        let own = IncomingRequest(method: "GET", target: "/v6", headers: [HeaderField("Host", "127.0.0.1:30021")])
        #expect(single.matchURL(for: own)?.absoluteString == "http://[::1]:8080/v6")

        let several = service(["http://f.test/v6", "http://[::1]:8080/v6"])
        let named = IncomingRequest(method: "GET", target: "/v6", headers: [HeaderField("Host", "[::1]:8080")])
        #expect(several.matchURL(for: named)?.absoluteString == "http://[::1]:8080/v6")
    }

    @Test("a redirect to another recorded origin (http to https, the apex to www) points back here, and its next hop replays")
    func redirectToAnotherRecordedOrigin() throws {
        func entry(_ index: Int, _ url: String, _ status: Int, location: String? = nil) -> Interaction {
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: url)!),
                        outcome: .response(RecordedResponse(status: status, headers: location.map { [HeaderField("Location", $0)] } ?? [],
                                                            body: Data("\(index)".utf8))))
        }
        let service = ReplayService(cassette: Cassette(interactions: [
            entry(0, "http://example.com/", 301, location: "https://www.example.com:443/"),
            entry(1, "https://www.example.com/", 200),
            entry(2, "https://www.example.com/away", 302, location: "https://elsewhere.test/"),
        ]), options: .init(timing: .instant))
        func get(_ target: String) -> ServerAnswer? {
            let answered = Answered()
            service.handle(IncomingRequest(method: "GET", target: target, headers: [HeaderField("Host", "127.0.0.1:30021")])) { answered.value = $0 }
            return answered.value
        }
        let first = try #require(get("/"))
        // Pointed here it names the URL it answers: a permanent redirect would loop in a browser
        // (followed from memory), so it goes as its temporary twin, never to be cached
        #expect(first.status == 302 && first.headers.value(for: "Cache-Control") == "no-store", "\(first.status) \(first.headers)")
        #expect(first.headers.value(for: "Location") == "http://127.0.0.1:30021/", "another recorded origin, its default port spelt out")
        let second = try #require(get("/"))
        #expect(second.status == 200 && second.body == Data("1".utf8), "the next hop replays from the https origin")
        let away = try #require(get("/away"))
        #expect(away.headers.value(for: "Location") == "https://elsewhere.test/", "an origin the cassette does not hold is left alone")
    }

    @Test("a client reaching serve by the recorded names (host-resolver rules, --connect-to) gets Locations naming the other recorded origins by their names; a protocol-relative one is pointed here too")
    func locationsByRecordedNames() throws {
        func entry(_ index: Int, _ url: String, _ status: Int, location: String? = nil) -> Interaction {
            Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: url)!),
                        outcome: .response(RecordedResponse(status: status, headers: location.map { [HeaderField("Location", $0)] } ?? [],
                                                            body: Data("\(index)".utf8))))
        }
        let service = ReplayService(cassette: Cassette(interactions: [
            entry(0, "http://site.test:18080/go-api", 302, location: "http://api.test:18081/v1/list?page=2"),
            entry(1, "http://api.test:18081/v1/list?page=2", 200),
            entry(2, "http://www.site.test:18080/", 301, location: "http://site.test:18080/"),
            entry(3, "http://site.test:18080/", 200),
            entry(4, "http://site.test:18080/proto", 302, location: "//site.test:18080/next?x=1"),
            entry(5, "http://plain.test/port", 301, location: "https://plain.test:443/port"),
            entry(6, "http://plain.test/upper", 301, location: "HTTPS://PLAIN.TEST/upper"),
            entry(7, "https://plain.test/port", 200),
            entry(8, "https://plain.test/upper", 200),
            entry(9, "http://plain.test/pr", 301, location: "//plain.test:443/pr2"),
            entry(10, "https://plain.test/pr2", 200),
            entry(11, "http://127.0.0.1:18555/start", 302, location: "https://cdn.example.com/x"),
            entry(12, "https://cdn.example.com/x", 200),
            // Playwright's har-redirect.har: an https-only apex → www in http → www in https
            entry(13, "https://verge.test/", 301, location: "http://www.verge.test/"),
            entry(14, "http://www.verge.test/", 301, location: "https://www.verge.test/"),
            entry(15, "https://www.verge.test/", 200),
        ]), options: .init(timing: .instant))
        func get(_ target: String, host: String) -> ServerAnswer? {
            let answered = Answered()
            service.handle(IncomingRequest(method: "GET", target: target, headers: [HeaderField("Host", host)])) { answered.value = $0 }
            return answered.value
        }
        // By name: the hop to the other origin goes to that origin's name, and replays there
        let hop = try #require(get("/go-api", host: "site.test:18080"))
        #expect(hop.headers.value(for: "Location") == "http://api.test:18081/v1/list?page=2", "\(hop.headers)")
        #expect(try #require(get("/v1/list?page=2", host: "api.test:18081")).body == Data("1".utf8))
        // www → apex by name: the apex's name, not back to www (a loop)
        let apex = try #require(get("/", host: "www.site.test:18080"))
        #expect(apex.status == 301 && apex.headers.value(for: "Location") == "http://site.test:18080/", "\(apex.headers)")
        #expect(apex.headers.value(for: "Cache-Control") == nil, "a Location that already named this URL was not rewritten: the site's redirect as it was")
        #expect(try #require(get("/", host: "site.test:18080")).body == Data("3".utf8))
        // By name, an https Location with its default port spelt out, or in capitals, is the
        // same URL in http: no plain HTTP to port 443, and the self-redirect goes as a 302
        for (path, location) in [("/port", "http://plain.test/port"), ("/upper", "http://plain.test/upper")] {
            let hop = try #require(get(path, host: "PLAIN.test:80"))
            #expect(hop.status == 302 && hop.headers.value(for: "Location") == location, "\(path): \(hop.status) \(hop.headers)")
        }
        // A protocol-relative Location naming the https origin with its port: its scheme's default, left out
        let relative = try #require(get("/pr", host: "plain.test"))
        #expect(relative.headers.value(for: "Location") == "http://plain.test/pr2", "\(relative.headers)")
        // An https-only apex asked for by name over plain HTTP: its hop to www keeps www (pointed
        // at the apex, it would send the client round the apex's redirect for ever)
        let verge = try #require(get("/", host: "verge.test"))
        #expect(verge.status == 301 && verge.headers.value(for: "Location") == "http://www.verge.test/", "\(verge.status) \(verge.headers)")
        let www = try #require(get("/", host: "www.verge.test"))
        #expect(www.status == 302 && www.headers.value(for: "Location") == "http://www.verge.test/", "the https hop is this URL in http: \(www.headers)")
        #expect(try #require(get("/", host: "www.verge.test")).body == Data("15".utf8))
        // serve standing in for a dev server on its old address (a recorded origin that is an
        // address, not a name): the hop to the CDN points here, never to the CDN for real
        let dev = try #require(get("/start", host: "127.0.0.1:18555"))
        #expect(dev.headers.value(for: "Location") == "http://127.0.0.1:18555/x", "\(dev.headers)")
        // At the server's own address, a protocol-relative Location naming a recorded origin points here
        let proto = try #require(get("/proto", host: "127.0.0.1:30021"))
        #expect(proto.headers.value(for: "Location") == "http://127.0.0.1:30021/next?x=1", "\(proto.headers)")
    }

    @Test("a recorded CONNECT that opened a tunnel is answered 502 and closed: the client must not start TLS with a plain server")
    func recordedTunnel() throws {
        let tunnel = Interaction(index: 0, request: RecordedRequest(method: "CONNECT", url: URL(string: "https://www.example.com/")!),
                                 outcome: .response(RecordedResponse(status: 200, body: Data())))
        let service = ReplayService(cassette: Cassette(interactions: [tunnel]), options: .init(timing: .instant))
        let answered = Answered()
        service.handle(IncomingRequest(method: "CONNECT", target: "www.example.com:443", headers: [HeaderField("Host", "www.example.com:443")])) {
            answered.value = $0
        }
        let answer = try #require(answered.value)
        #expect(answer.status == 502 && answer.close)
        #expect(answer.headers.value(for: "X-Tapedeck-Failure") == "tunnel")
    }
}

/// The answer a synchronous `handle` gave.
private final class Answered: @unchecked Sendable {
    var value: ServerAnswer?
}
