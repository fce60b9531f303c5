import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Compat: a fifth round of app network layers")
struct RealAppCodeFifthTests {
    @Test("NextcloudKit's download: the file lands at the local path, the task is described, progress ends at 1, the raw response comes on the app's queue")
    func cloudDownload() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "cloud.example.com", path: "/remote.php/dav/files/ada/*") { _ in
            .text(200, "report body", headers: [("ETag", "\"abc\""), ("Content-Length", "11")])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fifth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = folder.appendingPathComponent("sub/report.txt").path
        let files = backend.withTransport { CloudFiles(session: Session()) }
        let descriptions = LinesBox()
        let fractions = LinesBox()
        let outcome = Box<(String, Int?, URL?, String?)?>(nil)

        // When
        files.download(remote: "https://cloud.example.com/remote.php/dav/files/ada/report.txt", toLocalPath: local, account: "ada",
                       taskDescription: "download-42",
                       taskHandler: { descriptions.append($0.taskDescription ?? "nil") },
                       progressHandler: { fractions.append("\($0)") },
                       completion: { account, response in
                           outcome.value = (account, response?.response?.statusCode, response?.fileURL,
                                            response?.response?.headers.value(for: "ETag"))
                       })
        try backend.run()

        // Then (a simulated `.text` plan sends no Content-Length unless given: without it the
        // total is -1 and fractionCompleted stays 0, as URLSession reports an unknown size)
        #expect(outcome.value?.0 == "ada")
        #expect(outcome.value?.1 == 200)
        #expect(outcome.value?.2?.path == local)
        #expect(outcome.value?.3 == "\"abc\"")
        #expect(try String(contentsOfFile: local, encoding: .utf8) == "report body")
        #expect(descriptions.all == ["download-42"])
        #expect(fractions.all.last == "1.0", "\(fractions.all)")
        let sent = try #require(backend.requests.first)
        #expect(sent.headerFields[.authorization] == "Basic " + Data("ada:app-pass".utf8).base64EncodedString())
    }

    @Test("NKInterceptor refuses an unauthorized account before any exchange (requestAdaptationFailed around the app's AFError); NKMonitor sees resume before the URLRequest and flags a path/account mismatch")
    func cloudGateAndMonitor() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "cloud.example.com", path: "/remote.php/dav/files/*") { _ in ResponsePlan(status: 401) }
        cloudUnauthorizedAccounts.value = ["bob"]
        defer { cloudUnauthorizedAccounts.value = [] }
        let monitor = CloudMonitor()
        let files = backend.withTransport { CloudFiles(session: Session(eventMonitors: [monitor])) }
        let refused = Box<AFError?>(nil)
        let mismatch = Box<Int?>(nil)

        // When bob (refused) and carol-on-ada's-path (401) list folders
        files.listFolder(user: "bob", account: "bob") { refused.value = $0.error }
        files.listFolder(user: "ada", account: "carol") { mismatch.value = $0.response?.statusCode }
        try backend.run()

        // Then bob never went out; his error is the adapter's, wrapped
        #expect(backend.requests.count == 1)
        let error = try #require(refused.value)
        #expect(error.isRequestAdaptationError)
        #expect((error.underlyingError as? AFError)?.responseCode == 401)
        #expect(mismatch.value == 401)
        #expect(monitor.lines.all.contains("ACCOUNT MISMATCH pathUser=ada/ headerUser=carol") ||
                monitor.lines.all.contains("ACCOUNT MISMATCH pathUser=ada headerUser=carol"), "\(monitor.lines.all)")
        // As in Alamofire 5.12 (lazy setup), requestDidResume comes before the URLRequest exists
        #expect(monitor.lines.all.filter { $0.hasPrefix("resume") } == ["resume: no URLRequest yet", "resume: no URLRequest yet"],
                "\(monitor.lines.all)")
        #expect(monitor.lines.all.contains("User: carol Code: 401 - ERROR"))
    }

    @Test("Mixin's BaseAPI: the signing adapter replaces every header field, the envelope's data or error is decoded, the server time is read from allHeaderFields, a lost connection is worth retrying")
    func walletEnvelope() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "wallet.example.com", path: "/assets/1") { _ in
            .json(200, #"{"data":{"asset_id":"btc","balance":"0.5"}}"#, headers: [("X-Server-Time", "1700000000000000000")])
        }
        backend.serve(host: "wallet.example.com", path: "/transfers") { _ in
            .json(200, #"{"error":{"status":202,"code":20117,"description":"insufficient balance"}}"#)
        }
        backend.network.route(host: "wallet.example.com", path: "/flaky") { _, _ in .failure(.networkConnectionLost) }
        let api = backend.withTransport { WalletBaseAPI() }
        let asset = Box<Result<WalletAsset, WalletAPIError>?>(nil)
        let transfer = Box<Result<WalletAsset, WalletAPIError>?>(nil)
        let flaky = Box<(Result<WalletAsset, WalletAPIError>, Bool?)?>(nil)

        // When
        api.request(method: .get, url: "/assets/1", parameters: nil, encoding: URLEncoding.default) { asset.value = $0 as Result<WalletAsset, WalletAPIError>; _ = $1 }
        api.request(method: .post, url: "/transfers", parameters: ["amount": "1", "asset_id": "btc"]) { transfer.value = $0; _ = $1 }
        api.request(method: .get, url: "/flaky", encoding: URLEncoding.default) { (result: Result<WalletAsset, WalletAPIError>, error) in
            flaky.value = (result, error?.worthRetrying)
        }
        try backend.run()

        // Then
        #expect(asset.value == .success(WalletAsset(assetId: "btc", balance: "0.5")))
        #expect(transfer.value == .failure(WalletAPIError(status: 202, code: 20117, description: "insufficient balance")))
        #expect(api.serverTimes.all == ["1700000000000000000"])
        #expect(flaky.value?.1 == true)
        // AFError bridged to NSError: `_code` is the case number (sessionTaskFailed, 12 on Linux), not the URL error
        if case let .failure(failure)? = flaky.value?.0 { #expect(failure.code == 12) } else { Issue.record("flaky succeeded") }
        // The signing adapter replaced the fields and kept the JSON content type
        let post = try #require(backend.requests.first { $0.url.path == "/transfers" })
        let expected = SignedHeadersInterceptor.signedHeaders(for: {
            var request = URLRequest(url: URL(string: "https://wallet.example.com/transfers")!)
            request.httpMethod = "POST"
            request.httpBody = post.body
            return request
        }())["Authorization"]
        #expect(post.headerFields[.authorization] == expected)
        #expect(post.headerFields[.contentType] == "application/json")
        #expect(post.headerFields[HTTPField.Name("X-Request-Id")!] == "req-1")
    }

    @Test("music-room-ios: serializingRoom built on serializingResponse with a JSONDecoder subclass as the DataDecoder; an empty 204 DELETE is Empty")
    func roomAsync() async throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "rooms.example.com", path: "/tracks/7") { request in
            request.method == .delete ? ResponsePlan(status: 204)
                : .json(200, #"[{"title":"Intro","addedAt":"2024-03-01T10:00:00"},{"title":"Outro","addedAt":"2024-03-02"}]"#)
        }

        // When
        let (tracks, deleted) = try await backend.withTransport { () async throws -> ([RoomTrack], Empty) in
            let session = Session()
            let tracks = try await session.request("https://rooms.example.com/tracks/7").validate().serializingRoom([RoomTrack].self).value
            let deleted = try await session.request("https://rooms.example.com/tracks/7", method: .delete)
                .validate().serializingRoom(Empty.self, automaticallyCancelling: true).value
            return (tracks, deleted)
        }

        // Then
        #expect(tracks.map(\.title) == ["Intro", "Outro"])
        #expect(tracks.map(\.addedAt.timeIntervalSince1970) == [1_709_287_200, 1_709_337_600])
        #expect(deleted == Empty.value)
    }

    @Test("SplatNet3: a Session subclass retrying through itself once after 0.5 s; the error-envelope validator's thrown error comes back inside customValidationFailed; cURL described per attempt")
    func gameSession() throws {
        // Given a service answering 200 with an error envelope twice
        let backend = SimulatedBackend()
        let times = Box<[Int64]>([])
        let scheduler = backend.scheduler
        backend.serve(host: "game.example.com", path: "/api/results") { _ in
            times.mutate { $0.append(scheduler.now.nanoseconds) }
            return .json(200, #"{"error_message":"token expired"}"#)
        }
        let session = backend.withTransport { GameSession() }
        let outcome = Box<(AFError?, Int, [String])?>(nil)

        // When
        session.results { response, retries, curls in outcome.value = (response.error, retries, curls) }
        try backend.run()

        // Then
        let (error, retries, curls) = try #require(outcome.value)
        #expect(retries == 1)
        #expect(times.value.count == 2)
        if times.value.count == 2 { #expect(times.value[1] - times.value[0] >= 500_000_000) }
        guard case let .responseValidationFailed(reason: .customValidationFailed(error: thrown))? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(thrown as? GameFailure.Service == GameFailure.Service(errorMessage: "token expired"))
        #expect(curls.count == 1, "cURLDescription(calling:) calls once, for the first URLRequest: \(curls)")
        #expect(curls.first?.contains("https://game.example.com/api/results") == true)
    }

    @Test("a RetryPolicy subclass adding 429: GETs are retried with backoff up to the limit, POSTs are not")
    func rateLimitedPolicy() throws {
        // Given
        let backend = SimulatedBackend()
        let feedCalls = Box(0)
        backend.serve(host: "feed.example.com", path: "/feed") { _ in
            feedCalls.mutate { $0 += 1 }
            return feedCalls.value < 3 ? .json(429, "{}") : .json(200, "[]")
        }
        backend.serve(host: "feed.example.com", path: "/like") { _ in .json(429, "{}") }
        let session = backend.withTransport { Session(interceptor: RateLimitedRetryPolicy()) }
        let feed = Box<(Int?, Int)?>(nil)
        let like = Box<(Int?, Int)?>(nil)

        // When
        let feedRequest = session.request("https://feed.example.com/feed").validate()
        feedRequest.responseData { feed.value = ($0.response?.statusCode, feedRequest.retryCount) }
        let likeRequest = session.request("https://feed.example.com/like", method: .post).validate()
        likeRequest.responseData { like.value = ($0.error?.responseCode, likeRequest.retryCount) }
        try backend.run()

        // Then
        #expect(feed.value?.0 == 200)
        #expect(feed.value?.1 == 2)
        #expect(like.value?.0 == 429)
        #expect(like.value?.1 == 0)
    }

    @Test("home-assistant's trust manager subclass (its own evaluator) is kept by the session and requests go through")
    func trustManagerSubclass() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(host: "ha.example.com", path: "/api/") { _ in .json(200, #"{"message":"API running."}"#) }
        let manager = ExceptionsTrustManager(exceptions: ["self-signed"])
        let session = backend.withTransport { Session(serverTrustManager: manager) }
        let message = Box<String?>(nil)

        // When
        session.request("https://ha.example.com/api/").responseDecodable(of: [String: String].self) { message.value = $0.value?["message"] }
        try backend.run()

        // Then
        #expect(session.serverTrustManager === manager)
        #expect(manager.exceptions() == ["self-signed"])
        #expect(message.value == "API running.")
    }
}
