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
        #expect(first.status == 301)
        #expect(first.headers.value(for: "Location") == "http://127.0.0.1:30021/", "another recorded origin, its default port spelt out")
        let second = try #require(get("/"))
        #expect(second.status == 200 && second.body == Data("1".utf8), "the next hop replays from the https origin")
        let away = try #require(get("/away"))
        #expect(away.headers.value(for: "Location") == "https://elsewhere.test/", "an origin the cassette does not hold is left alone")
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
