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

@Suite("Tape: a client with its own URLSession (Alamofire's shape) records and replays")
struct OwnClientTapeTests {
    @Test("recording through the client's own session, against a real server, then replaying it with the server gone")
    func recordsThenReplays() async throws {
        // Given a real server and an empty cassette
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("own-client.har.gz")

        // When a client with its own URLSession, delegate and queue asks twice while the tape serves
        let recording = try Tape(cassette: cassette, mode: .all)
        let recorder = OwnClient(configuration: recording.configuration())
        let live = try await recording.serving {
            [await recorder.get(server.url("/get?x=1")), await recorder.get(server.url("/bytes/3000"))]
        }
        let summary = try recording.finish()
        server.stop()

        // Then both answers came from the server and went into the cassette
        #expect(live.map(\.status) == [200, 200])
        #expect(live[1].body.count == 3_000)
        #expect(summary.recorded == 2)
        #expect(try CassetteFile.read(cassette).interactions.count == 2)

        // And a replay gives the same client the same answers, with nothing live
        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let client = OwnClient(configuration: replay.configuration())
        let replayed = try await replay.serving {
            [await client.get(server.url("/get?x=1")), await client.get(server.url("/bytes/3000"))]
        }
        #expect(replayed.map(\.status) == [200, 200])
        #expect(replayed.map(\.body) == live.map(\.body))
        #expect(replay.determinism.isReproducible, "\(replay.determinism)")
        #expect(try replay.finish().replayed == 2)
    }

    @Test("a committed cassette answers completion-handler and async code on its own session")
    func replaysForAsyncCode() async throws {
        let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        let session = URLSession(configuration: tape.configuration())

        let (data, response) = try await tape.serving { try await session.data(for: loginRequest()) }

        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("ada"))
        try tape.finish()
    }

    #if canImport(FoundationNetworking)
    @Test("a download task fails with a URLError that says to use a data task, instead of crashing the process (corelibs)")
    func downloadTaskIsRefused() async throws {
        let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        let session = URLSession(configuration: tape.configuration())
        let error = try await tape.serving { () async -> URLError? in
            do {
                _ = try await session.download(for: loginRequest())
                return nil
            } catch {
                return error as? URLError
            }
        }
        #expect(error?.code == .unsupportedURL)
        #expect(error?.localizedDescription.contains("use a data task") == true, "\(String(describing: error))")
        // The same session still answers a data task.
        let (_, response) = try await tape.serving { try await session.data(for: loginRequest()) }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        try tape.finish()
    }
    #endif

    @Test("after finish(), a request from the client fails at once, naming it")
    func requestAfterFinish() async throws {
        let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        let client = OwnClient(configuration: tape.configuration())
        try tape.finish()

        let result = await client.get(URL(string: api + "/headers")!)

        #expect(result.error?.code == .resourceUnavailable)
        #expect(result.error?.localizedDescription.contains("GET \(api)/headers was started after the tape finished") == true)
        #expect(tape.harness.lateRequests == ["GET \(api)/headers"])
    }
}

private let cassettesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Cassettes")
