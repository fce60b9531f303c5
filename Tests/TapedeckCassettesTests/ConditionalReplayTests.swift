import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import HTTPTypes

/// Answers that only some requests can take: a 304 needs a conditional request, a 206 the same
/// Range. A browser recorded warm and replayed cold, or a player seeking elsewhere, must not get them.
@Suite("Cassettes: 304 and 206 answer only the requests they can")
struct ConditionalReplayTests {
    private let url = URL(string: "http://site.test/static/app.js")!

    private func entry(_ index: Int, _ headers: [HeaderField], status: Int, body: String) -> Interaction {
        Interaction(index: index, request: RecordedRequest(method: "GET", url: url, headers: headers),
                    outcome: .response(RecordedResponse(status: status, body: Data(body.utf8))))
    }

    private func reply(_ player: CassettePlayer, _ headers: [(String, String)] = []) -> (status: Int, body: String)? {
        var fields = HTTPFieldsBuilder()
        for (name, value) in headers { fields.append(name, value) }
        let answer = player.reply(to: RequestSnapshot(method: .get, url: url, headerFields: fields.fields),
                                  context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .response(plan) = answer else { return nil }
        return (plan.head.status, String(decoding: plan.body, as: UTF8.self))
    }

    @Test("recorded cold then warm: a cold request gets the 200 (again when used up), a revalidating one the 304")
    func notModified() throws {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, [], status: 200, body: "run()"),
            entry(1, [HeaderField("If-None-Match", "\"v1\"")], status: 304, body: ""),
        ]))
        #expect(reply(player)?.status == 200)
        #expect(reply(player)?.body == "run()", "used up: the last answer a cold request can take repeats, not the 304")
        #expect(reply(player, [("If-None-Match", "\"v1\"")])?.status == 304)
        #expect(reply(player, [("If-Modified-Since", "Tue, 24 Nov 2026 10:00:00 GMT")])?.status == 304)
    }

    @Test("a 304 answers only a client holding a version the recorded request named: another entity tag gets the 200")
    func notModifiedForTheSameTag() throws {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, [], status: 200, body: "run()"),
            entry(1, [HeaderField("If-None-Match", "\"v1\"")], status: 304, body: ""),
        ]))
        // A client holding "v0" (stale) must get the content, not keep its old copy
        #expect(reply(player, [("If-None-Match", "\"v0\"")])?.body == "run()")
        // The same tag, weakly compared, or one of several, is not modified
        #expect(reply(player, [("If-None-Match", "W/\"v1\"")])?.status == 304)
        #expect(reply(player, [("If-None-Match", "\"v0\", \"v1\"")])?.status == 304)
        #expect(reply(player, [("If-None-Match", "*")])?.status == 304)
        let why = CassettePlayer(cassette: Cassette(interactions: [entry(0, [HeaderField("If-None-Match", "\"v1\"")], status: 304, body: "")]),
                                 afterLast: .noMatch)
            .explainMiss(RecordedRequest(method: "GET", url: url, headers: [HeaderField("If-None-Match", "\"v9\"")]))
        #expect(why.contains("answer 304 Not Modified was for If-None-Match \"v1\", and this request holds \"v9\""), "\(why)")
    }

    @Test("a 304 recorded with the body the browser had cached (Firefox, Internet Explorer) answers a cold request as a 200 with that body; a revalidating one still gets the 304")
    func notModifiedWithCachedBody() {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: url, headers: [HeaderField("If-None-Match", "\"v1\"")]),
                        outcome: .response(RecordedResponse(status: 304, statusText: "Not Modified",
                                                            headers: [HeaderField("ETag", "\"v1\""), HeaderField("Content-Type", "text/javascript")],
                                                            body: Data("run()".utf8)))),
        ]))
        #expect(reply(player)?.status == 200)
        #expect(reply(player)?.body == "run()")
        #expect(reply(player, [("If-None-Match", "\"v1\"")])?.status == 304)
        let head = player.reply(to: RequestSnapshot(method: .head, url: url), context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .response(plan) = head else { Issue.record("a HEAD gets the GET's head"); return }
        #expect(plan.head.status == 200 && plan.reasonPhrase == "OK" && plan.body.isEmpty && plan.head.headerFields[.contentLength] == "5")
    }

    @Test("only a 304 recorded: a cold request is a miss that says why, not an empty body")
    func onlyNotModified() {
        let player = CassettePlayer(cassette: Cassette(interactions: [entry(0, [HeaderField("If-None-Match", "\"v1\"")], status: 304, body: "")]),
                                    afterLast: .noMatch)
        #expect(reply(player) == nil)
        let why = player.explainMiss(RecordedRequest(method: "GET", url: url))
        #expect(why.contains("304 Not Modified answers only a conditional request"), "\(why)")
    }

    @Test("206 answers go by Range, in whatever order the ranges are asked for; a request without one gets none of them")
    func ranges() throws {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, [HeaderField("Range", "bytes=0-3")], status: 206, body: "abcd"),
            entry(1, [HeaderField("Range", "bytes=1000-1003")], status: 206, body: "wxyz"),
        ]))
        #expect(reply(player, [("Range", "bytes=1000-1003")])?.body == "wxyz")
        #expect(reply(player, [("Range", "bytes = 0-3")])?.body == "abcd")
        #expect(reply(player, [("Range", "bytes=1000-1003")])?.body == "wxyz", "used up: the same range repeats")
        #expect(reply(player) == nil)
        #expect(reply(player, [("Range", "bytes=5-9")]) == nil)
    }

    @Test("a range request gets the 206 recorded for its range, not an earlier plain GET's 200, which still answers the plain request")
    func rangeBeforeWholeBody() throws {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, [], status: 200, body: "whole body"),
            entry(1, [HeaderField("Range", "bytes=100-199")], status: 206, body: "part"),
        ]))
        #expect(reply(player, [("Range", "bytes=100-199")])?.status == 206)
        #expect(reply(player)?.body == "whole body")
        #expect(reply(player, [("Range", "bytes=0-9")])?.status == 200, "a range nobody recorded: the whole body, as a server may answer")
        let always = CassettePlayer(cassette: Cassette(interactions: [
            entry(0, [], status: 200, body: "whole body"),
            entry(1, [HeaderField("Range", "bytes=100-199")], status: 206, body: "part"),
        ]), afterLast: .alwaysFirst)
        #expect(reply(always, [("Range", "bytes=100-199")])?.body == "part")
    }

    @Test("a HEAD with no recorded HEAD gets the matching GET's head without its body, and does not use the GET up")
    func headFromGet() throws {
        let player = CassettePlayer(cassette: Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: url),
                        outcome: .response(RecordedResponse(status: 200, headers: [HeaderField("Content-Length", "5"), HeaderField("ETag", "\"v1\"")],
                                                            body: Data("run()".utf8)))),
        ]), afterLast: .noMatch)
        let head = player.reply(to: RequestSnapshot(method: .head, url: url), context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .response(plan) = head else { Issue.record("no answer to HEAD: \(head)"); return }
        #expect(plan.head.status == 200 && plan.body.isEmpty)
        let fields = plan.head.headerFields.map { "\($0.name.rawName): \($0.value)" }
        #expect(fields == ["Content-Length: 5", "ETag: \"v1\""], "the GET's fields, its length included")
        #expect(player.nextMatch(for: RequestSnapshot(method: .head, url: url)) != nil, "the origin choice sees it too")
        #expect(reply(player)?.body == "run()", "the GET is still unplayed")
        #expect(reply(player) == nil)
        let other = player.reply(to: RequestSnapshot(method: .head, url: URL(string: "http://site.test/other")!),
                                 context: ResponderContext(exchange: 2, transaction: 0, time: .zero))
        guard case .noMatch = other else { Issue.record("a HEAD of nothing recorded matched: \(other)"); return }
        // A GET recorded chunked (no length): the HEAD states the length its body had.
        let chunked = CassettePlayer(cassette: Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: url), outcome: .response(RecordedResponse(status: 200, body: Data("run()".utf8)))),
        ]))
        guard case let .response(chunkedPlan) = chunked.reply(to: RequestSnapshot(method: .head, url: url),
                                                              context: ResponderContext(exchange: 1, transaction: 0, time: .zero)) else {
            Issue.record("no answer to HEAD"); return
        }
        #expect(chunkedPlan.head.headerFields.map { "\($0.name.rawName): \($0.value)" } == ["Content-Length: 5"])
        // A URL with a HEAD of its own recorded: that one answers, and once it is used up nothing
        // does (the GET is not borrowed).
        let withHead = CassettePlayer(cassette: Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: url), outcome: .response(RecordedResponse(status: 200, body: Data("run()".utf8)))),
            Interaction(index: 1, request: RecordedRequest(method: "HEAD", url: url), outcome: .response(RecordedResponse(status: 204))),
        ]), afterLast: .noMatch)
        let context = ResponderContext(exchange: 1, transaction: 0, time: .zero)
        guard case let .response(own) = withHead.reply(to: RequestSnapshot(method: .head, url: url), context: context) else {
            Issue.record("the recorded HEAD did not answer"); return
        }
        #expect(own.head.status == 204)
        guard case .noMatch = withHead.reply(to: RequestSnapshot(method: .head, url: url), context: context) else {
            Issue.record("a used-up HEAD borrowed the GET"); return
        }
    }
}

