import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

/// Request bodies rebuilt from `postData.params`, failure texts of more tools, containers that are
/// not a HAR file, and lookups on query-keyed APIs.
@Suite("Cassettes: params bodies, more failure texts, ZIP/zlib/JSONP files, lookups within a path")
struct FormAndContainerTests {
    private func url(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("interop/\(name)")
    }

    @Test("ZAP's text \"\" beside params uses the params, form-encoded as a browser does")
    func emptyTextUsesParams() throws {
        let cassette = try CassetteFile.read(url("zap-form-params.har"))
        let body = try #require(cassette.interactions.first?.request.body)
        #expect(String(decoding: body, as: UTF8.self) == "field0=&note=two+words+%26+more&step=1")
    }

    @Test("multipart params keep multipart with the mimeType's boundary; encoded values stay; a nameless JSON param is the body")
    func paramsShapes() throws {
        let cassette = try CassetteFile.read(url("form-params.har"))
        let bodies = cassette.interactions.map { String(decoding: $0.request.body ?? Data(), as: UTF8.self) }
        try #require(bodies.count == 3)
        let boundary = "----WebKitFormBoundaryExample42"
        #expect(bodies[0] == "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\npixel\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"upfile\"; filename=\"pixel.txt\"\r\nContent-Type: text/plain\r\n\r\none pixel\r\n"
                + "--\(boundary)--\r\n")
        #expect(bodies[1] == "q=tea+for%20two&date=Tue%2C+28+Sep", "an encoded value is kept, a decoded one encoded")
        #expect(bodies[2] == #"{"tm":0.5,"out":"js"}"#)
        // The rebuilt multipart body matches a client's own under the multipart rule.
        let live = RecordedRequest(method: "POST", url: URL(string: "https://forms.example.com/upload")!,
                                   headers: [HeaderField("Content-Type", "multipart/form-data; boundary=other")],
                                   body: Data(bodies[0].replacingOccurrences(of: boundary, with: "other").utf8))
        #expect(MatchRules(body: .multipart).mismatches(live, cassette.interactions[0].request).isEmpty)
    }

    @Test("more tools' failure texts: BrowserMob's 'Unable to connect', errno 60/110 timeouts, HTTP/2 errors; mitmproxy's errno 60 entry")
    func failureTexts() throws {
        let cases: [(String, URLError.Code)] = [
            ("Unable to connect to host", .cannotConnectToHost), ("[Errno 60] Connect call failed ('203.0.113.9', 443)", .timedOut),
            ("[Errno 110] Connect call failed ('203.0.113.9', 443)", .timedOut), ("[Errno 111] Connect call failed ('127.0.0.1', 1)", .cannotConnectToHost),
            ("[Errno 113] Connect call failed", .cannotConnectToHost), ("[Errno 101] Network is unreachable", .notConnectedToInternet),
            ("[Errno 104] Connection reset by peer", .networkConnectionLost), ("net::ERR_HTTP2_PROTOCOL_ERROR", .networkConnectionLost),
            ("Unable to resolve host 'x.example'", .cannotFindHost), ("java.net.UnknownHostException: x.example", .cannotFindHost),
            ("[Errno 600] something else", .unknown),
        ]
        for (text, code) in cases {
            #expect(ForeignFailure.code(for: text) == code, "\(text)")
        }
        let cassette = try CassetteFile.read(url("mitmproxy-errno60.har"))
        #expect(cassette.interactions.first?.outcome == .failure(RecordedFailure(
            code: URLError.timedOut.rawValue, message: "[Errno 60] Connect call failed ('203.0.113.9', 443)")))
    }

    @Test("mitmproxy's zlib .zhar is read; a ZIP archive and a JSONP file are refused naming what they are and what to do")
    func containers() throws {
        let zhar = try CassetteFile.read(url("mitmproxy.zhar"))
        #expect(zhar.interactions.first?.response?.body == Data("hello".utf8))
        do {
            _ = try CassetteFile.read(url("playwright-har.zip"))
            Issue.record("a ZIP archive was read as a cassette")
        } catch {
            #expect(error.kind == .json && error.reason.contains("ZIP archive") && error.hint.contains("har.har"), "\(error)")
        }
        do {
            _ = try CassetteFile.read(url("harviewer.harp"))
            Issue.record("a JSONP file was read as a cassette")
        } catch {
            #expect(error.reason.contains("JSONP") && error.hint.contains("onInputData("), "\(error)")
        }
        var cut = try Data(contentsOf: url("mitmproxy.zhar"))
        cut.removeLast(cut.count / 2)
        #expect(throws: CassetteError.self) { try CassetteFile.decode(cut, file: "cut.zhar") }
    }

    @Test("a lookup on a query-keyed path reads only the entries with that query; using up identical entries asks each rule once per request")
    func lookupsWithinAPath() throws {
        // Given 2,000 entries on one path, distinct by query, and 500 identical polls
        var interactions: [Interaction] = []
        for page in 0..<2_000 {
            interactions.append(Interaction(index: interactions.count,
                                            request: RecordedRequest(method: "GET", url: URL(string: "http://api.example/items?page=\(page)&size=10")!),
                                            outcome: .response(RecordedResponse(status: 200, body: Data("\(page)".utf8)))))
        }
        for poll in 0..<500 {
            interactions.append(Interaction(index: interactions.count, request: RecordedRequest(method: "GET", url: URL(string: "http://api.example/poll")!),
                                            outcome: .response(RecordedResponse(status: 200, body: Data("\(poll)".utf8)))))
        }
        let requests = interactions.map(\.request)
        let index = LookupIndex(interactions, matchable: requests, rules: MatchRules())
        // When a request for page 1234 (query in another order) is looked up, then one entry is a candidate
        let live = RecordedRequest(method: "GET", url: URL(string: "http://api.example/items?size=10&page=1234")!)
        #expect(index.candidates(for: live).positions == [1_234])
        #expect(index.candidates(for: RecordedRequest(method: "GET", url: URL(string: "http://api.example/items?page=9999&size=10")!)).positions.isEmpty)

        // When the 500 polls are used up in order, the rules are asked once per request, not once per entry left
        let asked = Mutex(0)
        let rules = MatchRules(custom: { _, _ in asked.withLock { $0 += 1 }; return nil })
        let player = CassettePlayer(cassette: Cassette(interactions: interactions), rules: rules, afterLast: .noMatch)
        var bodies: [String] = []
        for _ in 0..<500 {
            let reply = player.reply(to: RequestSnapshot(method: .get, url: URL(string: "http://api.example/poll")!),
                                     context: ResponderContext(exchange: 0, transaction: 0, time: .zero))
            guard case let .response(plan) = reply else { Issue.record("no answer"); return }
            bodies.append(String(decoding: plan.body, as: UTF8.self))
        }
        #expect(bodies == (0..<500).map(String.init), "in recorded order")
        #expect(asked.withLock { $0 } == 500)
        // and a redacted recorded query value still matches any live value
        let redacted = [Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.example/items?token=REDACTED&page=1")!),
                                    outcome: .response(RecordedResponse(status: 200)))]
        let wild = LookupIndex(redacted, matchable: redacted.map(\.request), rules: MatchRules())
        #expect(wild.candidates(for: RecordedRequest(method: "GET", url: URL(string: "http://api.example/items?page=1&token=abc")!)).positions == [0])
    }
}
