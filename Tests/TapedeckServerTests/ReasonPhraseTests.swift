import Foundation
import TapedeckCassettes
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

/// What a replayed response head carries beside its status line.
@Suite("Server: replayed response heads")
struct ResponseHeadTests {
    @Test("a HEAD whose recording gave no length gets none, not a made-up 0; with a recorded length it keeps it")
    func headWithoutLength() {
        let unknown = ServerAnswer(status: 200, headers: [HeaderField("Content-Type", "application/zip")], body: Data())
        #expect(ConnectionHandler.head(unknown, close: false, isHead: true).headers["content-length"].isEmpty)
        let known = ServerAnswer(status: 200, headers: [HeaderField("Content-Length", "4096")], body: Data())
        #expect(ConnectionHandler.head(known, close: false, isHead: true).headers["content-length"] == ["4096"])
        // A GET of the same answer still says what it sends.
        #expect(ConnectionHandler.head(unknown, close: false, isHead: false).headers["content-length"] == ["0"])
    }

    @Test("fields a response's Connection names are hop-by-hop: dropped, with Connection itself")
    func connectionNamedFields() {
        let answer = ServerAnswer(status: 200, headers: [HeaderField("Connection", "X-Hop, keep-alive"), HeaderField("X-Hop", "hopvalue"),
                                                         HeaderField("X-Kept", "yes")], body: Data("ok".utf8))
        for head in [ConnectionHandler.head(answer, close: false, isHead: false)] {
            #expect(head.headers["x-hop"].isEmpty)
            #expect(head.headers["x-kept"] == ["yes"])
        }
    }
}
