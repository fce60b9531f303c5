import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckLoopback
import TapedeckTesting
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A test that cancels a request while recording: the cancel is kept, so the replay of that test
/// finds an entry for the request (a cancellation) instead of failing for good.
@Suite("Cassettes: a request cancelled while recording is kept as a cancellation", .serialized)
struct CancelledRecordingTests {
    /// Starts a live exchange for `url` (one the server holds open) through `recorder`, cancels
    /// it, and waits (up to 20 s) until the recorder has settled it.
    private func recordCancelled(_ recorder: CassetteRecorder, _ url: URL) throws {
        let reply = recorder.reply(to: RequestSnapshot(method: .get, url: url), context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .deferred(deferred) = reply else {
            Issue.record("not a live reply: \(reply)")
            return
        }
        let delivered = Mutex(false)
        let cancel = deferred.start { _ in delivered.withLock { $0 = true } }
        cancel()
        let deadline = Date().addingTimeInterval(20)
        while recorder.liveRequests > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(recorder.liveRequests == 0 && !delivered.withLock { $0 }, "settled, and a cancelled request is not answered")
    }

    @Test("recorded as URLError.cancelled with the time it ran, listed among the recorded failures; replayed, the request ends cancelled")
    func keptAndReplayed() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("cancel.har.gz")
        let key = "cancel-\(UUID().uuidString)"
        defer { LoopbackGates.open(key) }
        let url = server.url("/gated/\(key)/64")
        let recorder = try CassetteRecorder(cassette: cassette, options: CassetteRecorder.Options(mode: .once))
        try await blocking { try recordCancelled(recorder, url) }
        let summary = try recorder.finish()
        #expect(summary.recorded == 1 && summary.recordedFailures.count == 1, "\(summary)")
        #expect(summary.recordedFailures.first?.contains("cancelled by the client before its answer came") == true, "\(summary.recordedFailures)")
        let stored = try CassetteFile.read(cassette).interactions
        let failure: RecordedFailure? = switch stored.first?.outcome {
        case let .failure(failure)?: failure
        case let .response(response)?: response.interruption   // the head and the first bytes came before the cancel
        case nil: nil
        }
        #expect(failure?.code == URLError.cancelled.rawValue, "\(stored)")

        // Replayed with the server stopped, the request finds its entry and ends cancelled.
        server.stop()
        let tape = try Tape(cassette: cassette, mode: .replayOnly)
        do {
            _ = try await tape.perform(url)
            Issue.record("a recorded cancellation was answered")
        } catch let error as URLError {
            #expect(error.code == .cancelled, "\(error)")
        }
    }

    @Test("a recorder that keeps no cancellations (tapedeck record's) records nothing for it")
    func notKeptWhenAsked() async throws {
        let server = try await LoopbackServer.start()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let key = "cancel-\(UUID().uuidString)"
        defer { LoopbackGates.open(key) }
        var options = CassetteRecorder.Options(mode: .once)
        options.keepsCancelled = false
        let recorder = try CassetteRecorder(cassette: directory.file("none.har.gz"), options: options)
        try await blocking { try recordCancelled(recorder, server.url("/gated/\(key)/64")) }
        #expect(try recorder.finish().recorded == 0)
    }
}
