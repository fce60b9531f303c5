import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Uploads through a real URLSession and the bridge to the simulated network: what the server
/// receives, progress, retries, temporary files, and failures to make the body.
@Suite("Pipeline: uploads (data, file, stream, multipart) and progress")
struct UploadTests {
    /// What the simulated server saw of each request.
    struct Seen: Sendable, Equatable {
        let method: String
        let contentType: String?
        let body: Data?
    }

    /// Serves `/upload` on api.test: records each request, answers `statuses` in turn (then 201)
    /// with a JSON body saying how many bytes arrived.
    static func serveUploads(_ fixture: ClientFixture, statuses: [Int] = []) -> Box<[Seen]> {
        let seen = Box<[Seen]>([])
        fixture.network.route(host: "api.test", path: "/upload") { request, _ in
            let count = seen.value.count
            seen.mutate { $0.append(Seen(method: request.method.rawValue, contentType: request.headerFields[.contentType], body: request.body)) }
            let status = count < statuses.count ? statuses[count] : 201
            return .response(.json(status, #"{"received":\#(request.body?.count ?? 0)}"#))
        }
        return seen
    }

    @Test("data uploads arrive whole, with the method asked for; progress says the body was sent and the answer received")
    func dataUpload() throws {
        let fixture = ClientFixture()
        let seen = Self.serveUploads(fixture)
        let payload = Data((0..<5_000).map { UInt8($0 % 251) })
        let sent = Box<[Int64]>([]), received = Box<[Int64]>([]), status = Box<Int?>(nil)
        fixture.session.upload(payload, to: "http://api.test/upload", method: .put, headers: ["Content-Type": "application/octet-stream"])
            .uploadProgress { _ in sent.mutate { $0.append(-1) } }
            .uploadProgress { progress in sent.mutate { $0.append(progress.completedUnitCount) } }
            .downloadProgress { progress in received.mutate { $0.append(progress.completedUnitCount) } }
            .responseData { status.value = $0.response?.statusCode }
        try fixture.run()
        #expect(seen.value == [Seen(method: "PUT", contentType: "application/octet-stream", body: payload)])
        #expect(status.value == 201)
        #expect(sent.value == [5_000], "the last handler set is the one called, once the body was sent")
        #expect(received.value.last == Int64(#"{"received":5000}"#.utf8.count))
        #expect(fixture.events.details(of: "didCreateUploadable") == ["data"])
    }

    @Test("a multipart form arrives with its Content-Type and bytes; a retry sends the very same body, encoded once")
    func multipartRetried() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy(retryLimit: 2))
        let seen = Self.serveUploads(fixture, statuses: [503])
        let form = MultipartFormData()
        form.append(Data("Ada".utf8), withName: "name")
        form.append(Data([0xFF, 0x00, 0x7F]), withName: "avatar", fileName: "a.png", mimeType: "image/png")
        let expected = try form.encode()
        let result = Box<Int?>(nil)
        // PUT: the retry policy, as Alamofire's, does not retry a POST.
        fixture.session.upload(multipartFormData: form, to: "http://api.test/upload", method: .put).validate().responseData { result.value = $0.response?.statusCode }
        try fixture.run()
        #expect(result.value == 201)
        #expect(seen.value.count == 2)
        #expect(seen.value.allSatisfy { $0.body == expected && $0.method == "PUT" })
        #expect(seen.value.allSatisfy { $0.contentType == "multipart/form-data; boundary=\(form.boundary)" })
        #expect(fixture.events.count("didCreateUploadable") == 2, "asked for on every attempt, as Alamofire does; the form hands back what it encoded")
    }

    @Test("the same form built in two runs encodes to the same bytes, so a recorded body matches on replay")
    func deterministicBodies() throws {
        func run() throws -> Data? {
            let fixture = ClientFixture()
            let seen = Self.serveUploads(fixture)
            fixture.session.upload(multipartFormData: { form in
                form.append(Data("caption".utf8), withName: "text")
                form.append(Data(repeating: 7, count: 300), withName: "file", fileName: "f.bin", mimeType: "application/octet-stream")
            }, to: "http://api.test/upload").responseData { _ in }
            try fixture.run()
            return seen.value.first?.body
        }
        let first = try run(), second = try run()
        #expect(first != nil && first == second)
    }

    @Test("a form over the memory threshold goes through a temporary file, removed once the request finished")
    func largeFormThroughFile() throws {
        let fixture = ClientFixture()
        let seen = Self.serveUploads(fixture)
        let form = MultipartFormData(boundary: "big")
        form.append(Data(repeating: 1, count: 2_048), withName: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        let request = fixture.session.upload(multipartFormData: form, to: "http://api.test/upload", usingThreshold: 1_024)
        let file = Box<URL?>(nil), existedDuringRequest = Box(false)
        request.onURLSessionTaskCreation { _ in
            if case let .file(url, shouldRemove: true)? = request.uploadable {
                file.value = url
                existedDuringRequest.value = FileManager.default.fileExists(atPath: url.path)
            }
        }
        request.responseData { _ in }
        try fixture.run()
        #expect(seen.value.first?.body == (try form.encode()))
        let url = try #require(file.value)
        #expect(existedDuringRequest.value)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("a temporary form file is removed when the session is released during the upload, and on cancel")
    func temporaryFileOnRelease() throws {
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/slow", options: RouteOptions(latency: .fixed(.seconds(5))), ResponsePlan(status: 200))
        var session: Session? = Session(provider: fixture.harness, scheduler: fixture.scheduler)
        let form = MultipartFormData(boundary: "f")
        form.append(Data(repeating: 3, count: 4_096), withName: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        let request = session!.upload(multipartFormData: form, to: "http://api.test/slow", usingThreshold: 1_024)
        let error = Box<ClientError?>(nil)
        request.responseData { error.value = $0.error }
        try fixture.scheduler.run(until: seconds(1))
        guard case let .file(url, shouldRemove: true)? = request.uploadable else {
            Issue.record("the form went to a file: \(String(describing: request.uploadable))")
            return
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        session = nil
        try fixture.run()
        #expect(error.value?.isSessionDeinitializedError == true)
        #expect(!FileManager.default.fileExists(atPath: url.path), "removed though the session was gone")

        let cancelled = fixture.session.upload(multipartFormData: form, to: "http://api.test/slow", usingThreshold: 1_024)
        cancelled.responseData { _ in }
        try fixture.scheduler.run(until: seconds(2))
        guard case let .file(second, shouldRemove: true)? = cancelled.uploadable else {
            Issue.record("the second form went to a file too")
            return
        }
        cancelled.cancel()
        try fixture.run()
        #expect(!FileManager.default.fileExists(atPath: second.path))
    }

    @Test("file and stream uploads send the file's and the stream's bytes")
    func fileAndStream() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt")
        try Data("from a file".utf8).write(to: file)
        let fixture = ClientFixture()
        let seen = Self.serveUploads(fixture)
        fixture.session.upload(file, to: "http://api.test/upload").responseData { _ in }
        try fixture.run()
        fixture.session.upload(InputStream(data: Data("from a stream".utf8)), to: "http://api.test/upload").responseData { _ in }
        try fixture.run()
        #expect(seen.value.map(\.body) == [Data("from a file".utf8), Data("from a stream".utf8)])
        #expect(FileManager.default.fileExists(atPath: file.path), "a file the app gave is never removed")
    }

    @Test("a form that cannot be encoded fails the request before any exchange, with the form's error")
    func unencodableForm() throws {
        let fixture = ClientFixture()
        let seen = Self.serveUploads(fixture)
        let missing = URL(fileURLWithPath: "/nonexistent/tapedeck/photo.png")
        let error = Box<ClientError?>(nil)
        fixture.session.upload(multipartFormData: { $0.append(missing, withName: "photo") }, to: "http://api.test/upload")
            .responseData { error.value = $0.error }
        try fixture.run()
        guard case let .multipartEncodingFailed(.bodyPartFileNotReachable(url))? = error.value else {
            Issue.record("expected bodyPartFileNotReachable, got \(String(describing: error.value))")
            return
        }
        #expect(url == missing)
        #expect(seen.value.isEmpty)
        #expect(fixture.events.count("didFailToCreateUploadable") == 1 && fixture.events.count("didCreateTask") == 0)
    }

    @Test("download progress counts a response's bytes against its Content-Length, and starts again on a retry")
    func downloadProgress() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy(retryLimit: 1))
        let calls = Box(0)
        fixture.network.route(host: "api.test", path: "/file") { _, _ in
            calls.mutate { $0 += 1 }
            let body = calls.value == 1 ? Data(#"{"busy":true}"#.utf8) : Data(repeating: 9, count: 4_000)
            return .response(ResponsePlan(status: calls.value == 1 ? 503 : 200, headers: [("Content-Length", "\(body.count)")], body: body))
        }
        let seen = Box<[String]>([])
        let request = fixture.session.request("http://api.test/file").validate()
            .downloadProgress { progress in seen.mutate { $0.append("\(progress.completedUnitCount)/\(progress.totalUnitCount)") } }
        request.responseData { _ in }
        try fixture.run()
        #expect(seen.value.first == "13/13")
        #expect(seen.value.last == "4000/4000")
        #expect(request.downloadProgress.fractionCompleted == 1)
        #expect(calls.value == 2, "the retry reset the progress of an attempt that had received bytes (this traps in Alamofire on Linux)")
    }
}

/// The same uploads over a real URLSession to a real server on loopback.
@Suite("Pipeline: uploads, live against a loopback server")
struct LiveUploadTests {
    @Test("a multipart form and a file reach a real server byte for byte (its /echo answers with the body)")
    func liveEcho() async throws {
        let live = try await LiveTests.Live()
        let form = MultipartFormData()
        form.append(Data("Ada".utf8), withName: "name")
        form.append(Data((0..<20_000).map { UInt8($0 % 256) }), withName: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        let expected = try form.encode()
        let sent = Box<Int64>(0)
        let echoed: ClientDataResponse<Data> = await withCheckedContinuation { continuation in
            live.session.upload(multipartFormData: form, to: live.url("/echo"))
                .uploadProgress { sent.value = $0.completedUnitCount }
                .responseData { continuation.resume(returning: $0) }
        }
        #expect(echoed.value == expected)
        #expect(echoed.request?.value(forHTTPHeaderField: "Content-Type") == form.contentType)
        #expect(sent.value == Int64(expected.count))
    }

    @Test("a stream and a file reach a real server whole")
    func liveStreamAndFile() async throws {
        let live = try await LiveTests.Live()
        let bytes = Data((0..<100_000).map { UInt8($0 % 253) })
        let streamed: ClientDataResponse<Data> = await withCheckedContinuation { continuation in
            live.session.upload(InputStream(data: bytes), to: live.url("/echo")).responseData { continuation.resume(returning: $0) }
        }
        #expect(streamed.value == bytes, "\(String(describing: streamed.error))")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-live-upload-\(UUID().uuidString).bin")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile: ClientDataResponse<Data> = await withCheckedContinuation { continuation in
            live.session.upload(file, to: live.url("/echo")).responseData { continuation.resume(returning: $0) }
        }
        #expect(fromFile.value == bytes)
    }
}
