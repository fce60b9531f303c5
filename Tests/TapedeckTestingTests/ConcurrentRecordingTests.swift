import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording through a `Tape` while the app has several requests under way on its own threads:
/// their live calls overlap, as the app's requests do.
@Suite("Tape: concurrent requests while recording")
struct ConcurrentRecordingTests {
    @Test("a request held by the server until another request opens its gate finishes: the second live call is made while the first is still waiting",
          .timeLimit(.minutes(1)))
    func liveCallsOverlap() async throws {
        let server = try await LoopbackServer.start()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let key = "overlap-\(UUID().uuidString)"
        // A live call waits at most 5 s: were the second request held back until the first ended,
        // the first would end in a timeout, never a 200.
        let tape = try Tape(cassette: directory.file("overlap.har.gz"), mode: .all, live: LiveForwarder.Options(timeout: .seconds(5)))
        let session = URLSession(configuration: tape.configuration())
        let statuses = try await tape.serving {
            try await withThrowingTaskGroup(of: (String, Int).self) { group in
                group.addTask {
                    let (_, response) = try await session.data(from: server.url("/gated/\(key)/10"))
                    return ("held", (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
                group.addTask {
                    let (_, response) = try await session.data(from: server.url("/open-gate/\(key)"))
                    return ("opener", (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
                var all: [String: Int] = [:]
                for try await (name, status) in group { all[name] = status }
                return all
            }
        }
        #expect(statuses == ["held": 200, "opener": 204], "\(statuses)")
        #expect(try tape.finish().recorded == 2)
        let recorded = try CassetteFile.read(directory.file("overlap.har.gz")).interactions
        #expect(recorded.first { $0.request.url.path.hasPrefix("/gated/") }?.response?.body.count == 20)
    }
}
