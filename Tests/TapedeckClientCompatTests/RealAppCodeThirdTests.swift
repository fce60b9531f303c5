import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckTesting
import HTTPTypes
import TapedeckHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app code of UserCode/ThirdRoundIdioms.swift on the simulated network, and of
/// UserCode/PlainURLSessionLayer.swift (an app's own URLSession layer) replayed from a cassette.
@Suite("Compat: a third round of app network layers")
struct RealAppCodeThirdTests {
    private func text(_ data: Data?) -> String? {
        data.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a Session subclass with a retrier reading the task's response: one retry of a 503, the monitor's closures in order")
    func sessionSubclassAndRetrier() throws {
        // Given a health check that is unavailable once
        let backend = SimulatedBackend()
        let calls = Box(0)
        backend.serve(path: "/health") { _ in
            calls.mutate { $0 += 1 }
            return calls.value == 1 ? ResponsePlan(status: 503) : .json(200, "{}")
        }
        let log = LinesBox()
        let session = backend.withTransport { APISession.make(monitor: ThirdRound.monitor(into: log)) }
        let outcome = Box<(Int?, Int)?>(nil)

        // When
        ThirdRound.status(session: session) { outcome.value = ($0, $1) }
        try backend.run()

        // Then the retrier saw the 503 through request.task?.response and retried once
        #expect(outcome.value?.0 == 200)
        #expect(outcome.value?.1 == 1)
        #expect(log.all == ["resume", "task 503 ok", "retrying 1", "task 200 ok", "finish /health"])
        #expect(backend.requests.allSatisfy { $0.headerFields[HTTPField.Name("X-Client")!] == "ios/5.2" })
    }

    @Test("a String ParameterEncoding sends the string as the body; a serializer class with a closure; a hand-encoded form sent as data")
    func encodingsAndSerializers() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/graphql") { _ in .json(200, #"{"data":{}}"#) }
        backend.serve(path: "/words") { _ in .text(200, "one two three") }
        backend.serve(path: "/attachments") { _ in .json(201, "{}") }
        let session = backend.withTransport { Session() }
        let graphql = Box<Int?>(nil)
        let words = Box<Int?>(nil)
        let attached = Box<Int?>(nil)

        // When
        ThirdRound.rawBody(session: session) { graphql.value = $0 }
        ThirdRound.wordCount(session: session) { words.value = $0 }
        try ThirdRound.handEncodedForm(session: session) { attached.value = $0 }
        try backend.run()

        // Then
        #expect(graphql.value == 200)
        let query = try #require(backend.requests.first { $0.path == "/graphql" })
        #expect(text(query.body) == #"{"query":"{ me { id } }"}"#)
        #expect(query.headerFields[.contentType] == "application/json")
        #expect(words.value == 3)
        #expect(attached.value == 201)
        let upload = try #require(backend.requests.first { $0.path == "/attachments" })
        let contentType = try #require(upload.headerFields[.contentType])
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        let body = try #require(text(upload.body))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        #expect(body.hasPrefix("--\(boundary)\r\n"))
        #expect(body.hasSuffix("--\(boundary)--\r\n"))
        #expect(body.contains("name=\"note\"; filename=\"note.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n"))
    }

    @Test("an empty 200 decoded as Empty fails with inputDataNilOrZeroLength unless 200 is an empty response code")
    func emptyBodies() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/ack") { _ in ResponsePlan(status: 200) }
        let session = backend.withTransport { Session() }
        let outcomes = Box<[String]>([])

        // When
        ThirdRound.acknowledge(session: session) { outcomes.value = $0 }
        try backend.run()

        // Then
        #expect(outcomes.value == ["empty refused", "empty accepted"])
    }

    @Test("uploads and downloads made with shouldAutomaticallyResume: false wait for resume(), handlers or not")
    func preparedTransfers() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/drafts") { _ in ResponsePlan(status: 204) }
        backend.serve(path: "/backup") { _ in .text(200, "backup") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = backend.withTransport { Session() }
        let statuses = LinesBox()

        // When the app prepares both, runs the network, then starts them
        let requests = ThirdRound.prepared(session: session, saveTo: folder.appendingPathComponent("b.txt"), statuses: statuses)
        try backend.run()
        let before = backend.requests.count
        requests.forEach { $0.resume() }
        try backend.run()

        // Then nothing went out before resume()
        #expect(before == 0)
        #expect(statuses.all.sorted() == ["download 200", "upload 204"])
        #expect(try String(contentsOf: folder.appendingPathComponent("b.txt"), encoding: .utf8) == "backup")
    }

    @Test("an app's own URLSession layer: async data(for:) and upload(for:from:) on a session from the app's configuration, replayed",
          .cassette("compat-plain-urlsession.har", mode: .replayOnly, timing: .instant))
    func plainURLSessionAsync() async throws {
        // Given the app's client on a session made from its own configuration over the tape's
        let tape = try #require(Tape.current)
        let client = PlainAPIClient(session: URLSession(configuration: PlainAPIClient.configuration(base: tape.configuration())))

        // When the app awaits its calls
        let (profile, receipt, refusal, avatarStatus) = try await tape.serving { () async throws -> (AccountProfile, NoteReceipt, PlainAPIFailure?, Int) in
            let profile = try await client.profile()
            let receipt = try await client.createNote(title: "groceries")
            var refusal: PlainAPIFailure?
            do { _ = try await client.createNote(title: "groceries") } catch let failure as PlainAPIFailure { refusal = failure }
            let status = try await client.uploadAvatar(Data([0x89, 0x50, 0x4E, 0x47]))
            return (profile, receipt, refusal, status)
        }

        // Then each answer is the recorded one, in recording order for the repeated POST
        #expect(profile == AccountProfile(userId: 7, displayName: "Ada"))
        #expect(receipt == NoteReceipt(id: 31))
        #expect(refusal == .status(422, #"{"message":"title taken"}"#))
        #expect(avatarStatus == 200)
    }

    @Test("an app's delegate-based data task gets the recorded stream's pieces and completes once, on the tape's session",
          .cassette("compat-plain-urlsession.har", mode: .replayOnly, timing: .instant))
    func plainURLSessionDelegate() throws {
        // Given
        let tape = try #require(Tape.current)
        let outcome = Box<(Int, Int, String?)?>(nil)
        let reader = FeedReader { outcome.value = ($0, $1, $2) }
        let session = tape.makeURLSession(configuration: PlainAPIClient.configuration(), delegate: reader)

        // When
        session.dataTask(with: URL(string: "https://api.example.com/v1/feed")!).resume()
        _ = try tape.run()

        // Then the body came in its two recorded pieces
        #expect(outcome.value?.0 == 200)
        #expect(outcome.value?.1 == 2)
        #expect(outcome.value?.2 == "data: one\n\ndata: two\n\n")
    }
}
