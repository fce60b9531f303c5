import Foundation
import Testing
import TapedeckCassettes
import TapedeckClient
import TapedeckLoopback
import TapedeckTestSupport
import TapedeckTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// TapedeckClient's multipart uploads and downloads, recorded from a real server and replayed with
/// bodies matched exactly.
@Suite("Tape: multipart uploads and downloads record and replay")
struct TransferTapeTests {
    /// The same form every time it is built (as an app builds it on every run).
    static func form(caption: String) -> MultipartFormData {
        let form = MultipartFormData()
        form.append(Data(caption.utf8), withName: "caption")
        form.append(Data((0..<2_000).map { UInt8($0 % 200) }), withName: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
        return form
    }

    @Test("a form recorded once matches, byte for byte, when the app builds it again; another form misses", .timeLimit(.minutes(1)))
    func multipartReplays() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("upload.har.gz")
        let url = server.url("/echo")

        let recording = try Tape(cassette: cassette, mode: .all)
        let recorded = try await DefaultTransport.$current.withValue(recording.makeClientTransport()) {
            let session = Session()
            return try await session.upload(multipartFormData: Self.form(caption: "sunset"), to: url).serializingData().value
        }
        try recording.finish()
        server.stop()
        #expect(recorded == (try Self.form(caption: "sunset").encode()))

        let replay = try Tape(cassette: cassette, mode: .replayOnly, matching: MatchRules(body: .raw))
        let (again, other) = try await DefaultTransport.$current.withValue(replay.makeClientTransport()) {
            let session = Session()
            let again = try await session.upload(multipartFormData: Self.form(caption: "sunset"), to: url).serializingData().value
            let other = await session.upload(multipartFormData: Self.form(caption: "dawn"), to: url).serializingData().result
            return (again, other)
        }
        #expect(again == recorded)
        #expect(other.failure?.urlError != nil, "a different form is not in the cassette: \(String(describing: other))")
    }

    @Test("a download recorded from a real server replays into a file at the destination", .timeLimit(.minutes(1)))
    func downloadReplays() async throws {
        let server = try await LoopbackServer.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cassette = directory.file("download.har.gz")
        let url = server.url("/bytes/5000")
        let first = directory.file("first/bytes.bin"), second = directory.file("second/bytes.bin")

        let recording = try Tape(cassette: cassette, mode: .all)
        let live = try await DefaultTransport.$current.withValue(recording.makeClientTransport()) {
            let session = Session()
            return try await session.download(url, to: { _, _ in (first, [.createIntermediateDirectories]) }).serializingDownloadedFileURL().value
        }
        try recording.finish()
        server.stop()

        let replay = try Tape(cassette: cassette, mode: .replayOnly)
        let replayed = try await DefaultTransport.$current.withValue(replay.makeClientTransport()) {
            let session = Session()
            return try await session.download(url, to: { _, _ in (second, [.createIntermediateDirectories]) }).validate()
                .serializingDownloadedFileURL().value
        }
        #expect(live == first && replayed == second)
        #expect(try Data(contentsOf: first).count == 5_000)
        #expect(try Data(contentsOf: second) == Data(contentsOf: first))
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
