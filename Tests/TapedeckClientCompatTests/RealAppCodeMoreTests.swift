import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// The app code of UserCode/FilesTransfer.swift, LoggingMonitor.swift, MiscIdioms.swift,
/// InterceptorVariants.swift and MoreIdioms.swift on the simulated network.
@Suite("Compat: more network layers from apps")
struct RealAppCodeMoreTests {
    private func text(_ data: Data?) -> String? {
        data.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("uploads and downloads: a multipart avatar with progress, raw data, a download moved to the suggested filename, async download data")
    func filesTransfer() async throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/uploads") { _ in .json(201, #"{"id":"u1"}"#) }
        backend.serve(path: "/logs") { _ in ResponsePlan(status: 204) }
        backend.serve(path: "/reports/*") { _ in
            ResponsePlan(status: 200, headers: [("Content-Type", "text/csv"), ("Content-Disposition", #"attachment; filename="q3.csv""#)],
                         body: Data("a,b\n1,2\n".utf8))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = backend.withTransport { MediaService(session: Session(), folder: folder.appendingPathComponent("nested")) }
        let progress = Box<[Double]>([])
        let receipt = Box<UploadReceipt?>(nil)
        let logStatus = Box<Int?>(nil)
        let saved = Box<URL?>(nil)

        // When
        service.uploadAvatar(Data([0xFF, 0xD8, 0xFF]), userID: 42, progress: { p in progress.mutate { $0.append(p) } }) {
            receipt.value = try? $0.get()
        }
        service.uploadLog(Data("boot ok".utf8)) { logStatus.value = $0 }
        service.downloadReport(named: "q3") { saved.value = $0 }
        try backend.run()
        let data = try await backend.withTransport { try await service.downloadData(named: "q4") }

        // Then
        #expect(receipt.value == UploadReceipt(id: "u1"))
        #expect(progress.value.last == 1.0)
        let upload = try #require(backend.requests.first { $0.path == "/uploads" })
        let body = try #require(text(upload.body))
        #expect(body.contains(#"name="avatar"; filename="avatar.jpg""#))
        #expect(body.contains("name=\"user_id\"\r\n\r\n42\r\n"))
        // The app's explicit "multipart/form-data" header is replaced by one with the form's boundary
        #expect(upload.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(upload.headerFields[.authorization] == "Bearer token")
        #expect(logStatus.value == 204)
        #expect(backend.requests.first { $0.path == "/logs" }.flatMap { text($0.body) } == "boot ok")
        #expect(saved.value?.lastPathComponent == "q3.csv")
        #expect(try saved.value.map { try String(contentsOf: $0, encoding: .utf8) } == "a,b\n1,2\n")
        #expect(text(data) == "a,b\n1,2\n")
    }

    @Test("a logging EventMonitor with its own DispatchQueue sees resume, the URLRequest, the finish and the parsed response")
    func loggingMonitor() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/things") { _ in .json(201, #"{"id":1}"#) }
        let logger = APILogger()
        let session = backend.withTransport { LoggedSession.make(logger: logger) }

        // When
        session.request("https://api.example.com/things", method: .post, parameters: ["a": 1], encoding: JSONEncoding.default)
            .responseData { _ in }
        try backend.run()

        // Then, in Alamofire's order: resume comes before the URLRequest exists (lazy setup), and
        // requestDidFinish is sent once the serializers are started, before their didParseResponse
        #expect(logger.log == ["→ ? ? body: None", "headers: Content-Type", "finished POST https://api.example.com/things (201)",
                               "← 201 8 bytes ok"])
    }

    @Test("AF with the full request signature, a closure validator reading the error body, DataResponse accessors")
    func afIdioms() throws {
        // Given
        let backend = SimulatedBackend()
        let calls = Box(0)
        backend.serve(path: "/status") { _ in
            calls.mutate { $0 += 1 }
            return calls.value == 1 ? .json(500, #"{"message":"boom"}"#) : .text(200, "fine")
        }
        backend.serve(path: "/things") { _ in .json(200, "{}") }
        let outcome = Box<String?>(nil)
        let facts = Box<[String]>([])
        let status = Box<Int?>(nil)

        // When
        backend.withTransport {
            Idioms.fullSignature { outcome.value = $0 }
            Idioms.parametersAsJSONWithBody { status.value = $0 }
        }
        try backend.run()
        backend.withTransport { Idioms.responseAccessors { facts.value = $0 } }
        try backend.run()

        // Then
        #expect(outcome.value == "server: boom")
        #expect(status.value == 200)
        #expect(facts.value == ["https://api.example.com/status", "200", "text/plain; charset=utf-8", "text/plain; charset=utf-8",
                                "fine", "no error"])
        let pretty = try #require(backend.requests.first { $0.path == "/things" })
        #expect(text(pretty.body)?.contains("\n") == true)
        #expect(Idioms.statusCodeFromError(AFError.explicitlyCancelled) == -999)
        #expect(Idioms.statusCodeFromError(AFError.requestRetryFailed(
            retryError: AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: 429)),
            originalError: URLError(.timedOut))) == 429)
    }

    @Test("a retrier-only RequestInterceptor (adapt by default) beside a closure Adapter; a monitor's less common events")
    func interceptorVariants() throws {
        // Given a server that refuses twice
        let backend = SimulatedBackend()
        let calls = Box(0)
        backend.serve(path: "/me") { _ in
            calls.mutate { $0 += 1 }
            return calls.value <= 2 ? ResponsePlan(status: 401) : .json(200, "{}")
        }
        let monitor = EventsMonitor()
        let session = backend.withTransport { InterceptorVariants.session(monitor: monitor) }
        let status = Box<Int?>(nil)

        // When
        session.request("https://api.example.com/me").validate().response { status.value = $0.response?.statusCode }
        try backend.run()

        // Then two retries after 2 s each, the adapter's headers on every attempt
        #expect(status.value == 200)
        #expect(backend.authorizations("/me") == ["Token abc", "Token abc", "Token abc"])
        #expect(backend.requests.allSatisfy { $0.headerFields[.acceptLanguage] == "pt-PT" })
        #expect(monitor.seen.filter { $0 == "retrying" }.count == 2)
        // validate() is two validators; after a failure the next one is skipped, as in Alamofire
        #expect(monitor.seen.filter { $0.hasPrefix("validated") } == ["validated 401", "validated 401", "validated 200", "validated 200"])
        #expect(monitor.seen.first == "initial")
        #expect(monitor.seen.contains("adapted") && monitor.seen.contains("task") && monitor.seen.contains("completed"))
    }

    @Test("per-request redirect and cache handlers, an adapter reading the request's ID, a string stream")
    func moreIdioms() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/moved") { _ in ResponsePlan(status: 302, headers: [("Location", "/here")]) }
        backend.serve(path: "/status") { _ in .json(200, "{}") }
        backend.serve(path: "/events") { _ in
            var plan = ResponsePlan(status: 200, headers: [("Content-Type", "text/plain")], body: Data("one two".utf8))
            plan.chunkSizes = [4, 3]
            return plan
        }
        let session = backend.withTransport { Session() }
        let moved = Box<Int?>(nil)
        let lines = Box<[String]>([])

        // When
        MoreIdioms.noRedirectNoCache(session: session).response { moved.value = $0.response?.statusCode }
        let identified = MoreIdioms.withRequestID(session: session)
        identified.response { _ in }
        MoreIdioms.stream(session: session) { lines.value = $0 }
        try backend.run()

        // Then
        #expect(moved.value == 302)
        #expect(backend.hits("/here") == 0)
        let status = try #require(backend.requests.first { $0.path == "/status" })
        #expect(status.headerFields[HTTPField.Name("X-Request-ID")!] == identified.id.uuidString)
        #expect(lines.value.joined() == "one twodone")
        #expect(lines.value.last == "done")
    }

    @Test("async sequences and hand-built serializers: decodable streams, EmptyResponse values, a downloaded file URL")
    func asyncSequences() async throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/ticks") { _ in
            var plan = ResponsePlan(status: 200, headers: [("Content-Type", "application/json")], body: Data(#"{"n":1}{"n":2}"#.utf8))
            plan.chunkSizes = [7, 7]
            return plan
        }
        backend.serve(path: "/text") { _ in ResponsePlan(status: 200, headers: [("Content-Type", "text/plain")], body: Data([0x63, 0x61, 0x66, 0xE9])) }
        backend.serve(path: "/ack") { _ in .json(200, #"{"ok":false}"#) }
        backend.serve(path: "/empty") { _ in ResponsePlan(status: 204) }
        backend.serve(path: "/file") { _ in .text(200, "payload") }
        let session = backend.withTransport { Session() }

        // When
        let ticks = await backend.withTransport { await AsyncSequences.ticks(session: session) }
        let ack = try await backend.withTransport { try await AsyncSequences.ack(session: session) }
        let emptyAck = try await backend.withTransport { try await AsyncSequences.emptyAck(session: session) }
        try await backend.withTransport { try await AsyncSequences.nothing(session: session) }
        let file = try await backend.withTransport { try await AsyncSequences.fileURL(session: session) }
        let latin1 = Box<String?>(nil)
        AsyncSequences.latin1(session: session) { latin1.value = $0 }
        try backend.run()

        // Then
        #expect(ticks == [Tick(n: 1), Tick(n: 2)])
        #expect(ack.ok == false)
        #expect(emptyAck.ok == true)   // 204: EmptyResponse.emptyValue()
        #expect(try String(contentsOf: file, encoding: .utf8) == "payload")
        #expect(latin1.value == "café")
    }
}
