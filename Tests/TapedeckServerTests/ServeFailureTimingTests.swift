import Foundation
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckServer

/// When `serve` answers a recorded transport failure: as late as it came when recorded.
@Suite("Server: recorded failures keep their time")
struct ServeFailureTimingTests {
    private func answer(timing: ReplayService.Timing) -> ServerAnswer? {
        let timeout = Interaction(
            index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/slow")!),
            outcome: .failure(RecordedFailure(code: URLError.timedOut.rawValue, message: "timed out")),
            timings: ExchangeTimings(connect: .milliseconds(4), send: .zero, wait: .milliseconds(1_000), receive: .zero))
        let service = ReplayService(cassette: Cassette(interactions: [timeout]), options: .init(timing: timing))
        let answered = Answered()
        service.handle(IncomingRequest(method: "GET", target: "/slow", headers: [HeaderField("Host", "api.test")])) { answered.value = $0 }
        return answered.value
    }

    @Test("a recorded timeout is answered 502 after its recorded connect, send and wait, scaled; at once when instant")
    func failureWaits() throws {
        let recorded = try #require(answer(timing: .recorded))
        #expect(recorded.status == 502)
        #expect(recorded.delivery.headDelay == .milliseconds(1_004))
        #expect(try #require(answer(timing: .scaled(3))).delivery.headDelay == .milliseconds(3_012))
        #expect(try #require(answer(timing: .instant)).delivery.headDelay == .zero)
    }
}

/// The answer a synchronous `handle` gave.
private final class Answered: @unchecked Sendable {
    var value: ServerAnswer?
}
