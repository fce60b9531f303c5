import Foundation
import Testing
import TapedeckCassettes
import TapedeckTestSupport

@Suite("Server: a response that breaks off upstream is recorded with the bytes that came, and served breaking off the same way", .serialized)
struct BrokenOffServerTests {
    private func header(_ name: String, in head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    @Test("record: curl gets the head and 7 bytes, then the connection drops; the cassette keeps them and the failure; serve replays head, bytes and drop")
    func recordThenServe() async throws {
        try await blocking {
            // Given an upstream that announces 100 bytes, sends 7 and closes
            let upstream = try OneAnswerUpstream(answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\npartial", thenClose: true)
            defer { upstream.stop() }
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let cassette = directory.file("cut.har.gz")

            // When a client asks through record
            let proxy = try ServerProcess(["record", "--upstream", "http://127.0.0.1:\(upstream.port)", "--cassette", cassette.path])
            let live = try curl([proxy.base + "/cut"])
            #expect(proxy.stop() == 0)
            // Then it gets what the upstream sent, and the connection drops short of the length
            #expect(live.head.hasPrefix("HTTP/1.1 200") && live.body == Data("partial".utf8), "\(live.head)")
            #expect(live.status != 0, "curl took the cut answer for a whole one")

            // And the cassette keeps the head, the bytes and the failure
            let stored = try #require(CassetteFile.read(cassette).interactions.first?.response)
            #expect(stored.status == 200 && stored.body == Data("partial".utf8) && stored.headers.value(for: "Content-Length") == "100")
            #expect(stored.interruption?.code == URLError.networkConnectionLost.rawValue, "\(String(describing: stored.interruption))")

            // When serve replays it with the upstream gone
            let served = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
            defer { served.stop() }
            let replayed = try curl([served.base + "/cut"])
            // Then the client meets the same break: the length announced, 7 bytes, the drop
            #expect(replayed.head.hasPrefix("HTTP/1.1 200") && header("Content-Length", in: replayed.head) == "100", "\(replayed.head)")
            #expect(replayed.body == Data("partial".utf8) && replayed.status != 0, "curl \(replayed.status): \(replayed.errors)")
        }
    }

    @Test("serve delivers every kept byte of a 2 MB body that broke off before the connection ends; a HEAD of it completes; HTTP/1.0 without a length still ends short")
    func servedBreaks() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            func cut(_ path: String, _ body: Data, headers: [HeaderField]) -> Interaction {
                var response = RecordedResponse(status: 200, headers: headers, body: body)
                response.interruption = RecordedFailure(code: URLError.networkConnectionLost.rawValue, message: "reset by peer")
                return Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test\(path)")!), outcome: .response(response))
            }
            let big = Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let file = directory.file("cuts.har.gz")
            try CassetteFile.write(Cassette(interactions: [
                cut("/big", big, headers: [HeaderField("Content-Type", "application/octet-stream"), HeaderField("Content-Length", "5000000")]),
                cut("/nolength", Data("partial".utf8), headers: [HeaderField("Content-Type", "text/plain")]),
            ]), to: file)
            let served = try ServerProcess(["serve", file.path, "--timing", "instant"])
            defer { served.stop() }
            // Every kept byte arrives, whatever the client's pace, then the end short of the length
            for _ in 0..<3 {
                let run = try curl([served.base + "/big"])
                #expect(run.body == big && run.status != 0, "\(run.body.count) bytes, curl \(run.status): \(run.errors)")
            }
            let slow = try curl(["--limit-rate", "4M", served.base + "/big"])
            #expect(slow.body.count == big.count && slow.status != 0, "\(slow.body.count) bytes, curl \(slow.status)")
            // A HEAD has no body to break off: the GET's announced length, and no error
            let head = try curl(["-I", served.base + "/big"])
            #expect(head.status == 0 && self.header("Content-Length", in: head.head) == "5000000", "\(head.status) \(head.head)")
            // HTTP/1.0, which cannot be sent chunks: a length one byte more than is sent, never a complete answer
            let old = try curl(["--http1.0", served.base + "/nolength"])
            #expect(old.body == Data("partial".utf8) && old.status != 0 && self.header("Content-Length", in: old.head) == "8",
                    "curl \(old.status): \(old.head)")
        }
    }
}
