import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckClient
import TapedeckTestSupport
import TapedeckTesting

/// A client kept across tests — a singleton made during the first test — keeps that test's tape:
/// its requests in a later test must fail saying so, not hang or blame the request.
@Suite("Tape: a client kept past its tape")
struct KeptClientTests {
    @Test("awaiting a request of a Session made under a finished tape throws TapeError.finished, naming the cassette", .timeLimit(.minutes(1)))
    func sessionOutlivesItsTape() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("first.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/me")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("{}".utf8)))),
        ]), to: cassette)
        // Given a client made under the first test's tape, used there
        let first = try Tape(cassette: cassette, mode: .replayOnly)
        let kept = DefaultTransport.$current.withValue(first.makeClientTransport()) { Session() }
        #expect(try await kept.request("http://api.test/me").serializingData().value == Data("{}".utf8))
        try first.finish()

        // When a later test (another tape) uses the same client
        let second = try Tape(cassette: cassette, mode: .replayOnly)
        let result = await DefaultTransport.$current.withValue(second.makeClientTransport()) {
            await kept.request("http://api.test/me").serializingData().result
        }
        try second.finish()

        // Then the request fails saying the client outlived the tape it was made under
        let error = try #require(result.failure)
        #expect("\(error)".contains("first.har, which has finished") && "\(error)".contains("kept across tests"), "\(error)")
    }
}

/// A `Session()` nobody holds (`Session().request(…)`, a common slip): its request ends with
/// `sessionDeinitialized`, as Alamofire's does — awaited or with a handler — instead of hanging.
@Suite("Tape: a Session nobody holds")
struct TemporarySessionTests {
    static func cassette(in directory: TemporaryDirectory) throws -> URL {
        let cassette = directory.file("temporary.har")
        try CassetteFile.write(Cassette(interactions: [
            Interaction(index: 0, request: RecordedRequest(method: "GET", url: URL(string: "http://api.test/me")!),
                        outcome: .response(RecordedResponse(status: 200, body: Data("{}".utf8)))),
        ]), to: cassette)
        return cassette
    }

    @Test("awaited: the request of a released Session fails with sessionDeinitialized", .timeLimit(.minutes(1)))
    func awaited() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let tape = try Tape(cassette: try Self.cassette(in: directory), mode: .replayOnly)
        let result = await DefaultTransport.$current.withValue(tape.makeClientTransport()) {
            await Session().request("http://api.test/me").serializingData().result
        }
        #expect(result.failure?.isSessionDeinitializedError == true, "\(result)")
        try tape.finish()
    }

    @Test("with a handler: the handler runs once, with sessionDeinitialized, when the tape runs", .timeLimit(.minutes(1)))
    func handler() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let tape = try Tape(cassette: try Self.cassette(in: directory), mode: .replayOnly)
        let seen = Mutex<[Bool]>([])
        DefaultTransport.$current.withValue(tape.makeClientTransport()) {
            Session().request("http://api.test/me").responseData { response in
                seen.withLock { $0.append(response.error?.isSessionDeinitializedError == true) }
            }
        }
        _ = try tape.run()
        #expect(seen.withLock { $0 } == [true])
        try tape.finish()
    }
}
