import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckHTTP

/// UserCode/QualifiedNames.swift: `Alamofire.Session`, `Alamofire.RequestInterceptor`,
/// `Alamofire.HTTPMethod`, `Alamofire.AFDataResponse` and `Session.sessionConfiguration`.
@Suite("Compat: Alamofire's module-qualified names")
struct QualifiedNamesTests {
    @Test("a client written with Alamofire.-qualified names sends through its adapter and reads its configuration")
    func qualifiedClient() throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/me") { request in
            ResponsePlan(status: request.headerFields[.authorization] == "Bearer t0k3n" ? 200 : 401, body: Data("ada".utf8))
        }
        let response = Box<AFDataResponse<String>?>(nil)
        let client = backend.withTransport { QualifiedClient(token: "t0k3n") }
        #expect(client.timeout == 60, "URLSessionConfiguration's default request timeout")
        client.profile { response.value = $0 }
        try backend.run()
        #expect(response.value?.value == "ada")
        #expect(Alamofire.AF === AF)
    }
}

extension QualifiedNamesTests {
    @Test("a downloader written with Alamofire.-qualified download names writes the file where its destination says")
    func qualifiedDownloader() throws {
        let backend = SimulatedBackend()
        let body = Data((0..<3_000).map { UInt8($0 % 97) })
        backend.serve(path: "/files/photo.jpg") { _ in
            ResponsePlan(status: 200, headers: [("Content-Type", "image/jpeg"), ("Content-Length", "\(body.count)")], body: body)
        }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-qualified-\(UUID().uuidString)/a/photo.jpg")
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent().deletingLastPathComponent()) }
        let downloader = backend.withTransport { QualifiedDownloader(session: Alamofire.Session()) }
        let response = Box<Alamofire.AFDownloadResponse<Data>?>(nil)
        downloader.download(URL(string: "https://api.example.com/files/photo.jpg")!, to: target) { response.value = $0 }
        try backend.run()
        #expect(response.value?.value == body)
        #expect(response.value?.fileURL == target)
        #expect(try Data(contentsOf: target) == body)
        #expect(downloader.fraction == 1)
    }
}
