import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckCassettes
import TapedeckScheduling
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

    @Test("a client's own backoff on the tape's SimulatedClock, between its requests, fires on virtual time inside serving",
          .timeLimit(.minutes(1)))
    func clockSleepsBetweenRequests() async throws {
        let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        let session = URLSession(configuration: tape.configuration())
        let clock = SimulatedClock(scheduler: tape.scheduler)
        // Each sleep is set from the client's thread after an answer, whenever the serving thread
        // happens to be (running, ending its run, or idle): it must be woken for the timer each time.
        let slept = try await tape.serving { () async throws -> [Duration] in
            var slept: [Duration] = []
            for round in 1...12 {
                _ = try await session.data(for: loginRequest())
                let before = clock.now
                try await clock.sleep(for: .seconds(Double(round * 5)))
                slept.append(before.duration(to: clock.now))
            }
            return slept
        }
        #expect(slept == (1...12).map { .seconds($0 * 5) })
        try tape.finish()
    }

    @Test("an upload task's body (from data and from a file) reaches the live server and the cassette, and replays matched on it")
    func uploadTaskBodies() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("uploads.har.gz")
        let file = directory.file("report.csv")
        try Data("id,total\n7,42\n".utf8).write(to: file)
        var request = URLRequest(url: server.url("/echo"))
        request.httpMethod = "POST"

        let recording = try Tape(cassette: cassette, mode: .all)
        let session = URLSession(configuration: recording.configuration())
        let echoed = try await recording.serving {
            [try await session.upload(for: request, from: Data("hello, upload".utf8)).0, try await session.upload(for: request, fromFile: file).0]
        }
        // A POST body without a Content-Type reaches the server without one (corelibs adds a form
        // type to an httpBody; the recorder sends the body as an upload's data).
        var typeless = URLRequest(url: server.url("/headers"))
        typeless.httpMethod = "POST"
        let seen = try await recording.serving { try await session.upload(for: typeless, from: Data([0, 1, 2, 3])).0 }
        #expect(!String(decoding: seen, as: UTF8.self).lowercased().contains("content-type"), "\(String(decoding: seen, as: UTF8.self))")
        try recording.finish()
        server.stop()
        #expect(echoed == [Data("hello, upload".utf8), Data("id,total\n7,42\n".utf8)], "the server got the bodies")
        #expect(try CassetteFile.read(cassette).interactions.prefix(2).map(\.request.body) == echoed, "the cassette has them")

        // Replayed with bodies matched: each upload gets the answer recorded for its own body.
        let replay = try Tape(cassette: cassette, mode: .replayOnly, matching: MatchRules(body: .raw))
        let client = URLSession(configuration: replay.configuration())
        let second = try await replay.serving { try await client.upload(for: request, fromFile: file).0 }
        #expect(second == Data("id,total\n7,42\n".utf8))
        try replay.finish()
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
        // The failing URL is a URL, as URLSession gives it (not an optional in the userInfo).
        let failing = try #require(error?.userInfo[NSURLErrorFailingURLErrorKey])
        #expect("\(failing)" == loginRequest().url?.absoluteString, "an Optional(…) printed: \(failing)")
        // The same session still answers a data task.
        let (_, response) = try await tape.serving { try await session.data(for: loginRequest()) }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        try tape.finish()
    }
    #endif

    #if canImport(FoundationNetworking)
    /// A delegate that takes data and downloads, as Alamofire's SessionDelegate does.
    private final class DataAndDownloadDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
        let downloaded = Mutex(false)
        let completion = Mutex<(@Sendable (URLError?) -> Void)?>(nil)
        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
            downloaded.withLock { $0 = true }
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            completion.withLock { $0 }?(error as? URLError)
        }
    }

    @Test("a download task under a delegate that is a data delegate too (Alamofire's) is refused the same way, not crashed on its first chunk")
    func downloadTaskUnderDataDelegateIsRefused() async throws {
        let tape = try Tape(cassette: cassettesDirectory.appendingPathComponent("login.har.gz"), mode: .replayOnly)
        let delegate = DataAndDownloadDelegate()
        let session = URLSession(configuration: tape.configuration(), delegate: delegate, delegateQueue: nil)
        let error = try await tape.serving { () async -> URLError? in
            await withCheckedContinuation { (done: CheckedContinuation<URLError?, Never>) in
                delegate.completion.withLock { $0 = { error in done.resume(returning: error) } }
                session.downloadTask(with: loginRequest()).resume()
            }
        }
        #expect(error?.code == .unsupportedURL)
        #expect(error?.localizedDescription.contains("use a data task") == true, "\(String(describing: error))")
        #expect(delegate.downloaded.withLock { !$0 })
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
