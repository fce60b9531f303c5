import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport
@testable import TapedeckServer

/// What serve changes in a recorded answer so that it works where it is replayed: the origin a
/// redirect names for a client that uses serve as its proxy, and the page origin a CORS answer
/// recorded on this machine names.
@Suite("Server: answers rewritten for where they are replayed")
struct ServeRewriteTests {
    private func server(_ interactions: [Interaction]) throws -> TapedeckHTTPServer {
        var options = ServerOptions()
        options.threads = 1
        let service = ReplayService(cassette: Cassette(interactions: interactions), options: .init(timing: .instant))
        return try TapedeckHTTPServer(service: service, options: options)
    }

    private func get(_ url: String, headers: [HeaderField] = []) -> RecordedRequest {
        RecordedRequest(method: "GET", url: URL(string: url)!, headers: headers)
    }

    private func header(_ name: String, in exchange: RawExchange) -> String? {
        let text = String(decoding: exchange.received, as: UTF8.self)
        return text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    @Test("a proxy-style client that named its own host for record's upstream gets redirects to the host it named, as record gave them live; one naming the recorded origin gets them as recorded")
    func proxyStyleLocation() throws {
        // Given what `record --upstream http://127.0.0.1:8080` keeps: the upstream's own Location
        let server = try server([
            Interaction(index: 0, request: get("http://127.0.0.1:8080/old"),
                        outcome: .response(RecordedResponse(status: 302, headers: [HeaderField("Location", "http://127.0.0.1:8080/new?a=1")]))),
        ])
        defer { try? server.shutdown() }
        // When a client using serve as its proxy asks for http://shop.test/old
        let named = rawExchange(port: server.port, send: Data("GET http://shop.test/old HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n".utf8))
        // Then the redirect names shop.test, not the upstream it cannot reach
        #expect(header("Location", in: named) == "http://shop.test/new?a=1", "\(String(decoding: named.received, as: UTF8.self))")
        // And one that named the recorded origin gets it as recorded
        let recorded = rawExchange(port: server.port, send: Data(
            "GET http://127.0.0.1:8080/old HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n".utf8))
        #expect(header("Location", in: recorded) == "http://127.0.0.1:8080/new?a=1")
    }

    @Test("a CORS answer recorded for a page on this machine names the requesting page's origin when replayed to a page on this machine; other origins and * stay as recorded")
    func loopbackCORS() throws {
        let allow = { (origin: String) in RecordedResponse(status: 204, headers: [HeaderField("Access-Control-Allow-Origin", origin),
                                                                                HeaderField("Access-Control-Allow-Credentials", "true")]) }
        let server = try server([
            Interaction(index: 0, request: get("http://127.0.0.1:8080/cors"), outcome: .response(allow("http://localhost:18302"))),
            Interaction(index: 1, request: get("http://127.0.0.1:8080/elsewhere"), outcome: .response(allow("https://app.example.com"))),
            Interaction(index: 2, request: get("http://127.0.0.1:8080/any"), outcome: .response(allow("*"))),
        ])
        defer { try? server.shutdown() }
        func allowed(_ path: String, origin: String) -> String? {
            header("Access-Control-Allow-Origin", in: rawExchange(port: server.port, send: Data(
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: \(origin)\r\nConnection: close\r\n\r\n".utf8)))
        }
        #expect(allowed("/cors", origin: "http://localhost:18303") == "http://localhost:18303")
        #expect(allowed("/cors", origin: "http://[::1]:5173") == "http://[::1]:5173")
        #expect(allowed("/cors", origin: "https://evil.example") == "http://localhost:18302", "a page elsewhere is not let in")
        #expect(allowed("/elsewhere", origin: "http://localhost:18303") == "https://app.example.com")
        #expect(allowed("/any", origin: "http://localhost:18303") == "*")
    }

    @Test("a CORS preflight the recording left out (Chromium's HAR has none) is answered from the CORS fields of the recorded request it asks about; one for a request no recorded answer allowed misses")
    func preflightFromRecordedAnswer() throws {
        let post = { (path: String, headers: [HeaderField]) in
            RecordedRequest(method: "POST", url: URL(string: "http://127.0.0.1:8080\(path)")!, headers: [HeaderField("Content-Type", "application/json")]) }
        let server = try server([
            Interaction(index: 0, request: post("/api/items", []), outcome: .response(RecordedResponse(status: 201, headers: [
                HeaderField("Access-Control-Allow-Origin", "http://localhost:5173"), HeaderField("Access-Control-Allow-Credentials", "true")]))),
            Interaction(index: 1, request: post("/api/private", []), outcome: .response(RecordedResponse(status: 201))),
        ])
        defer { try? server.shutdown() }
        func preflight(_ path: String, method: String = "POST") -> RawExchange {
            rawExchange(port: server.port, send: Data(("OPTIONS \(path) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: http://localhost:6001\r\n"
                + "Access-Control-Request-Method: \(method)\r\nAccess-Control-Request-Headers: content-type, x-trace\r\nConnection: close\r\n\r\n").utf8))
        }
        let answered = preflight("/api/items")
        #expect(answered.statusLine == "HTTP/1.1 204 No Content", "\(String(decoding: answered.received, as: UTF8.self))")
        #expect(header("Access-Control-Allow-Origin", in: answered) == "http://localhost:6001", "the page on this machine, as for the answer itself")
        #expect(header("Access-Control-Allow-Methods", in: answered) == "POST")
        #expect(header("Access-Control-Allow-Headers", in: answered) == "content-type, x-trace")
        #expect(header("Access-Control-Allow-Credentials", in: answered) == "true")
        #expect(header("X-Tapedeck-Miss", in: answered) == nil)
        // No recorded answer allowed another origin, or none for that method: a miss as before
        #expect(header("X-Tapedeck-Miss", in: preflight("/api/private")) == "1")
        #expect(header("X-Tapedeck-Miss", in: preflight("/api/items", method: "DELETE")) == "1")
    }

    @Test("a gzip event stream recorded in pieces goes decoded to a client that does not accept gzip piece by piece, each at its recorded time; one that accepts gzip gets it as recorded")
    func decodedStreamKeepsItsPace() throws {
        // Given three events a server flushed through gzip one second apart
        let events = ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]
        // (the stream's end, gzip's trailer, came 30 s later)
        let (encoded, pieces) = try gzipEventStream(events, at: [.seconds(0), .seconds(1), .seconds(2)], trailerAt: .seconds(30))
        func answer() -> ServerAnswer {
            var answer = ServerAnswer(status: 200, headers: [HeaderField("Content-Type", "text/event-stream"), HeaderField("Content-Encoding", "gzip"),
                                                             HeaderField("Vary", "Accept-Encoding")], body: encoded)
            answer.delivery.pieces = pieces
            return answer
        }
        // When it is served to curl without --compressed
        var plain = answer()
        ReplayService.negotiateEncoding(&plain, acceptEncoding: nil)
        // Then each event goes decoded at its time
        #expect(plain.body == Data(events.joined().utf8))
        // and the stream still ends when it did, with a piece of no bytes
        #expect(plain.delivery.pieces == [BodyChunk(bytes: 9, at: .seconds(0)), BodyChunk(bytes: 9, at: .seconds(1)), BodyChunk(bytes: 9, at: .seconds(2)),
                                          BodyChunk(bytes: 0, at: .seconds(30))],
                "\(String(describing: plain.delivery.pieces))")
        // and to a client that accepts gzip, as recorded
        var compressed = answer()
        ReplayService.negotiateEncoding(&compressed, acceptEncoding: "gzip, br")
        #expect(compressed.body == encoded && compressed.delivery.pieces == pieces)
        // A streaming inflater takes a gzip body in any slices and gives the whole text
        let inflater = try Inflater(format: .gzip)
        var whole = Data()
        for start in stride(from: 0, to: encoded.count, by: 3) { whole += try inflater.append(encoded[start..<min(start + 3, encoded.count)]) }
        #expect(whole == Data(events.joined().utf8))
    }

    @Test("a Set-Cookie for the recorded origin's site loses its Domain for a client that reached serve at another host (else it would refuse the cookie); one reaching serve by the origin's name, or a Domain of another site, keeps it")
    func cookieDomainForTheClientsHost() throws {
        // Given a login recorded from http://api.shop.test that set three cookies
        let server = try server([
            Interaction(index: 0, request: get("http://api.shop.test/login"), outcome: .response(RecordedResponse(status: 200, headers: [
                HeaderField("Set-Cookie", "sid=abc; Domain=.Shop.test; Path=/; HttpOnly"),
                HeaderField("Set-Cookie", "pref=dark; path=/; domain=api.shop.test"),
                HeaderField("Set-Cookie", "ad=1; Domain=tracker.example; Path=/"),
                HeaderField("Set-Cookie", "plain=1"),
            ]))),
        ])
        defer { try? server.shutdown() }
        func cookies(host: String) -> [String] {
            let exchange = rawExchange(port: server.port, send: Data("GET /login HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
            return String(decoding: exchange.received, as: UTF8.self).components(separatedBy: "\r\n")
                .filter { $0.lowercased().hasPrefix("set-cookie:") }.map { String($0.dropFirst(11)).trimmingCharacters(in: .whitespaces) }
        }
        // When curl or a browser reaches serve at its address, Then the origin's cookies are
        // host-only cookies of that address, the rest of each field as recorded
        #expect(cookies(host: "127.0.0.1:\(server.port)") == ["sid=abc; Path=/; HttpOnly", "pref=dark; path=/", "ad=1; Domain=tracker.example; Path=/", "plain=1"])
        // And a client that reaches it by the origin's own name keeps every Domain
        #expect(cookies(host: "api.shop.test") == ["sid=abc; Domain=.Shop.test; Path=/; HttpOnly", "pref=dark; path=/; domain=api.shop.test",
                                                   "ad=1; Domain=tracker.example; Path=/", "plain=1"])
        // And record's live answers go through the same rule: a client at a host within the domain keeps it
        let plan = ResponsePlan(status: 200, headers: [("Set-Cookie", "sid=1; Domain=shop.test")])
        let within = ReplayService.answer(plan, timing: .instant, origin: "http://api.shop.test", served: "www.shop.test:8080")
        let elsewhere = ReplayService.answer(plan, timing: .instant, origin: "http://api.shop.test", served: "localhost:8080")
        #expect(within.headers.value(for: "Set-Cookie") == "sid=1; Domain=shop.test")
        #expect(elsewhere.headers.value(for: "Set-Cookie") == "sid=1")
    }
}
