import Foundation
import Testing
import TapedeckClient
import TapedeckScheduling
import TapedeckTesting

/// Where `Session()` gets its transport: live by default, the installed one in a scope, and the
/// tape's inside a test bound to a cassette.
@Suite("Compat: Session() and AF without a provider")
struct DefaultTransportTests {
    @Test("outside any scope, Session() is live: a LiveScheduler and a transport without metrics")
    func liveByDefault() {
        let session = Session()
        #expect(session.scheduler is LiveScheduler)
        #expect(session.scheduler === DefaultTransport.live.scheduler)
        #expect(session.transportProfile == .corelibsURLSession)
        #expect(session.session.configuration.headers["User-Agent"] == HTTPHeader.defaultUserAgent.value)
    }

    @Test("inside a cassette test, AF and Session() use the tape: the user code's call is answered from the cassette",
          .cassette("compat-repos.har", mode: .replayOnly, timing: .instant))
    func cassetteTestsUseTheTape() async throws {
        let tape = try #require(Tape.current)
        #expect(Session().scheduler === tape.scheduler)
        #expect(AF.scheduler === tape.scheduler)

        let repos = try await RepoClient.repos(for: "ada")   // Session.default, awaited: the tape runs

        #expect(repos == [Repo(id: 1, name: "engine")])
    }
}
