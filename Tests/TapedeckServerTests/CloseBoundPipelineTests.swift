import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTestSupport

/// A request that ends its connection (`Connection: close`, HTTP/1.0 without keep-alive) with
/// more bytes behind it in the same write: llhttp refuses those bytes, and the refusal must not
/// cut the answer already under way.
@Suite("Server: more bytes after a request that ends the connection", .serialized)
struct CloseBoundPipelineTests {
    /// The first answer in `bytes`, checked whole: its head, then as many body bytes as its
    /// `Content-Length` says, or a chunked body up to its last chunk.
    private func firstAnswerIsWhole(_ bytes: Data) -> Bool {
        guard let end = bytes.firstRange(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).lowercased()
        let body = bytes[end.upperBound...]
        if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
           let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
            return body.count >= length
        }
        return head.contains("transfer-encoding: chunked") && body.firstRange(of: Data("\r\n0\r\n\r\n".utf8)) != nil
    }

    private let closeBound = [
        "GET /get?n=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\nGET /get?n=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "GET /get?n=1 HTTP/1.0\r\n\r\nGET /get?n=2 HTTP/1.0\r\n\r\n",
    ]

    @Test("record: the client gets the whole answer to the request that ends the connection, as the cassette has it")
    func recordAnswersWhole() async throws {
        let upstream = try await LoopbackServer.start()
        defer { upstream.stop() }
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("close.har.gz")
            let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path, "--mode", "all"])
            var whole = 0
            for _ in 0..<5 {
                for request in closeBound {
                    let exchange = rawExchange(port: proxy.port, send: Data(request.utf8), shutdownWrite: false)
                    #expect(!exchange.timedOut)
                    if firstAnswerIsWhole(exchange.received) { whole += 1 } else {
                        Issue.record("cut: \(String(decoding: exchange.received, as: UTF8.self))")
                    }
                }
            }
            #expect(proxy.stop() == 0, "\(proxy.errors)")
            #expect(whole == 10)
            #expect(try CassetteFile.read(cassette).interactions.count == 10, "one exchange per request answered, none for the refused bytes")
        }
    }

    @Test("serve: a paced chunked stream to a request that ends the connection ends with its last chunk")
    func servePacedStreamEnds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let events = ["data: one\n\n", "data: two\n\n"].map { Data($0.utf8) }
        let cassette = directory.file("events.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://127.0.0.1/get?n=1")!),
                        outcome: .response(RecordedResponse(
                            status: 200, headers: [HeaderField("Content-Type", "text/event-stream")], body: events.reduce(Data(), +),
                            chunks: [BodyChunk(bytes: events[0].count, at: .zero), BodyChunk(bytes: events[1].count, at: .milliseconds(20))])),
                        timings: ExchangeTimings(wait: .milliseconds(1), receive: .milliseconds(20))),
        ]), to: cassette)
        let server = try ServerProcess(["serve", cassette.path, "--timing", "recorded"])
        defer { server.stop() }
        for _ in 0..<5 {
            let exchange = rawExchange(port: server.port, send: Data(closeBound[0].utf8), shutdownWrite: false)
            #expect(!exchange.timedOut && firstAnswerIsWhole(exchange.received), "\(String(decoding: exchange.received, as: UTF8.self))")
        }
    }
}
