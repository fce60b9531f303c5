import Foundation
import XCTest
import TapedeckClient
import TapedeckHTTP
import TapedeckSimulatedBackend

/// UserCode/NewsService.swift, compiled in the Swift 5 language mode, on the simulated network.
/// The tests use XCTest's classic idiom: locals captured and assigned in handlers.
final class NewsServiceTests: XCTestCase {
    private func backend() -> SimulatedBackend {
        let backend = SimulatedBackend()
        backend.serve(host: "news.example.com", path: "/headlines/*") { request in
            let id = Int(request.url.lastPathComponent) ?? 0
            if id == 404 { return ResponsePlan(status: 404) }
            return .json(200, #"{"id":\#(id),"title":"Story \#(id)"}"#)
        }
        backend.serve(host: "news.example.com", path: "/headlines") { _ in
            .json(200, #"[{"id":1,"title":"One"},{"id":2,"title":"Two"}]"#)
        }
        backend.serve(host: "news.example.com", path: "/teapot") { _ in ResponsePlan(status: 418) }
        backend.serve(host: "news.example.com", path: "/private") { request in
            request.headerFields[.authorization] == "Bearer fresh" ? .json(200, "{}") : ResponsePlan(status: 401)
        }
        return backend
    }

    func testHandlersWriteTheServiceStateAndTheTestsLocals() throws {
        let backend = backend()
        let service = backend.withTransport { NewsService() }
        var received: Headline?
        var failure: Error?
        var calls = 0

        service.headline(id: 7) { result in
            calls += 1
            received = try? result.get()
        }
        service.headline(id: 404) { result in
            calls += 1
            if case .failure(let error) = result { failure = error }
        }
        try backend.run()

        XCTAssertEqual(calls, 2)
        XCTAssertEqual(received, Headline(id: 7, title: "Story 7"))
        XCTAssertEqual(service.cache[7]?.title, "Story 7")
        XCTAssertEqual((failure as? AFError)?.responseCode, 404)
        XCTAssertEqual(service.failures.count, 1)
    }

    func testSeveralHandlersShareACounter() throws {
        let backend = backend()
        let service = backend.withTransport { NewsService() }
        var titles: [String] = []

        service.titles(of: [3, 1, 2]) { titles = $0 }
        try backend.run()

        XCTAssertEqual(titles, ["Story 1", "Story 2", "Story 3"])
    }

    func testResponseJSONHandsFoundationCollections() throws {
        let backend = backend()
        let service = backend.withTransport { NewsService() }
        var ids: [Int] = []

        service.headlineIDs { ids = $0 }
        try backend.run()

        XCTAssertEqual(ids, [1, 2])
    }

    func testAValidatorAndACURLLogCaptureLocals() throws {
        let backend = backend()
        let service = backend.withTransport { NewsService() }
        var lines: [String] = []
        var status: Int?
        var validations = 0

        service.status(of: "/teapot", log: { lines.append($0) }) { code, count in
            status = code
            validations = count
        }
        try backend.run()

        XCTAssertEqual(status, 418)
        XCTAssertEqual(validations, 1)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.first?.contains("https://news.example.com/teapot") == true)
    }

    func testAnInterceptorWithMutableStateRenewsItsToken() throws {
        let backend = backend()
        let interceptor = RenewingTokenInterceptor()
        let session = backend.withTransport { Session(interceptor: interceptor) }
        var statusCode: Int?

        session.request("https://news.example.com/private").validate().response { statusCode = $0.response?.statusCode }
        try backend.run()

        XCTAssertEqual(statusCode, 200)
        XCTAssertEqual(interceptor.adaptations, 2)
        XCTAssertEqual(backend.authorizations("/private"), ["Bearer expired", "Bearer fresh"])
    }

    @MainActor
    func testAMainActorViewModelUpdatesItselfFromItsHandler() throws {
        let backend = backend()
        let model = HeadlinesViewModel(session: backend.withTransport { Session() })

        model.refresh()
        XCTAssertTrue(model.isLoading)
        try backend.run()

        XCTAssertFalse(model.isLoading)
        XCTAssertEqual(model.titles, ["One", "Two"])
        XCTAssertNil(model.errorText)
    }

    func testAFRequestWithClosuresLikeAlamofiresOwnTests() throws {
        let backend = backend()
        var response: DataResponse<String, AFError>?
        var requestLine: URLRequest?

        _ = backend.withTransport {
            AF.request("https://news.example.com/headlines/5")
                .onURLRequestCreation { requestLine = $0 }
                .responseString { response = $0 }
        }
        try backend.run()

        XCTAssertEqual(response?.value, #"{"id":5,"title":"Story 5"}"#)
        XCTAssertEqual(requestLine?.url?.path, "/headlines/5")
    }
}

extension NewsServiceTests {
    func testASessionDelegateSubclassDrivesASession() throws {
        let backend = backend()
        let delegate = PinningSessionDelegate()
        let session = backend.withTransport { Session(delegate: delegate) }
        var title: String?

        session.request("https://news.example.com/headlines/3").responseDecodable(of: Headline.self) { title = $0.value?.title }
        try backend.run()

        XCTAssertEqual(title, "Story 3")
        XCTAssertEqual(delegate.challenges, 0)
    }
}

extension NewsServiceTests {
    func testAMultipartPhotoUploadReachesTheServerAndReportsProgress() throws {
        let backend = backend()
        backend.serve(.post, host: "news.example.com", path: "/photos") { request in
            .json(201, #"{"id":9,"bytes":\#(request.body?.count ?? 0)}"#)
        }
        let uploader = backend.withTransport { PhotoUploader() }
        var result: Result<PhotoReceipt, AFError>?
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9])

        uploader.upload(jpeg, caption: "sunset") { result = $0 }
        try backend.run()
        let body = backend.requests.last?.body ?? Data()
        let contentType = backend.requests.last?.headerFields[.contentType]

        XCTAssertEqual(try result?.get(), PhotoReceipt(id: 9, bytes: body.count))
        XCTAssertEqual(uploader.receipts.count, 1)
        XCTAssertEqual(uploader.fraction, 1)
        let boundary = try XCTUnwrap(contentType?.components(separatedBy: "boundary=").last)
        XCTAssertEqual(contentType, "multipart/form-data; boundary=\(boundary)")
        let text = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nsunset\r\n"))
        XCTAssertTrue(text.hasSuffix("\r\n--\(boundary)--\r\n"))
        XCTAssertNotNil(body.range(of: jpeg))
    }
}
