import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckClient
import TapedeckLoopback
import TapedeckTesting
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private func signedIn(_ data: Data) -> Bool? {
    (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["signedIn"] as? Bool
}

@Suite("Testing: a cookie session recorded live and replayed", .serialized)
struct CookieSessionTests {
    @Test("a cookie set on a redirect goes with the followed hop and every later request, as URLSession's own transfers send it; replay answers the same")
    func cookieFromRedirect() async throws {
        // Given a sign-in that sets a cookie on its redirect, and a page that needs it
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("cookies.har.gz")

        // When a tape records signing in and asking again
        let recording = try Tape(cassette: cassette, mode: .once)
        let start = try await recording.perform(server.url("/session/start"))
        let again = try await recording.perform(server.url("/session/whoami"))
        let stored = recording.session.configuration.httpCookieStorage?.cookies(for: server.baseURL) ?? []
        try recording.finish()

        // Then the server saw the cookie on the followed hop and on the later request, and the
        // session's cookie storage holds it, as a plain URLSession's would
        #expect(start.response.url?.path == "/session/whoami")
        #expect(signedIn(start.data) == true, "the redirect's hop went without the cookie it set")
        #expect(signedIn(again.data) == true, "the next request went without the stored cookie")
        #expect(stored.map { "\($0.name)=\($0.value)" } == ["deck=side-a-4411"])

        // And on disk: the hops with their Cookie field, the value redacted, the name and attributes kept
        let recorded = try CassetteFile.read(cassette).interactions
        #expect(recorded.map(\.request.url.path) == ["/session/start", "/session/whoami", "/session/whoami"])
        #expect(recorded.dropFirst().allSatisfy { $0.request.headers.value(for: "Cookie") == "deck=REDACTED" })
        #expect(recorded[0].response?.headers.value(for: "Set-Cookie") == "deck=REDACTED; Path=/")

        // And a replay without the server gives the client the same answers
        server.stop()
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        #expect(signedIn(try await replay.perform(server.url("/session/start")).data) == true)
        #expect(signedIn(try await replay.perform(server.url("/session/whoami")).data) == true)
        #expect(try replay.finish().replayed == 3)
    }

    @Test("a session whose configuration never accepts cookies stores none and sends none")
    func cookiesRefused() async throws {
        // Given a recording session that refuses cookies
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let tape = try Tape(cassette: directory.file("no-cookies.har.gz"), mode: .once)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        let session = tape.makeURLSession(configuration: configuration)
        let answer = Mutex<Data?>(nil)

        // When it signs in
        tape.rootQueue.async {
            session.dataTask(with: server.url("/session/start")) { data, _, _ in answer.withLock { $0 = data } }.resume()
        }
        try await tape.run()
        try tape.finish()

        // Then the followed hop went without the cookie, and nothing was stored
        #expect(signedIn(try #require(answer.withLock { $0 })) == false)
        #expect(session.configuration.httpCookieStorage?.cookies(for: server.baseURL)?.isEmpty ?? true)
    }

    @Test("sessions on the process-wide cookie storage share one per tape: a second tape starts without the first one's cookies")
    func sharedStorageStaysInTheTape() async throws {
        // Given two tapes whose sessions use `.default` (the process's shared cookie storage)
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func ask(_ tape: Tape, _ session: URLSession, _ path: String) async throws -> Bool? {
            let answer = Mutex<Data?>(nil)
            tape.rootQueue.async {
                session.dataTask(with: server.url(path)) { data, _, _ in answer.withLock { $0 = data } }.resume()
            }
            try await tape.run()
            return answer.withLock { $0 }.flatMap(signedIn)
        }
        let first = try Tape(cassette: directory.file("first.har.gz"), mode: .once)
        let second = try Tape(cassette: directory.file("second.har.gz"), mode: .once)

        // When the first signs in on one session and asks on another
        let signedInFirst = try await ask(first, first.makeURLSession(configuration: .default), "/session/start")
        let otherSession = try await ask(first, first.makeURLSession(configuration: .default), "/session/whoami")
        // and the second tape asks too
        let secondTape = try await ask(second, second.makeURLSession(configuration: .default), "/session/whoami")
        try first.finish()
        try second.finish()

        // Then the first tape's sessions share the cookie, in its harness's storage only
        #expect(signedInFirst == true && otherSession == true)
        #expect(first.harness.cookieStorage.cookies(for: server.baseURL)?.map(\.name) == ["deck"])
        #expect(!(HTTPCookieStorage.shared.cookies(for: server.baseURL) ?? []).contains { $0.value == "side-a-4411" })
        #expect(secondTape == false, "the second tape saw the first one's cookie")
    }
}
