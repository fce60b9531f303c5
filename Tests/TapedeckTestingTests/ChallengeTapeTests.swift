import Foundation
import Testing
import TapedeckBridge
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An API that answers 401 with an authentication challenge (`WWW-Authenticate: Basic`): corelibs
/// never finishes such a task when its challenge gets the default handling, so recording it
/// stalled until the recorder's ten-minute wait. The forwarder declines the challenge instead.
@Suite("Tape: a 401 with an authentication challenge records and replays")
struct ChallengeTapeTests {
    @Test("the 401 and its challenge are recorded at once, and replay as that 401", .timeLimit(.minutes(1)))
    func basicChallenge() throws {
        let server = try LoopbackServer.startBlocking()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("auth.har.gz")
        let url = server.url("/basic-auth")

        let recording = try Tape(cassette: cassette, mode: .all)
        let live = try recording.perform(url)
        try recording.finish()
        server.stop()
        #expect(live.response.statusCode == 401)
        let recorded = try #require(try CassetteFile.read(cassette).interactions.first?.response)
        #expect(recorded.status == 401 && recorded.headers.value(for: "WWW-Authenticate") == #"Basic realm="tapedeck""#, "\(recorded)")

        // On replay the client gets the 401 and its body (corelibs never ends a task whose 401
        // carries a Basic challenge: on Linux the challenge comes under another name)
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let again = try replay.perform(url)
        #expect(again.response.statusCode == 401 && again.data == Data("who are you?".utf8))
        #if canImport(FoundationNetworking)
        #expect(again.response.value(forHTTPHeaderField: Harness.challengeFieldName) == #"Basic realm="tapedeck""#)
        #expect(again.response.value(forHTTPHeaderField: "WWW-Authenticate") == nil)
        #else
        #expect(again.response.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="tapedeck""#)
        #endif
        #expect(try replay.finish().replayed == 1)
    }
}
