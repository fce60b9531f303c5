import Foundation
import Testing
import TapedeckCassettes
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
}
