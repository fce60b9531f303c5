import NIOHTTP1
import Testing
@testable import TapedeckServer

/// Which reason phrase goes in a replayed status line.
@Suite("Server: reason phrases")
struct ReasonPhraseTests {
    private func status(_ code: Int, _ phrase: String) -> HTTPResponseStatus {
        var answer = ServerAnswer(status: code)
        answer.reasonPhrase = phrase
        return ConnectionHandler.status(answer)
    }

    @Test("a recorded phrase is sent; none, the standard one, or one holding a control character (a smuggled header) gives the standard one")
    func phrases() {
        #expect(status(200, "Okay Then").reasonPhrase == "Okay Then")
        #expect(status(200, "Okay Then").code == 200)
        #expect(status(599, "Network Connect Timeout").reasonPhrase == "Network Connect Timeout")
        #expect(status(200, "") == .ok)
        #expect(status(404, "Not Found") == .notFound)
        #expect(status(200, "OK\r\nX-Injected: 1") == .ok)
        #expect(status(200, "tab\tis fine").reasonPhrase == "tab\tis fine")
        #expect(status(200, "nul\u{0}") == .ok)
    }
}
